"""agents.afterstate and train/afterstate.py: turn search, the agent, a tiny training run."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
import yaml

from agents import make_agent
from agents.afterstate import (
    FEATURES_VERSION,
    AfterstateAgent,
    CardStates,
    ValueNet,
    load_value,
    save_value,
    turn_plan,
)
from agents.arena import run_arena
from agents.optimal.scorecard import solve
from envs.batched.scorecard import BatchedScorecard
from envs.obs.yahtzee import observe
from envs.rules.scorecard import ScorecardGame, make_rules
from train.afterstate import load_config, main


@pytest.mark.parametrize(
    ("rules", "options"), [("classic", {}), ("russian", {}), ("classic", {"joker": "free"})]
)
def test_turn_search_on_the_exact_values_gives_the_optimum(rules, options):
    """With the solver's exact values at its leaves, the turn search is exact: the value of
    an empty card is the published optimum. (A check of the search, not of learning.)"""
    r = make_rules(rules, **options)
    solution = solve(r)
    model = solution.model

    def exact(cards: CardStates) -> np.ndarray:
        out = np.zeros(len(cards))
        for i in range(len(cards)):
            if cards.open_[i].any():
                state = model.state(cards.open_[i].tolist(), int(cards.upper[i]), cards.y50[i])
                out[i] = float(model.value(state)[0])
        return out

    empty = CardStates(np.ones((1, len(r.rows)), bool), np.zeros(1, np.int64), np.zeros(1, bool))
    _, value = turn_plan(r, exact, empty)
    assert value[0] == pytest.approx(solution.expected_score, abs=1e-4)


def _play_scalar_and_batched(agent, r, n: int, seed: int = 0) -> tuple[list[int], list[int]]:
    """``n`` whole games of ``agent`` on the batched engine and, on the same dice, in the
    scalar rules game, every decision compared on the way: the two lists of totals."""
    rng = np.random.default_rng(seed)
    batch = BatchedScorecard(n, r)
    first = rng.integers(1, 7, size=(n, 5))
    batch.reset(chance=first)
    scalar = [ScorecardGame(np.random.default_rng(0), r, chance=c) for c in first]
    while not batch.done.all():
        live = ~batch.done
        actions = np.zeros(n, dtype=np.int64)
        actions[live] = agent.act_batch(batch.observe()[live], batch.action_masks()[live])
        chance = rng.integers(1, 7, size=(n, 5))
        for g in np.flatnonzero(live):
            game = scalar[g]
            assert agent.act(observe(game), game.action_mask()) == actions[g]
            game.step(int(actions[g]), chance=chance[g])
        batch.step_some(actions, live, chance)
    return [g.card.total for g in scalar], batch.total.tolist()


def test_agent_plays_the_same_in_the_scalar_env_and_the_batched_engine(tmp_path):
    r = make_rules("classic")
    net = ValueNet(r, (16,))
    path = tmp_path / "v.pt"
    save_value(net, path)
    agent = make_agent(f"afterstate:{path}", game="yahtzee_classic")
    assert isinstance(agent, AfterstateAgent)
    scalar, batched = _play_scalar_and_batched(agent, r, 8)
    assert scalar == batched
    # and in a gym env, a whole game
    env = gym.make("YahtzeeClassic-v0")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))


_RUNS = Path(__file__).parents[2] / "runs"
# every trained scorecard model in runs/: afterstate values and PPO models (spec, path)
COMMITTED = [("afterstate", p) for p in sorted(_RUNS.glob("*afterstate*/value.pt"))] + [
    ("ppo", p) for p in sorted(_RUNS.glob("yahtzee*/model.zip"))
]


def _committed_params() -> list:
    """The first model of each kind and game in the fast tier, every other one heavy."""
    seen: set[tuple[str, str]] = set()
    out = []
    for kind, path in COMMITTED:
        key = (kind, path.parent.name.split("__")[0])
        marks = [pytest.mark.heavy] if key in seen else []
        seen.add(key)
        out.append(pytest.param(kind, path, marks=marks, id=path.parent.name))
    return out


@pytest.mark.parametrize("kind,path", _committed_params())
def test_committed_model_plays_the_same_everywhere(kind, path):
    """Each trained scorecard model in runs/ (afterstate values, PPO models) loads through
    make_agent, makes the same decisions in the scalar rules game as on the batched engine
    (same dice, same totals), plays the arena, and plays well: far ahead of random on the
    same dice."""
    game = yaml.safe_load((path.parent / "config.yaml").read_text())["env"]["id"]
    name = "yahtzee_classic" if game == "YahtzeeClassic-v0" else "yahtzee"
    agent = make_agent(f"{kind}:{path}", game=name)
    rules = make_rules("classic" if name == "yahtzee_classic" else "russian")
    scalar, batched = _play_scalar_and_batched(agent, rules, 4, seed=11)
    assert scalar == batched
    arena = run_arena(name, [f"{kind}:{path}", "random"], 3, progress=False)
    trained, rand = arena.agent_values().mean(axis=0)
    assert trained > rand + 80


def test_an_other_feature_version_is_refused(tmp_path):
    path = tmp_path / "v.pt"
    save_value(ValueNet(make_rules("classic"), (8,)), path)
    data = torch.load(path, weights_only=False)
    data["features"] = FEATURES_VERSION + 1
    torch.save(data, path)
    with pytest.raises(ValueError, match="features version"):
        make_agent(f"afterstate:{path}", game="yahtzee_classic")


def test_agent_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no value network"):
        make_agent(f"afterstate:{tmp_path / 'missing.pt'}", game="yahtzee")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not torch")
    with pytest.raises(ValueError, match="cannot load an afterstate value network"):
        make_agent(f"afterstate:{bad}", game="yahtzee")
    good = tmp_path / "russian.pt"
    save_value(ValueNet(make_rules("russian"), (8,)), good)
    with pytest.raises(ValueError, match="trained for"):
        make_agent(f"afterstate:{good}", game="yahtzee_classic")


def _tiny(tmp_path, **run):
    cfg = {
        "env": {"id": "Yahtzee-v0"},
        "value": {"hidden": [16], "batch_size": 64, "updates_per_turn": 1},
        "run": {
            "n_games": 32,
            "total_games": 64,
            "eval_every": 32,
            "eval_games": 20,
            "final_eval_games": 20,
            "checkpoint_every": 32,
            "out_dir": str(tmp_path / "runs"),
            **run,
        },
    }
    path = tmp_path / "tiny_afterstate.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_tiny_training_run_resume_and_agent(tmp_path):
    path = _tiny(tmp_path)
    run_dir = main(["--config", str(path), "--no-progress"])
    for name in ("value.pt", "config.yaml", "metrics.csv", "curve.png", "final.json"):
        assert (run_dir / name).is_file(), name
    with (run_dir / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["games"]) for r in rows] == [0, 32, 64, 64]
    assert all(0 < float(r["pct_optimal"]) < 110 for r in rows)
    with pytest.raises(FileExistsError, match="already holds a finished run"):
        main(["--config", str(path), "--no-progress", "--run", str(run_dir)])
    # continue the same run to a larger budget
    main(["--config", str(path), "--no-progress", "--resume", "--total-games", "96"])
    with (run_dir / "metrics.csv").open() as f:
        assert int(list(csv.DictReader(f))[-2]["games"]) == 96
    agent = make_agent(f"afterstate:{run_dir / 'value.pt'}", game="yahtzee")
    env = gym.make("Yahtzee-v0")
    obs, info = env.reset(seed=0)
    assert info["action_mask"][agent.act(obs, info["action_mask"])]


@pytest.mark.parametrize(
    ("section", "change", "message"),
    [
        ("run", {"n_games": 0}, "run.n_games must be a whole number >= 1, got 0$"),
        ("run", {"seed": -1}, "run.seed must be a whole number >= 0, got -1$"),
        ("value", {"learning_rate": 0.0}, "value.learning_rate must be a number > 0, got 0.0$"),
        ("run", {"n_gmaes": 3}, "unknown key"),
        ("value", {"learning_rate": "fast"}, "value.learning_rate must be a number, got 'fast'$"),
        ("value", {"hidden": [0]}, "value.hidden"),
        ("value", {"warm_start": "heuristic"}, "warm_start must be"),
        ("env", {"id": "DicePoker-v0"}, "scorecard game"),
        ("env", {"kwargs": {"jokr": 1}}, "unknown option"),
    ],
)
def test_config_errors(tmp_path, section, change, message):
    path = _tiny(tmp_path)
    data = yaml.safe_load(path.read_text())
    data[section].update(change)
    path.write_text(yaml.safe_dump(data))
    with pytest.raises((ValueError, TypeError), match=message):
        load_config(str(path))


@pytest.mark.heavy
def test_assisted_warm_start_starts_near_the_optimum(tmp_path):
    path = _tiny(tmp_path, total_games=32)
    data = yaml.safe_load(path.read_text())
    data["value"].update(
        hidden=[64, 64], warm_start="optimal", warm_start_games=256, warm_start_steps=300
    )
    path.write_text(yaml.safe_dump(data))
    run_dir = main(["--config", str(path), "--no-progress"])
    # an untrained V is near 0 everywhere; fitted to the solver's values (and 32 games of
    # learning since), it knows the empty card is worth about the optimal 224.07
    net = load_value(run_dir / "value.pt")
    rows = len(net.rules.rows)
    empty = CardStates(np.ones((1, rows), bool), np.zeros(1, np.int64), np.zeros(1, bool))
    assert abs(net.values(empty)[0] - 224.07) < 20
