"""The one-card forms of the card rules (legal_rows_one, fill_gains_one) equal the array
forms the batched engine uses (legal_row_mask, fill_gains) on random cards and every roll;
the bit-set forms a game's step reads (legal_bits_one, plain_gains_one, mask_of_bits) equal
the one-card forms."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from envs.rules.dice import _ordered_rolls
from envs.rules.scorecard import (
    DICE,
    Scorecard,
    ScorecardGame,
    _game_tables,
    fill_gains,
    fill_gains_one,
    legal_bits_one,
    legal_row_mask,
    legal_rows_one,
    make_rules,
    mask_of_bits,
    plain_gains_one,
    score_lists,
    step_tables,
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


_DERIVED = (
    "_open_rows",
    "_stage",
    "_upper_sum",
    "_total",
    "_yahtzee_scored",
    "_open",
    "_open_bits",
)


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
            assert {k: getattr(card, k) for k in _DERIVED} == {
                k: getattr(built, k) for k in _DERIVED
            }


def _random_cards(rules, rng, count: int):
    """Open rows (bool per row), upper sums and Yahtzee-row states as test_one_card_forms
    draws them: any open pattern, often the last open upper row (the bonus states)."""
    n = len(rules.rows)
    for _ in range(count):
        open_ = rng.random(n) < rng.random()
        if not open_.any():
            open_[rng.integers(n)] = True
        if rng.random() < 0.3:
            open_[:6] = False
            open_[rng.integers(6)] = True
        upper_sum = int(rng.integers(-30, 40) if rules.rules == "russian" else rng.integers(30, 90))
        yield tuple(open_.tolist()), upper_sum, bool(rng.random() < 0.5)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(r))
def test_bit_set_forms_equal_the_one_card_forms(rules):
    # legal_bits_one is legal_rows_one as a bit set; where plain_gains_one says plain, the
    # gains are the plain row scores with no bonus: on random cards and every roll
    rng = np.random.default_rng(2)
    st, tab = step_tables(rules), score_lists(rules)
    plain_seen = not_plain_seen = 0
    for open_, upper_sum, yahtzee_scored in _random_cards(rules, rng, 60):
        bits = sum(1 << k for k, o in enumerate(open_) if o)
        for d in range(len(DICE)):
            legal = legal_rows_one(rules, open_, d)
            assert legal_bits_one(rules, st, bits, d) == sum(
                1 << k for k, ok in enumerate(legal) if ok
            )
            plain = plain_gains_one(rules, st, bits, upper_sum, d)
            for first in (False, True):
                score, bonus, ybonus = fill_gains_one(
                    rules, open_, upper_sum, yahtzee_scored, d, first
                )
                if plain:
                    assert score == list((tab.first if first else tab.later)[d])
                    assert not any(bonus) and not any(ybonus)
            plain_seen += plain
            not_plain_seen += not plain
    assert plain_seen and not_plain_seen


@pytest.mark.parametrize("n_rows", [13, 17])
def test_mask_of_bits_sets_the_rerolls_and_the_legal_rows(n_rows):
    rng = np.random.default_rng(3)
    for legal in [0, (1 << n_rows) - 1, *rng.integers(0, 1 << n_rows, 200).tolist()]:
        for can in (False, True):
            mask = mask_of_bits(n_rows, can, legal)
            want = np.zeros(32 + n_rows, dtype=bool)
            want[1:32] = can
            want[32:] = [(legal >> k) & 1 for k in range(n_rows)]
            assert mask.dtype == bool and mask.flags.writeable
            np.testing.assert_array_equal(mask, want)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(r))
def test_a_game_bits_view_and_mask_say_what_its_state_view_says(rules):
    rng = np.random.default_rng(4)
    for _ in range(30):
        game = ScorecardGame(rng, rules)
        while True:
            _, _, _, legal, _, _, _ = game.state_view()
            di, bits, _ = game.bits_view()
            assert DICE[di] == game.dice
            assert bits == sum(1 << k for k, ok in enumerate(legal) if ok)
            want = np.zeros(game.n_actions, dtype=bool)
            want[1:32] = game.rolls_left > 0
            want[32:] = legal
            np.testing.assert_array_equal(game.action_mask(), want)
            if game.done:
                break
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])


def _rolls(game: ScorecardGame, actions) -> list[tuple[int, ...]]:
    """The dice after each of ``actions`` (re-rolls, or a fill of the first legal row)."""
    out = []
    for a in actions:
        if a is None:
            a = 32 + (game.bits_view()[1] & -game.bits_view()[1]).bit_length() - 1
        game.step(a)
        out.append(game.dice)
    return out


ACTIONS = [None, 31, 5, None, 1, 16, None, 30, None]  # from any roll of a turn


def test_the_game_draws_as_roll_and_a_new_rng_binds_its_drawer():
    # the turn's first roll and every re-roll: one draw below 6**n, as rng.integers
    rng, twin = np.random.default_rng(11), np.random.default_rng(11)
    game = ScorecardGame(rng, "classic")
    assert game.dice == tuple(sorted(_ordered_rolls(5)[int(twin.integers(6**5))]))
    kept = game.dice[:2]  # re-roll the three largest dice
    game.step(0b11100)
    rolled = _ordered_rolls(3)[int(twin.integers(6**3))]
    assert game.dice == tuple(sorted(kept + rolled))
    assert rng.bit_generator.state == twin.bit_generator.state
    # a generator set from outside is drawn from (its drawer bound on assignment)
    game.rng = np.random.default_rng(5)
    other = ScorecardGame(np.random.default_rng(3), "classic")
    other.dice, other.rolls_used = game.dice, game.rolls_used
    other.rng = np.random.default_rng(5)
    assert _rolls(game, ACTIONS) == _rolls(other, ACTIONS)


@pytest.mark.parametrize("how", ["copy", "pickle"])
def test_a_copied_game_rolls_on_from_the_same_state(how):
    game = ScorecardGame(np.random.default_rng(2), "russian")
    _rolls(game, [7, None, 12])
    twin = game.copy() if how == "copy" else pickle.loads(pickle.dumps(game))
    assert twin.rng is not game.rng
    assert _rolls(twin, ACTIONS) == _rolls(game, ACTIONS)
    assert twin.card == game.card and twin.history == game.history


def test_the_game_tables_of_alternating_rules_objects():
    # the one-entry memo answers by identity: alternating rules objects each get their own
    for _ in range(2):
        for r in RULES:
            tab, st, empty = _game_tables(r)
            assert tab is score_lists(r) and st is step_tables(r)
            assert (
                empty == Scorecard(r) and ScorecardGame(np.random.default_rng(0), r).card is empty
            )
