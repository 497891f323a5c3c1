"""ScorecardMatch: seat order, and settlements that sum to exactly zero."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from envs.multi import yahtzee_v0
from envs.rules.scorecard_match import SETTLE_BITS, ScorecardMatch, settle


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_settlements_sum_to_exactly_zero(n):
    rng = np.random.default_rng(n)
    totals = rng.integers(-200, 1500, size=(500, n))
    paid = settle(totals, 0.37)
    assert paid.shape == totals.shape
    for row, t in zip(paid, totals, strict=True):
        assert sum(row.tolist()) == 0.0 and sum(reversed(row.tolist())) == 0.0
        exact = [Fraction(0.37) * (x - Fraction(int(t.sum()), n)) for x in t.tolist()]
        assert (
            max(abs(Fraction(p) - e) for p, e in zip(row, exact, strict=True))
            <= n * 2.0**-SETTLE_BITS
        )
    assert settle([10, 0, 0]) == [settle(np.array([[10, 0, 0]]))[0].tolist()][0]
    assert settle([7, 3]) == [2.0, -2.0]  # exact when the mean is


def test_match_passes_the_turn_on_a_fill():
    m = ScorecardMatch(3, np.random.default_rng(0), "classic")
    m.step(31)  # a re-roll keeps the turn
    assert m.current_player == 0
    m.step(int(np.flatnonzero(m.games[0].action_mask())[-1]))  # a fill passes it
    assert m.current_player == 1 and m.others(1) == [m.games[2], m.games[0]]


@pytest.mark.parametrize("n", [3, 5, 6])
def test_aec_settlements_sum_to_exactly_zero(n):
    env = yahtzee_v0.env(n_players=n, rules="classic", reward_scale=0.1)
    env.reset(seed=n)
    rng = np.random.default_rng(0)
    paid = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term:
            paid[agent] = reward
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(paid) == n and sum(paid.values()) == 0.0
