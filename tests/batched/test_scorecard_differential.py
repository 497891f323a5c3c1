"""The batched scorecard engine equals the scalar rules, step by step, on the same dice.

Both engines are fed the same chance (``ScorecardGame.step(..., chance=)`` and
``BatchedScorecard.step(..., chance)``) and the same actions; the observation (the env's
encoding), the action mask, the reward and the end of the game must agree bit for bit at
every step. Actions are drawn from the legal ones with a bias towards keeping the most
common face, so that Yahtzees, jokers and Yahtzee bonuses occur often.
"""

from __future__ import annotations

import pytest

from envs.batched.differential import SCORECARD_VARIANTS, run_scorecard


@pytest.mark.heavy
@pytest.mark.parametrize(("rules", "options", "n_games"), SCORECARD_VARIANTS)
def test_batched_equals_scalar(rules, options, n_games):
    steps, games = run_scorecard(rules, options, n_games, seed=len(options) * 7 + n_games)
    assert games >= n_games and steps > n_games * 13
