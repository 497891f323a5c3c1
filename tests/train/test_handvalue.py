"""train/handvalue.py and agents/handvalue.py: a tiny run, resume, loading, the same moves in
the scalar env and on the batched engine, honest afterstates, config and file errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.handvalue import HandValueAgent, HandValues, load_values, save_values
from envs.batched.dice_poker import BatchedDicePoker, BatchedDicePokerSingle
from train.handvalue import load_config, main, play_iteration

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
TINY_RUN = {
    "seed": 0,
    "n_games": 300,
    "total_games": 600,
    "eval_every": 300,
    "eval_games": 100,
    "final_eval_games": 100,
    "checkpoint_every": 300,
}


def tiny_config(tmp_path, name="dice_poker_handvalue.yaml", **run) -> str:
    data = yaml.safe_load((CONFIGS / name).read_text())
    data["run"] = {**TINY_RUN, "out_dir": str(tmp_path / "runs"), **run}
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def test_tiny_run_saves_everything_and_plays(tmp_path):
    run_dir = main(["--config", tiny_config(tmp_path), "--no-progress"])
    assert run_dir.name == "dice_poker__tiny__0"
    for name in ("values.npz", "config.yaml", "metrics.csv", "curve.png", "final.json"):
        assert (run_dir / name).is_file(), name
    metrics = rows(run_dir / "metrics.csv")
    assert [int(r["games"]) for r in metrics] == [300, 600, 600]
    final = json.loads((run_dir / "final.json").read_text())
    assert set(final) >= {"handvalue", "heuristic_in_its_place", "optimal_in_its_place"}
    assert len(final["handvalue"]["seat_win"]) == 3
    table, meta = load_values(run_dir / "values.npz")
    assert meta["games"] == 600 and table.weights.sum() > 600  # a play-off adds a turn

    agent = make_agent(f"handvalue:{run_dir / 'values.npz'}", game="dice_poker")
    assert agent.name == "handvalue:dice_poker__tiny__0"
    env = gym.make("DicePoker-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = agent.act(obs, info["action_mask"])
        obs, _, done, _, info = env.step(action)
    # a finished run is never written over: named with --run it is refused, a plain rerun
    # takes the next free number
    with pytest.raises(FileExistsError, match="already holds a finished run"):
        main(["--config", tiny_config(tmp_path), "--no-progress", "--run", str(run_dir)])
    again = main(["--config", tiny_config(tmp_path), "--no-progress"])
    assert again.name == "dice_poker__tiny__0_2"
    assert rows(run_dir / "metrics.csv") == metrics


def test_resume_gives_the_uninterrupted_table(tmp_path):
    whole = main(["--config", tiny_config(tmp_path / "a"), "--no-progress"])
    config = tiny_config(tmp_path / "b")
    part = main(["--config", config, "--no-progress", "--total-games", "300"])
    (part / "values.npz").unlink()  # as if killed after the first checkpoint
    main(["--config", config, "--no-progress", "--resume"])
    a, _ = load_values(whole / "values.npz")
    b, meta = load_values(part / "values.npz")
    assert meta["games"] == 600
    np.testing.assert_array_equal(a.sums, b.sums)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_resume_without_checkpoint_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        main(["--config", tiny_config(tmp_path), "--resume"])


def _random_table(game: str, seed: int) -> HandValues:
    table = HandValues.new(game, 3, 2.0, 1.0)
    rng = np.random.default_rng(seed)
    table.weights[:] = rng.integers(1, 50, size=len(table.weights))
    table.sums[:] = table.weights * rng.uniform(-1, 2, size=len(table.sums))
    return table


@pytest.mark.parametrize("game", ["dice_poker", "dice_poker6"])
def test_same_moves_in_the_scalar_env_and_the_batched_engine(tmp_path, game):
    path = tmp_path / "values.npz"
    save_values(_random_table(game, 1), path)
    agent = make_agent(f"handvalue:{path}", game=game)
    gym_id = "DicePoker-v0" if game == "dice_poker" else "DicePoker6-v0"
    # observations met in the scalar env (against heuristic players, every seat)
    env = gym.make(gym_id, opponents="heuristic")
    seen, masks = [], []
    for episode in range(60):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            seen.append(obs)
            masks.append(info["action_mask"])
            obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))
    # ... and on the batched engine (against optimal players)
    engine = BatchedDicePokerSingle(200, agent.rules, seed=3, opponents=make_agent("optimal", game))
    engine.reset()
    while not engine.done.all():
        live = ~engine.done
        o, m = engine.observe(), engine.action_masks()
        seen += list(o[live])
        masks += list(m[live])
        actions = np.zeros(engine.n, dtype=np.int64)
        actions[live] = agent.act_batch(o[live], m[live])
        engine.step_some(actions, live)
    seen, masks = np.array(seen), np.array(masks)
    one_by_one = [agent.act(o, m) for o, m in zip(seen, masks, strict=True)]
    fresh = make_agent(f"handvalue:{path}", game=game)  # nothing cached yet
    np.testing.assert_array_equal(fresh.act_batch(seen, masks), one_by_one)
    assert masks[np.arange(len(seen)), one_by_one].all()


def test_afterstates_are_what_the_game_paid():
    """Out of the round always loses the ante; the last player of a round holding the best
    hand alone always wins the pot: the final hands the trainer reads off the dice agree
    with the engine's payoffs."""
    table = _random_table("dice_poker", 2)
    agent = HandValueAgent(table, "dice_poker")
    core = BatchedDicePoker(2000, agent.rules, np.random.default_rng(5), n_players=3)
    heuristic = make_agent("heuristic", "dice_poker")
    index, returns, chips = play_iteration(core, agent, heuristic, table)
    assert len(index) >= 2000 and set(np.unique(chips)) <= {-1, 2}
    P, k = 3, table.n_hands
    t = index % (P + 1)
    finished = index // ((P + 1) * k) % (P + 1)
    m = index // ((P + 1) ** 2 * k)
    out = index == table.out
    assert out.any() and (returns[out] == -1).all()
    sure = ~out & (finished == m) & (t == 1)
    assert sure.any() and (returns[sure] == 2).all()


def test_index_of_afterstates():
    table = HandValues.new("dice_poker", 3, 2.0, 1.0)
    first = table.index(3, 0, -1, 0, 10)
    assert table.index(3, 1, 10, 1, 10) != first  # a tie: two holders
    assert table.index(3, 1, 10, 1, 9) == table.out
    assert table.index(3, 1, 5, 1, 10) == table.index(3, 1, 7, 2, 10)  # above any best: alone
    with pytest.raises(ValueError, match="no values for place 0 of a 4-player round"):
        table.utility(4, 0, None, 0)


def test_broken_files_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no hand-value table"):
        make_agent(f"handvalue:{tmp_path / 'missing.npz'}", "dice_poker")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a table")
    with pytest.raises(ValueError, match="cannot load a hand-value table from .*bad.npz"):
        make_agent(f"handvalue:{bad}", "dice_poker")
    six = tmp_path / "six.npz"
    save_values(_random_table("dice_poker6", 0), six)
    with pytest.raises(ValueError, match="trained for dice_poker6"):
        make_agent(f"handvalue:{six}", "dice_poker")
    np.savez(tmp_path / "other.npz", header=np.array(json.dumps({"format": "x"})))
    with pytest.raises(ValueError, match="not a file saved by train/handvalue.py"):
        load_values(tmp_path / "other.npz")
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(value={}), r"unknown section\(s\) \['value'\]"),
        (lambda d: d["learner"].update(alpha=0.1), r"unknown key\(s\) \['alpha'\] in .*learner"),
        (lambda d: d["learner"].update(prior="high"), "learner.prior must be one of"),
        (lambda d: d["learner"].update(decay=1.5), r"learner.decay must be in \(0, 1\]"),
        (lambda d: d["env"].update(id="CardPoker-v0"), "env.id must be a dice poker game"),
        (lambda d: d["env"]["kwargs"].update(opponents=["heuristic", "optimal"]), "one agent"),
        (lambda d: d["env"]["kwargs"].update(opponents="genius"), "unknown agent 'genius'"),
        (lambda d: d["env"]["kwargs"].update(n_players=9), "n_players must be 2..6, got 9"),
        (lambda d: d["env"]["kwargs"].update(full_house_tiebreak="pair"), "full_house_tiebreak"),
        (
            lambda d: d["run"].update(n_games="many"),
            "run.n_games must be a whole number, got 'many'",
        ),
    ],
)
def test_config_errors_name_the_bad_key(tmp_path, edit, message):
    data = yaml.safe_load((CONFIGS / "dice_poker_handvalue.yaml").read_text())
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=message):
        load_config(str(path))


def test_the_arena_and_benchmark_take_the_spec(tmp_path):
    from agents.arena import check_spec, run_arena

    path = tmp_path / "values.npz"
    save_values(_random_table("dice_poker", 4), path)
    check_spec(f"handvalue:{path}", "dice_poker")
    with pytest.raises(ValueError, match="no model file"):
        check_spec(f"handvalue:{tmp_path / 'nothing.npz'}", "dice_poker")
    result = run_arena("dice_poker", [f"handvalue:{path}", "heuristic", "optimal"], 30, workers=1)
    assert result.names[0] == f"handvalue:{path}"
    assert result.agent_values().shape == (30, 3)
