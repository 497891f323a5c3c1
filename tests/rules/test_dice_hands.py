"""Prison dice poker hands (docs/rules.md sections 1 and 2), table-driven, plus exact counts."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from envs.rules.dice_hands import hand_names, rank_dice

FIVE = [
    # dice, name, points
    ([3, 3, 3, 3, 3], "poker", 15),
    ([2, 2, 2, 2, 5], "four", 8),
    ([6, 6, 6, 1, 1], "full_house", 20),
    ([4, 4, 4, 1, 6], "three", 12),
    ([5, 5, 1, 1, 3], "two_pairs", 12),
    ([6, 6, 1, 2, 3], "pair", 12),
    ([1, 2, 3, 4, 6], "nothing", 16),
    ([1, 2, 3, 4, 5], "nothing", 15),  # no straights in this game
    ([2, 3, 4, 5, 6], "nothing", 20),
    ([5, 5, 5, 2, 2], "full_house", 19),
    ([3, 3, 3, 6, 6], "full_house", 21),
]


@pytest.mark.parametrize(("dice", "name", "points"), FIVE)
def test_five_dice_hands(dice, name, points):
    hand = rank_dice(dice)
    assert (hand.name, hand.points) == (name, points)
    assert rank_dice(reversed(dice)) == hand  # order of the dice does not matter


SIX = [
    ([5, 5, 5, 5, 5, 5], "poker", 30),
    ([1, 2, 3, 4, 5, 6], "line", 21),
    ([6, 5, 4, 3, 2, 1], "line", 21),
    ([4, 4, 4, 4, 4, 2], "pentagon", 20),
    ([2, 3, 3, 4, 4, 4], "pyramid", 20),
    ([4, 3, 3, 2, 2, 2], "pyramid", 16),
    ([6, 6, 6, 6, 1, 3], "four", 24),
    ([6, 6, 6, 6, 1, 1], "four", 24),  # 4+2 is four of a kind
    ([4, 4, 4, 5, 5, 5], "two_triples", 27),
    ([4, 4, 4, 6, 6, 1], "three_plus_two", 24),
    ([2, 2, 2, 4, 4, 3], "three_plus_two", 14),  # 3+2+1 but not in pyramid shape
    ([3, 3, 5, 5, 1, 2], "two_plus_two", 16),
    ([1, 1, 3, 3, 6, 6], "two_plus_two", 18),  # three pairs: the best two count
    ([2, 2, 2, 1, 4, 6], "three", 6),
    ([6, 6, 1, 2, 3, 4], "pair", 12),
]


@pytest.mark.parametrize(("dice", "name", "points"), SIX)
def test_six_dice_hands(dice, name, points):
    hand = rank_dice(dice)
    assert (hand.name, hand.points) == (name, points)


@pytest.mark.parametrize(
    ("low", "high"),
    [
        # docs/rules.md section 1 worked examples
        ([4, 4, 4, 4, 1], [5, 5, 5, 5, 1]),  # four fives beat four fours
        ([5, 5, 5, 2, 2], [3, 3, 3, 6, 6]),  # full house 19 < 21 under "sum"
        ([6, 6, 6, 6, 5], [1, 1, 1, 1, 1]),
        ([6, 6, 6, 5, 5], [1, 1, 1, 1, 2]),
        ([6, 6, 6, 5, 4], [1, 1, 1, 2, 2]),
        ([6, 6, 5, 5, 4], [1, 1, 1, 2, 3]),
        ([6, 6, 5, 4, 3], [1, 1, 2, 2, 3]),
        ([2, 3, 4, 5, 6], [1, 1, 2, 3, 4]),  # a bare 20 loses to the lowest pair
        ([1, 2, 3, 4, 6], [1, 2, 3, 5, 6]),  # nothing: higher sum wins
        ([5, 5, 1, 1, 6], [4, 4, 3, 3, 1]),  # two pairs by sum: 12 < 14
        ([1, 1, 1, 1, 1, 2], [1, 2, 3, 4, 5, 6]),  # six dice: pentagon < line
        ([1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 1]),  # line < poker
        ([6, 6, 6, 6, 5, 4], [2, 3, 3, 4, 4, 4]),  # four < pyramid
        ([6, 6, 6, 5, 5, 5], [1, 1, 1, 1, 2, 3]),  # two triples < four
        ([6, 6, 6, 5, 5, 1], [1, 1, 1, 2, 2, 2]),  # three plus two < two triples
        ([6, 6, 5, 5, 4, 3], [1, 1, 1, 2, 2, 4]),  # two plus two < three plus two
        ([6, 6, 6, 5, 4, 3], [1, 1, 2, 2, 3, 4]),  # three < two plus two
        ([6, 6, 5, 4, 3, 2], [1, 1, 1, 2, 3, 4]),  # pair < three
        ([5, 5, 5, 5, 5, 4], [1, 1, 1, 1, 1, 1]),  # pentagon < poker
    ],
)
def test_order(low, high):
    assert rank_dice(low) < rank_dice(high)
    assert rank_dice(high) > rank_dice(low)
    assert max(rank_dice(low), rank_dice(high)) == rank_dice(high)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([4, 4, 4, 4, 6], [4, 4, 4, 4, 1]),  # kickers don't count
        ([3, 3, 1, 2, 6], [3, 3, 1, 4, 5]),
        ([6, 6, 2, 2, 5], [5, 5, 3, 3, 1]),  # two pairs 16 = 16 under "sum"
        ([1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]),  # all lines tie
        ([5, 5, 4, 4, 3, 3], [5, 5, 4, 4, 1, 2]),  # three pairs: best two count
    ],
)
def test_ties(a, b):
    assert rank_dice(a) == rank_dice(b)
    assert not rank_dice(a) < rank_dice(b)
    assert hash(rank_dice(a)) == hash(rank_dice(b))


def test_full_house_triple_variant():
    low, high = [3, 3, 3, 6, 6], [5, 5, 5, 2, 2]
    assert rank_dice(low, full_house_tiebreak="triple") < rank_dice(
        high, full_house_tiebreak="triple"
    )
    assert rank_dice([5, 5, 5, 1, 1], full_house_tiebreak="triple") < rank_dice(
        [5, 5, 5, 2, 2], full_house_tiebreak="triple"
    )
    assert rank_dice(high, full_house_tiebreak="triple").points == 19


def test_two_pairs_high_pair_variant():
    a, b = [6, 6, 1, 1, 2], [5, 5, 4, 4, 2]  # sums 14 < 18, but 6s beat 5s
    assert rank_dice(a) < rank_dice(b)
    assert rank_dice(a, two_pairs_tiebreak="high_pair") > rank_dice(
        b, two_pairs_tiebreak="high_pair"
    )
    c = [6, 6, 2, 2, 1]
    assert rank_dice(a, two_pairs_tiebreak="high_pair") < rank_dice(
        c, two_pairs_tiebreak="high_pair"
    )


@pytest.mark.parametrize(
    ("dice", "monotone", "ascending", "any_"),
    [
        ([2, 3, 3, 4, 4, 4], "pyramid", "pyramid", "pyramid"),  # the source's own shape
        ([4, 3, 3, 2, 2, 2], "pyramid", "three_plus_two", "pyramid"),  # descending
        ([1, 2, 2, 3, 3, 3], "pyramid", "pyramid", "pyramid"),
        ([2, 2, 2, 4, 4, 3], "three_plus_two", "three_plus_two", "pyramid"),
        ([1, 2, 2, 4, 4, 4], "three_plus_two", "three_plus_two", "pyramid"),  # not consecutive
        ([3, 4, 4, 2, 2, 2], "three_plus_two", "three_plus_two", "pyramid"),  # counts out of step
    ],
)
def test_pyramid_variants(dice, monotone, ascending, any_):
    assert rank_dice(dice).name == monotone
    assert rank_dice(dice, pyramid="monotone").name == monotone
    assert rank_dice(dice, pyramid="ascending").name == ascending
    assert rank_dice(dice, pyramid="any").name == any_


@pytest.mark.parametrize(
    ("dice", "name", "points"),
    [([2, 2, 2, 1, 4, 6], "nothing", 17), ([6, 6, 1, 2, 3, 4], "nothing", 22)],
)
def test_six_dice_without_low_hands(dice, name, points):
    hand = rank_dice(dice, six_dice_low_hands=False)
    assert (hand.name, hand.points) == (name, points)


@pytest.mark.parametrize(
    ("dice", "variant", "message"),
    [
        ([1, 2, 3, 4], {}, "5 or 6 dice"),
        ([1, 2, 3, 4, 7], {}, "1..6"),
        ([0, 2, 3, 4, 5], {}, "1..6"),
        ([1, 2, 3, 4, 5], {"full_house_tiebreak": "max"}, "full_house_tiebreak"),
        ([1, 2, 3, 4, 5], {"pyramid": "up"}, "pyramid"),
        ([1, 2, 3, 4, 5], {"six_dice_low_hands": "yes"}, "six_dice_low_hands"),
    ],
)
def test_bad_input(dice, variant, message):
    with pytest.raises(ValueError, match=message):
        rank_dice(dice, **variant)


def test_unknown_option_is_an_error():
    with pytest.raises(TypeError, match="straights"):
        rank_dice([1, 2, 3, 4, 5], straights=True)


def test_five_and_six_dice_hands_do_not_compare():
    with pytest.raises(ValueError, match="cannot compare"):
        _ = rank_dice([1, 1, 2, 3, 4]) < rank_dice([1, 1, 2, 3, 4, 5])


def _census(n, **variant):
    return Counter(rank_dice(r, **variant).name for r in itertools.product(range(1, 7), repeat=n))


def test_all_five_dice_rolls():
    # The exact counts over all 6^5 = 7776 ordered rolls.
    assert _census(5) == {
        "poker": 6,
        "four": 150,
        "full_house": 300,
        "three": 1200,
        "two_pairs": 1800,
        "pair": 3600,
        "nothing": 720,
    }


# Six dice, all 6^6 = 46656 ordered rolls, counted by hand (faces chosen x arrangements):
#   poker          6
#   line           6! = 720
#   pentagon       6 faces x 5 odd faces x C(6,5)=6 places        = 180
#   3+2+1 shapes   6x5x4 face choices x 6!/(3!2!1!)=60            = 7200, of which
#     pyramid (monotone)  4 runs a,a+1,a+2 x 2 directions x 60    = 480
#     pyramid (ascending) 4 runs x 60                             = 240
#     three_plus_two = 7200 - pyramid
#   four           4+2: 6x5 x 15 = 450;  4+1+1: 6 x C(5,2) x 30 = 1800   -> 2250
#   two triples    C(6,2)=15 x 6!/(3!3!)=20                       = 300
#   two plus two   2+2+2: C(6,3)=20 x 90 = 1800; 2+2+1+1: 15 x 6 x 180 = 16200 -> 18000
#   three          3+1+1+1: 6 x C(5,3)=10 x 6!/3!=120             = 7200
#   pair           2+1+1+1+1: 6 x 5 x 6!/2!=360                   = 10800
#   nothing        all six faces different is a line              = 0
#   total 6+720+180+7200+2250+300+18000+7200+10800                = 46656
@pytest.mark.parametrize(
    ("pyramid", "pyramids"), [("monotone", 480), ("ascending", 240), ("any", 7200)]
)
def test_all_six_dice_rolls(pyramid, pyramids):
    counts = _census(6, pyramid=pyramid)
    expected = {
        "poker": 6,
        "line": 720,
        "pentagon": 180,
        "pyramid": pyramids,
        "four": 2250,
        "two_triples": 300,
        "three_plus_two": 7200 - pyramids,
        "two_plus_two": 18000,
        "three": 7200,
        "pair": 10800,
    }
    assert counts == {k: v for k, v in expected.items() if v}
    assert sum(counts.values()) == 6**6


def test_six_dice_without_low_hands_counts():
    counts = _census(6, six_dice_low_hands=False)
    assert counts["nothing"] == 7200 + 10800
    assert "three" not in counts and "pair" not in counts


def test_hand_names_low_to_high():
    assert hand_names(5) == ("nothing", "pair", "two_pairs", "three", "full_house", "four", "poker")
    assert hand_names(6)[-3:] == ("pentagon", "line", "poker")
