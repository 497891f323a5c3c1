"""The one-card forms of the card rules (legal_rows_one, fill_gains_one) equal the array
forms the batched engine uses (legal_row_mask, fill_gains) on random cards and every roll."""

from __future__ import annotations

import numpy as np
import pytest

from envs.rules.scorecard import (
    DICE,
    Scorecard,
    ScorecardGame,
    fill_gains,
    fill_gains_one,
    legal_row_mask,
    legal_rows_one,
    make_rules,
)

RULES = [
    make_rules("russian"),
    make_rules("russian", scratch="any"),
    make_rules("classic"),
    make_rules("classic", joker="free", yahtzee_bonus=False),
    make_rules("classic", joker="none"),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(r))
def test_one_card_forms_equal_the_array_forms(rules):
    rng = np.random.default_rng(0)
    n = len(rules.rows)
    every = np.arange(len(DICE))
    for _ in range(60):
        open_ = rng.random(n) < rng.random()
        if not open_.any():
            open_[rng.integers(n)] = True
        if rng.random() < 0.3:  # the last open upper row, where the bonuses are decided
            open_[:6] = False
            open_[rng.integers(6)] = True
        upper_sum = int(rng.integers(-30, 40) if rules.rules == "russian" else rng.integers(30, 90))
        yahtzee_scored = bool(rng.random() < 0.5)
        first = bool(rng.random() < 0.5)
        wide = np.broadcast_to(open_, (len(DICE), n))
        legal = legal_row_mask(rules, wide, every)
        gains = fill_gains(rules, wide, upper_sum, yahtzee_scored, every, first)
        for d in range(len(DICE)):
            one = tuple(open_.tolist())
            assert legal_rows_one(rules, one, d) == legal[d].tolist()
            got = fill_gains_one(rules, one, upper_sum, yahtzee_scored, d, first)
            assert [list(g) for g in got] == [g[d].tolist() for g in gains]


_DERIVED = ("_open_rows", "_stage", "_upper_sum", "_total", "_yahtzee_scored", "_open")


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(r))
def test_a_filled_card_derives_what_a_built_card_derives(rules):
    # the game's fill derives the new card's state from the old card's by one row; a card
    # built from its scores derives it from scratch: the same values, every fill of 40 games
    rng = np.random.default_rng(1)
    for _ in range(40):
        game = ScorecardGame(rng, rules)
        while not game.done:
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
            card = game.card
            built = Scorecard(rules, card.scores, card.bonus, card.yahtzee_bonus)
            assert {k: card.__dict__[k] for k in _DERIVED} == {
                k: built.__dict__[k] for k in _DERIVED
            }
