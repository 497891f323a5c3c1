"""A fill derives the new card's state from the old card's by one row
(``Scorecard._filled``), and the env's info part of a card by one insertion
(``envs.scorecard._card_info``): both held to the card built from its scores."""

from __future__ import annotations

import numpy as np
import pytest

from envs.rules.scorecard import Scorecard, ScorecardGame, make_rules
from envs.scorecard import _card_info

RULES = [
    ("russian", {}),
    ("russian", {"scratch": "any"}),
    ("classic", {}),
    ("classic", {"joker": "free", "yahtzee_bonus": False}),
    ("classic", {"joker": "none"}),
]
DERIVED = ("_stage", "_upper_sum", "_total", "_yahtzee_scored", "_open_bits")


@pytest.mark.parametrize(("rules", "options"), RULES)
def test_a_filled_card_is_the_card_its_scores_make(rules, options):
    r = make_rules(rules, **options)
    rng = np.random.default_rng(11)
    fills = 0
    for _ in range(60):
        game = ScorecardGame(rng, r)
        _card_info(game.card)
        while not game.done:
            before = game.card
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])
            card = game.card
            if card is before:
                continue
            fills += 1
            want = Scorecard(r, card.scores, card.bonus, card.yahtzee_bonus)
            assert card == want
            for name in DERIVED:
                assert card.__dict__[name] == want.__dict__[name], name
            # the info part by insertion into the previous card's is the one built anew
            head, filled, pairs = _card_info(card, before)
            fresh = _card_info(Scorecard(r, card.scores, card.bonus, card.yahtzee_bonus))
            assert list(filled.items()) == list(fresh[1].items()) == list(pairs)
            assert head == fresh[0]
            assert (head["total"], head["bonus"], head["yahtzee_bonus"]) == (
                card.total,
                card.bonus,
                card.yahtzee_bonus,
            )
    assert fills == 60 * len(r.rows)
