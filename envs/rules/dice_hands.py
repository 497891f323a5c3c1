"""Hands of prison dice poker ("зарики"), five and six dice (docs/rules.md sections 1 and 2).

``rank_dice(dice, **variant)`` returns a :class:`DiceHand`. Hands compare by
``(rank, tie-break)``: ``a < b`` means ``b`` wins, ``a == b`` is a tie that
leads to a play-off. Dice outside the combination never count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache, total_ordering

from envs.rules.dice import check_dice, face_counts
from envs.rules.hand_order import KeyOrdered


class Hand5(IntEnum):
    """Five-dice hands, higher wins."""

    NOTHING = 0
    PAIR = 1
    TWO_PAIRS = 2
    THREE = 3
    FULL_HOUSE = 4
    FOUR = 5
    POKER = 6


class Hand6(IntEnum):
    """Six-dice hands, higher wins."""

    NOTHING = 0
    PAIR = 1
    THREE = 2
    TWO_PLUS_TWO = 3
    THREE_PLUS_TWO = 4
    TWO_TRIPLES = 5
    FOUR = 6
    PYRAMID = 7
    PENTAGON = 8
    LINE = 9
    POKER = 10


FULL_HOUSE_TIEBREAKS = ("sum", "triple")
TWO_PAIRS_TIEBREAKS = ("sum", "high_pair")
PYRAMIDS = ("monotone", "ascending", "any")
HAND_OPTIONS = ("full_house_tiebreak", "two_pairs_tiebreak", "six_dice_low_hands", "pyramid")


@total_ordering
@dataclass(frozen=True, eq=False)
class DiceHand(KeyOrdered):
    """A ranked hand. ``name`` is the name in docs/rules.md, ``points`` its tie-break value."""

    category: IntEnum
    points: int
    dice: tuple[int, ...] = field(compare=False)
    # What decides ties within the category (points, or faces for the
    # "triple"/"high_pair" variants).
    tiebreak: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return self.category.name.lower()

    @property
    def rank(self) -> int:
        return int(self.category)

    @property
    def key(self) -> tuple[int, ...]:
        return (int(self.category), *self.tiebreak)

    @property
    def family(self) -> int:
        return len(self.dice)

    def _mismatch(self, other: DiceHand) -> str:
        return f"cannot compare a {len(self.dice)}-dice hand with a {len(other.dice)}-dice hand"

    def __repr__(self) -> str:
        return f"DiceHand({self.name}, points={self.points}, dice={list(self.dice)})"


def check_variant(
    full_house_tiebreak: str = "sum",
    two_pairs_tiebreak: str = "sum",
    six_dice_low_hands: bool = True,
    pyramid: str = "monotone",
) -> dict:
    """Validate the hand options and return them as a dict."""
    for name, value, allowed in (
        ("full_house_tiebreak", full_house_tiebreak, FULL_HOUSE_TIEBREAKS),
        ("two_pairs_tiebreak", two_pairs_tiebreak, TWO_PAIRS_TIEBREAKS),
        ("pyramid", pyramid, PYRAMIDS),
    ):
        if value not in allowed:
            raise ValueError(f"{name}={value!r} is not allowed; choose one of {allowed}")
    if not isinstance(six_dice_low_hands, bool):
        raise ValueError(f"six_dice_low_hands must be True or False, got {six_dice_low_hands!r}")
    return {
        "full_house_tiebreak": full_house_tiebreak,
        "two_pairs_tiebreak": two_pairs_tiebreak,
        "six_dice_low_hands": six_dice_low_hands,
        "pyramid": pyramid,
    }


def rank_dice(dice: Iterable[int], **variant) -> DiceHand:
    """Rank five or six dice.

    Options (docs/rules.md sections 1 and 2): ``full_house_tiebreak`` "sum" | "triple",
    ``two_pairs_tiebreak`` "sum" | "high_pair" (five dice),
    ``six_dice_low_hands`` True | False and ``pyramid`` "monotone" |
    "ascending" | "any" (six dice).
    """
    values = tuple(sorted(check_dice(dice)))
    if len(values) not in (5, 6):
        raise ValueError(f"prison dice poker uses 5 or 6 dice, got {len(values)}: {list(values)}")
    opts = check_variant(**variant)
    return _rank_sorted(values, *opts.values())


@cache
def _rank_sorted(
    dice: tuple[int, ...],
    full_house_tiebreak: str,
    two_pairs_tiebreak: str,
    six_dice_low_hands: bool,
    pyramid: str,
) -> DiceHand:
    counts = face_counts(dice)
    # Groups as (count, face), biggest group first, higher face first.
    groups = sorted(((c, f) for f, c in enumerate(counts, 1) if c), reverse=True)
    shape = tuple(c for c, _ in groups)
    if len(dice) == 5:
        return _rank5(dice, groups, shape, full_house_tiebreak, two_pairs_tiebreak)
    return _rank6(dice, groups, shape, six_dice_low_hands, pyramid)


def _hand(category: IntEnum, points: int, dice: tuple[int, ...], tiebreak=None) -> DiceHand:
    return DiceHand(category, points, dice, (points,) if tiebreak is None else tuple(tiebreak))


def _rank5(dice, groups, shape, full_house_tiebreak, two_pairs_tiebreak) -> DiceHand:
    (c1, f1), *rest = groups
    if shape == (5,):
        return _hand(Hand5.POKER, 5 * f1, dice)
    if shape[0] == 4:
        return _hand(Hand5.FOUR, 4 * f1, dice)
    if shape == (3, 2):
        f2 = rest[0][1]
        tb = (f1, f2) if full_house_tiebreak == "triple" else None
        return _hand(Hand5.FULL_HOUSE, 3 * f1 + 2 * f2, dice, tb)
    if shape[0] == 3:
        return _hand(Hand5.THREE, 3 * f1, dice)
    if shape[:2] == (2, 2):
        f2 = rest[0][1]  # groups are sorted, so f1 > f2
        tb = (f1, f2) if two_pairs_tiebreak == "high_pair" else None
        return _hand(Hand5.TWO_PAIRS, 2 * f1 + 2 * f2, dice, tb)
    if shape[0] == 2:
        return _hand(Hand5.PAIR, 2 * f1, dice)
    return _hand(Hand5.NOTHING, sum(dice), dice)


def _is_pyramid(groups, pyramid: str) -> bool:
    # groups are [(3, triple), (2, pair), (1, single)]
    (_, t), (_, p), (_, s) = groups
    if pyramid == "any":
        return True
    ascending = (s, p, t) == (s, s + 1, s + 2)  # single lowest, triple highest
    descending = (t, p, s) == (t, t + 1, t + 2)  # triple lowest, single highest
    return ascending or (pyramid == "monotone" and descending)


def _rank6(dice, groups, shape, six_dice_low_hands, pyramid) -> DiceHand:
    (c1, f1), *rest = groups
    if shape == (6,):
        return _hand(Hand6.POKER, 6 * f1, dice)
    if shape == (1,) * 6:
        return _hand(Hand6.LINE, 21, dice)
    if shape[0] == 5:
        return _hand(Hand6.PENTAGON, 5 * f1, dice)
    if shape == (3, 2, 1):
        if _is_pyramid(groups, pyramid):
            return _hand(Hand6.PYRAMID, sum(dice), dice)
        return _hand(Hand6.THREE_PLUS_TWO, 3 * f1 + 2 * rest[0][1], dice)
    if shape[0] == 4:
        return _hand(Hand6.FOUR, 4 * f1, dice)
    if shape == (3, 3):
        return _hand(Hand6.TWO_TRIPLES, sum(dice), dice)
    if shape[:2] == (2, 2):
        # With three pairs the two best pairs count: groups are sorted high first.
        return _hand(Hand6.TWO_PLUS_TWO, 2 * f1 + 2 * rest[0][1], dice)
    if six_dice_low_hands and shape[0] == 3:
        return _hand(Hand6.THREE, 3 * f1, dice)
    if six_dice_low_hands and shape[0] == 2:
        return _hand(Hand6.PAIR, 2 * f1, dice)
    return _hand(Hand6.NOTHING, sum(dice), dice)


def hand_names(n_dice: int) -> tuple[str, ...]:
    """Hand names from lowest to highest."""
    enum = {5: Hand5, 6: Hand6}[n_dice]
    return tuple(h.name.lower() for h in enum)
