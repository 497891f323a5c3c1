"""The batched scorecard heuristic makes exactly the scalar heuristic's choices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.base import Agent
from envs.batched.scorecard import BatchedScorecard
from envs.rules.scorecard import N_REROLL_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = [
    ("yahtzee", {}),
    ("yahtzee", {"scratch": "any"}),
    ("yahtzee_classic", {}),
    ("yahtzee_classic", {"joker": "free"}),
    ("yahtzee_classic", {"joker": "none", "yahtzee_bonus": False}),
]


def scalar_actions(agent, observations, masks) -> np.ndarray:
    return Agent.act_batch(agent, observations, masks)  # act, row by row


def decision_states(game: str, options: dict, n: int, seed: int):
    """Observations and masks met when games of random play (half the rows) and of the
    heuristic's own play (the other half) wait for a decision, every step of the game."""
    agent = make_agent("heuristic", game, **options)
    engine = BatchedScorecard(n, agent.rules, seed=seed)
    engine.reset()
    rng = np.random.default_rng(seed)
    while not engine.done.all():
        live = ~engine.done
        obs, masks = engine.observe()[live], engine.action_masks()[live]
        yield obs, masks
        chosen = agent.act_batch(obs, masks)
        # random legal actions in half the games: odd cards (negative stage-1 sums, dashes)
        random_pick = np.argmax(rng.random(masks.shape) * masks, axis=1)
        actions = np.zeros(n, dtype=np.int64)
        actions[live] = np.where(np.flatnonzero(live) % 2 == 0, chosen, random_pick)
        engine.step_some(actions, live)


@pytest.mark.parametrize(("game", "options"), VARIANTS)
def test_same_actions_as_the_scalar_heuristic(game, options):
    scalar = make_agent("heuristic", game, **options)
    batched = make_agent("heuristic", game, **options)
    compared = 0
    for obs, masks in decision_states(game, options, 60, seed=7):
        got = batched.act_batch(obs, masks)
        np.testing.assert_array_equal(got, scalar_actions(scalar, obs, masks))
        compared += len(obs)
    assert compared > 60 * 20  # every turn of every game, some with re-rolls


@pytest.mark.parametrize("game", ["yahtzee", "yahtzee_classic"])
def test_keep_values_bit_for_bit(game):
    agent = make_agent("heuristic", game)
    from agents.heuristic.scorecard_batch import BatchedHeuristic

    batch = BatchedHeuristic(make_agent("heuristic", game))
    checked = 0
    for obs, _ in decision_states(game, {}, 12, seed=3):
        f = batch.layout.decode(obs)
        for i in range(0, len(obs), 5):
            scalar = agent._turn(batch.layout.decode(obs[i]))
            open_ = f["open_rows"][i : i + 1]
            s = f["upper_sum"][i : i + 1].astype(np.int64)
            ys = f["yahtzee_scored"][i : i + 1].astype(bool)
            keeps = batch._plan(open_, s, ys)[0]
            assert np.array_equal(keeps[0], scalar["keep"][1])
            assert np.array_equal(keeps[1], scalar["keep"][2])
            d = np.arange(252)
            for first, rolls in ((False, 2), (True, 1)):
                fill = batch.fill_values(
                    np.repeat(open_, 252, axis=0),
                    np.repeat(s, 252),
                    np.repeat(ys, 252),
                    d,
                    np.full(252, first),
                )
                assert np.array_equal(fill, scalar["fill"][rolls])
            checked += 1
    assert checked > 20


def test_a_bad_batch_is_one_line():
    agent = make_agent("heuristic", "yahtzee_classic")
    engine = BatchedScorecard(2, agent.rules, seed=0)
    engine.reset()
    with pytest.raises(ValueError, match="expected an observation of shape"):
        agent.act_batch(engine.observe()[:, :10], engine.action_masks())
    with pytest.raises(ValueError, match="action_masks must have shape"):
        agent.act_batch(engine.observe(), engine.action_masks()[:, :N_REROLL_ACTIONS])


def committed_yardsticks():
    """(env id, seed, games, heuristic score) of the committed batched ppo runs."""
    import yaml

    out = {}
    for final in sorted((ROOT / "runs").glob("*/final.json")):
        cfg = yaml.safe_load((final.parent / "config.yaml").read_text())
        run = cfg.get("run", {})
        place = json.loads(final.read_text()).get("heuristic_in_its_place")
        if run.get("engine") == "batched" and place:
            key = (cfg["env"]["id"], run["seed"], run["final_eval_episodes"])
            out[key] = place["score"]
    return sorted((*k, v) for k, v in out.items())


@pytest.mark.heavy
@pytest.mark.parametrize(("env_id", "seed", "n_games", "score"), committed_yardsticks())
def test_reproduces_the_committed_yardsticks(env_id, seed, n_games, score):
    # train.common.sb3.measure plays the heuristic on these games (EVAL_SEED + seed)
    from agents.tables import play_games
    from envs import games
    from train.common.results import EVAL_SEED

    agent = make_agent("heuristic", games.by_gym_id(env_id).name)
    totals = play_games(agent.act_batch, env_id, n_games, EVAL_SEED + seed)
    assert totals.mean() == score
