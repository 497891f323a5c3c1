"""The batched card evaluator agrees with the rules' evaluator on every variant."""

from itertools import permutations

import numpy as np
import pytest

from envs.batched.card_hands import SORT5, BatchedHandEvaluator
from envs.rules.card_hands import evaluate_hand, get_evaluator

VARIANTS = [
    {},
    {"deck": 54},
    {"deck": 54, "joker_card": None},
    {"joker_card": None},
    {"joker_card": "AH"},
    {"categories": "short"},
    {"swap_four_and_straight_flush": True},
    {"ace_low_straight": True},
    {"deck": 54, "categories": "short", "ace_low_straight": True},
    {"deck": 54, "swap_four_and_straight_flush": True},
]


def test_sorting_network_sorts_every_order():
    for order in permutations(range(5)):
        c = list(order)
        for a, b in SORT5:
            c[a], c[b] = min(c[a], c[b]), max(c[a], c[b])
        assert c == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_batch_equals_scalar(variant):
    ev = get_evaluator(**variant)
    batch = BatchedHandEvaluator(**variant)
    rng = np.random.default_rng(len(str(variant)))
    hands = np.argsort(rng.random((100_000, ev.deck.size)), axis=1)[:, :5]
    got = batch.strengths(hands)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, ev.strengths(hands))
    for h, s in zip(hands[:300].tolist(), got[:300].tolist(), strict=True):
        assert s == ev.strength(h)
        texts = [ev.deck.label(c).rstrip("*") for c in h]
        hand = evaluate_hand(texts, **variant)
        assert batch.place[s] == hand.rank and hand.strength == s


def test_every_hand_of_the_36_card_deck():
    ev = get_evaluator()
    batch = BatchedHandEvaluator(ev)
    from envs.rules.card_hands import _colex_combinations

    every = _colex_combinations(36, 5)
    shuffled = np.random.default_rng(0).permuted(every, axis=1)  # rows in any order
    np.testing.assert_array_equal(batch.strengths(shuffled), ev.table)
    np.testing.assert_array_equal(batch.sorted_strengths(every.astype(np.int8)), ev.table)


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (np.zeros((3, 4), dtype=np.int64), r"shape \(N, 5\)"),
        (np.zeros((3, 5), dtype=np.float64), "integer array"),
        (np.array([[0, 1, 2, 3, 36]]), "hand 0 is .* 0..35"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, -1]]), "hand 1 is"),
        (np.array([[0, 1, 2, 3, 4], [5, 6, 7, 5, 8]]), "hand 1 is .* five distinct"),
    ],
)
def test_bad_hands(hands, message):
    with pytest.raises(ValueError, match=message):
        BatchedHandEvaluator().strengths(hands)


def test_empty_batch():
    assert BatchedHandEvaluator().strengths(np.zeros((0, 5), dtype=np.int8)).shape == (0,)
