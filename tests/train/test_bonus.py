"""Card-bonus figures: named as the rules name them, counted from the cards the rules wrote,
in every evaluation of the scorecard trainers and in final.json."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
import yaml

from agents import make_agent
from agents.tables import play_games
from envs.rules.scorecard import make_rules
from envs.vector import make_engine
from train.common.config import find_config
from train.common.results import EVAL_SEED, bonus_figures, bonus_names, bonus_text
from train.common.sb3 import evaluate, load_config


def test_names_follow_the_rules():
    assert bonus_names(make_rules("classic")) == ("upper_bonus_rate", "yahtzee_bonuses")
    assert bonus_names(make_rules("classic", yahtzee_bonus=False)) == ("upper_bonus_rate",)
    assert bonus_names(make_rules("russian")) == ("stage1_bonus_rate",)


def test_figures_count_the_cards_bonus_points():
    got = bonus_figures(make_rules("classic"), [35, 0, 35, 0], [0, 100, 300, 0])
    assert got["upper_bonus_rate"] == 0.5 and got["yahtzee_bonuses"] == 1.0
    assert got["upper_bonus_rate_ci95"] == pytest.approx(1.96 * np.std([1, 0, 1, 0], ddof=1) / 2)
    got = bonus_figures(make_rules("russian"), [50, 50, 0], [0, 0, 0])
    assert set(got) == {"stage1_bonus_rate", "stage1_bonus_rate_ci95"}
    assert got["stage1_bonus_rate"] == pytest.approx(2 / 3)
    assert bonus_text(got).startswith("stage-1 bonus 0.667 ± ")
    assert bonus_text({"score": 1.0}) == ""


def _config(tmp_path, name: str, **run):
    data = yaml.safe_load(find_config(name).read_text())
    data["run"].update(out_dir=str(tmp_path / "runs"), **run)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return load_config(str(path), {}, {}, ("ppo",))


@pytest.mark.parametrize("engine", ["batched", "scalar"])
@pytest.mark.parametrize("name", ["yahtzee.yaml", "yahtzee_classic.yaml"])
def test_evaluation_rates_agree_with_the_upper_rows_of_the_cards(tmp_path, name, engine):
    # the figures come from the bonus the rules paid; here they are checked against the
    # rule itself, the upper / stage-1 rows' sum on the final cards
    cfg = _config(tmp_path, name, engine=engine)
    agent = make_agent("heuristic", cfg.game)
    res = evaluate(agent, cfg, 12, EVAL_SEED)
    classic = cfg.game == "yahtzee_classic"
    key = "upper_bonus_rate" if classic else "stage1_bonus_rate"
    if engine == "batched":  # the games play_games plays: the same engine, the same seed
        table, _, _ = make_engine(cfg.env.id, 12, seed=EVAL_SEED)
        table.reset()
        while not table.done.all():
            live = ~table.done
            actions = np.zeros(12, dtype=np.int64)
            actions[live] = agent.act_batch(table.observe()[live], table.action_masks()[live])
            table.step_some(actions, live)
        upper = table.scores[:, :6].sum(axis=1)
        ybonus = table.yahtzee_bonus
    else:
        env = gym.make(cfg.env.id)
        upper, ybonus = [], []
        for episode in range(12):
            obs, info = env.reset(seed=EVAL_SEED + episode)
            done = False
            while not done:
                obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))
            upper.append(sum(env.unwrapped.game.card.scores[:6]))
            ybonus.append(env.unwrapped.game.card.yahtzee_bonus)
    won = np.asarray(upper) >= (63 if classic else 0)
    assert res[key] == pytest.approx(np.mean(won))
    if classic:
        assert res["yahtzee_bonuses"] == pytest.approx(np.mean(ybonus) / 100)


def classic_final_games(spec: str, n: int) -> tuple[np.ndarray, dict]:
    """Totals and final cards' bonuses of ``spec`` over the final evaluation's classic games
    of seed 0."""
    stats: dict = {}
    agent = make_agent(spec, "yahtzee_classic")
    return play_games(agent.act_batch, "YahtzeeClassic-v0", n, EVAL_SEED, stats), stats


def test_a_scorecard_run_reports_bonuses_of_learner_and_yardsticks(tmp_path, capsys):
    from train.ppo import main

    data = yaml.safe_load(find_config("yahtzee_classic.yaml").read_text())
    data["ppo"].update(n_steps=16, batch_size=64, n_epochs=1)
    data["run"] = {
        "seed": 0,
        "engine": "batched",
        "n_envs": 4,
        "total_timesteps": 64,
        "eval_every": 64,
        "eval_episodes": 4,
        "final_eval_episodes": 6,
        "checkpoint_every": 64,
        "record_games": 0,
        "torch_threads": 1,
        "out_dir": str(tmp_path / "runs"),
    }
    path = tmp_path / "tiny_classic.yaml"
    path.write_text(yaml.safe_dump(data))
    run_dir = main(["--config", str(path), "--no-progress"])
    final = json.loads((run_dir / "final.json").read_text())
    for entry in ("ppo", "heuristic_in_its_place", "optimal_in_its_place"):
        assert 0 <= final[entry]["upper_bonus_rate"] <= 1, entry
        assert final[entry]["yahtzee_bonuses"] >= 0, entry
    # the yardsticks played the final evaluation's games
    totals, stats = classic_final_games("optimal", 6)
    assert final["optimal_in_its_place"]["score"] == totals.mean()
    assert final["optimal_in_its_place"]["upper_bonus_rate"] == stats["bonus"].mean()
    out = capsys.readouterr().out
    assert "upper bonus" in out and "optimal" in out


def test_benchmark_batched_plays_the_final_evaluation_games(tmp_path, capsys):
    from tools.benchmark import main

    argv = ["--game", "yahtzee_classic", "--batched", "--games", "5", "--out", str(tmp_path)]
    rows = main([*argv, "--agents", "heuristic", "random"])
    totals, stats = classic_final_games("heuristic", 5)
    assert rows[0]["agent"] == "heuristic" and rows[0]["score"] == totals.mean()
    assert rows[0]["upper_bonus_rate"] == stats["bonus"].mean()
    assert rows[1]["upper_bonus_rate"] == 0.0  # random play never reaches 63
    out = capsys.readouterr().out
    assert "| agent | mean score (95% CI) | % of optimum | upper bonus |" in out
    written = json.loads((tmp_path / "results.json").read_text())
    assert written["rows"][0]["score"] == rows[0]["score"]
    with pytest.raises(SystemExit):
        main(["--game", "dice_poker", "--batched", "--agents", "heuristic", "--out", str(tmp_path)])
    assert "scorecard games only" in capsys.readouterr().err


def test_the_arena_prints_each_agents_bonuses(tmp_path, capsys):
    from tools.benchmark import main

    result = main(
        ["--game", "yahtzee_classic", "--agents", "heuristic", "random", "--games", "4"]
        + ["--workers", "1", "--out", str(tmp_path), "--no-progress", "--no-chart"]
    )
    out = capsys.readouterr().out
    rec = result.records
    won = rec.bonus[rec.agent == 0] > 0
    assert f"heuristic: upper bonus {won.mean():.3f}" in out
    assert "random: upper bonus 0.000 ± 0.000, Yahtzee bonuses/game" in out


def test_seeds_summarise_the_bonus_rates(tmp_path):
    from tools.seeds import markdown, summarise

    dirs = []
    for seed, rate in enumerate((0.5, 0.7)):
        d = tmp_path / f"yahtzee_classic__x__{seed}"
        d.mkdir()
        entry = {"score": 240.0 + seed, "upper_bonus_rate": rate, "yahtzee_bonuses": 0.1}
        (d / "final.json").write_text(json.dumps({"learner": "ppo", "ppo": entry}))
        dirs.append(d)
    summary = summarise(dirs)
    assert summary["mean_sd"]["upper_bonus_rate"]["mean"] == pytest.approx(0.6)
    assert summary["mean_sd"]["upper_bonus_rate"]["sd"] == pytest.approx(np.std([0.5, 0.7], ddof=1))
    assert "upper_bonus_rate" in markdown(summary).splitlines()[0]
