"""The batched scorecard engine equals the scalar rules, step by step, on the same dice.

Both engines are fed the same chance (``ScorecardGame.step(..., chance=)`` and
``BatchedScorecard.step(..., chance)``) and the same actions; the observation (the env's
encoding), the action mask, the reward and the end of the game must agree bit for bit at
every step. Actions are drawn from the legal ones with a bias towards keeping the most
common face, so that Yahtzees, jokers and Yahtzee bonuses occur often.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.scorecard import BatchedScorecard
from envs.rules.scorecard import ScorecardGame, make_rules
from envs.yahtzee import observe

# (rules, options, games): 10,000 games per rule set, spread over its variants
VARIANTS = [
    ("russian", {}, 6_000),
    ("russian", {"scratch": "any"}, 4_000),
    ("classic", {}, 4_000),
    ("classic", {"joker": "free"}, 2_000),
    ("classic", {"joker": "none"}, 2_000),
    ("classic", {"yahtzee_bonus": False}, 2_000),
]


def _hunting_actions(rng: np.random.Generator, dice: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per game: half the time re-roll the dice that are not the most common face (when
    allowed), else a uniformly random legal action."""
    n = len(mask)
    counts = (dice[:, :, None] == np.arange(1, 7)).sum(axis=1)
    face = counts.argmax(axis=1) + 1
    hunt = ((dice != face[:, None]) * (1 << np.arange(5))).sum(axis=1)
    can = mask[np.arange(n), hunt] & (hunt > 0)
    scores = rng.random(mask.shape) * mask
    random = scores.argmax(axis=1)
    return np.where(can & (rng.random(n) < 0.5), hunt, random)


def _run(rules: str, options: dict, n_games: int, seed: int, slots: int = 500) -> int:
    """Play ``n_games`` games in ``slots`` side by side (a finished slot starts a new game
    in both engines); returns the steps and the games compared."""
    r = make_rules(rules, **options)
    rng = np.random.default_rng(seed)
    batch = BatchedScorecard(slots, r)
    first = rng.integers(1, 7, size=(slots, 5))
    batch.reset(chance=first)
    games = [ScorecardGame(np.random.default_rng(0), r, chance=c) for c in first]
    started, finished, steps = slots, 0, 0
    while finished < n_games:
        mask = batch.action_masks()
        obs = batch.observe()
        for g, game in enumerate(games):
            np.testing.assert_array_equal(obs[g], observe(game), err_msg=f"game {g}")
            np.testing.assert_array_equal(mask[g], game.action_mask(), err_msg=f"game {g}")
        actions = _hunting_actions(rng, batch.dice, mask)
        chance = rng.integers(1, 7, size=(slots, 5))
        points = batch.step(actions, chance)
        for g, game in enumerate(games):
            assert game.step(int(actions[g]), chance=chance[g]) == points[g]
            assert game.done == batch.done[g]
            assert game.card.total == batch.total[g]
        steps += slots
        done = batch.done
        if done.any():
            finished += int(done.sum())
            fresh = rng.integers(1, 7, size=(slots, 5))
            batch.reset(done, fresh)
            for g in np.flatnonzero(done):
                games[g] = ScorecardGame(np.random.default_rng(0), r, chance=fresh[g])
            started += int(done.sum())
    return steps, finished


@pytest.mark.heavy
@pytest.mark.parametrize(("rules", "options", "n_games"), VARIANTS)
def test_batched_equals_scalar(rules, options, n_games):
    steps, games = _run(rules, options, n_games, seed=len(options) * 7 + n_games)
    assert games >= n_games and steps > n_games * 13
