"""Scorecard rules: every row of both cards, the seed's examples, bonuses, scratch and joker."""

from __future__ import annotations

import itertools

import pytest

from envs.rules.scorecard import (
    CLASSIC_ROWS,
    RUSSIAN_ROWS,
    UPPER_ROWS,
    Scorecard,
    ScorecardRules,
    is_yahtzee,
    joker_active,
    legal_rows,
    make_rules,
    satisfies,
    score_row,
)

# -- russian, stage 1: the seed's table ------------------------------------------------

SEED_STAGE1 = [
    ("ones", [1, 1, 2, 3, 6], -1),
    ("twos", [2, 2, 2, 3, 5], 0),
    ("threes", [3, 3, 3, 3, 4], 3),
    ("fours", [1, 4, 4, 4, 5], 0),
    ("fives", [2, 3, 5, 5, 6], -5),
    ("sixes", [1, 6, 6, 6, 6], 6),
    # beyond the seed: none of the face, five of it
    ("sixes", [1, 2, 3, 4, 5], -18),
    ("ones", [1, 1, 1, 1, 1], 2),
]


@pytest.mark.parametrize(("row", "dice", "points"), SEED_STAGE1)
@pytest.mark.parametrize("first_roll", [False, True])
def test_stage1_rows(row, dice, points, first_roll):
    # stage-1 rows are never doubled
    assert score_row(row, dice, first_roll=first_roll) == points


# -- russian, stage 2: (row, dice, later roll, first roll) --------------------------------

RUSSIAN_STAGE2 = [
    # the seed's examples
    ("pair", [2, 2, 1, 3, 5], 4, 8),
    ("two_pairs", [3, 3, 6, 6, 1], 18, 36),
    ("set", [1, 1, 1, 4, 5], 3, 6),
    ("small_straight", [1, 2, 3, 4, 6], 10, 20),
    ("small_straight", [2, 3, 4, 5, 5], 14, 28),
    ("small_straight", [3, 4, 5, 6, 1], 18, 36),
    ("large_straight", [1, 2, 3, 4, 5], 15, 30),
    ("large_straight", [2, 3, 4, 5, 6], 20, 40),
    ("even", [2, 2, 4, 4, 6], 18, 36),
    ("even", [2, 2, 2, 4, 6], 16, 32),
    ("odd", [1, 3, 3, 5, 5], 17, 34),
    ("odd", [1, 1, 1, 1, 5], 9, 18),
    ("full_house", [1, 1, 3, 3, 3], 11, 22),
    ("four", [4, 4, 4, 4, 2], 16, 32),
    ("poker", [5, 5, 5, 5, 5], 25 + 50, 50 + 50),
    ("chance", [1, 2, 4, 5, 6], 18, 18),
    # the best choice
    ("pair", [2, 2, 5, 5, 1], 10, 20),
    ("pair", [3, 3, 3, 6, 6], 12, 24),
    ("two_pairs", [1, 1, 6, 6, 6], 14, 28),
    ("two_pairs", [3, 3, 3, 6, 6], 18, 36),
    ("set", [3, 3, 3, 6, 6], 9, 18),
    # five of a kind is Pair, Set, Four and Poker, not Two pairs or Full house
    ("pair", [6, 6, 6, 6, 6], 12, 24),
    ("set", [6, 6, 6, 6, 6], 18, 36),
    ("four", [6, 6, 6, 6, 6], 24, 48),
    ("poker", [6, 6, 6, 6, 6], 30 + 50, 60 + 50),
    ("two_pairs", [6, 6, 6, 6, 6], 0, 0),
    ("full_house", [6, 6, 6, 6, 6], 0, 0),
    ("even", [6, 6, 6, 6, 6], 30, 60),
    # four of a kind is Pair and Set, not Two pairs
    ("pair", [4, 4, 4, 4, 6], 8, 16),
    ("set", [4, 4, 4, 4, 6], 12, 24),
    ("two_pairs", [4, 4, 4, 4, 6], 0, 0),
    ("full_house", [4, 4, 4, 4, 6], 0, 0),
    # small straight inside a large one scores the best four-run
    ("small_straight", [1, 2, 3, 4, 5], 14, 28),
    ("small_straight", [2, 3, 4, 5, 6], 18, 36),
    ("small_straight", [1, 2, 3, 4, 4], 10, 20),
    ("small_straight", [1, 2, 3, 5, 6], 0, 0),
    ("large_straight", [1, 2, 3, 4, 6], 0, 0),
    ("large_straight", [1, 3, 4, 5, 6], 0, 0),
    # failures
    ("pair", [1, 2, 3, 4, 6], 0, 0),
    ("two_pairs", [1, 1, 2, 3, 4], 0, 0),
    ("set", [1, 1, 2, 2, 3], 0, 0),
    ("even", [2, 4, 6, 6, 1], 0, 0),
    ("odd", [1, 3, 5, 5, 2], 0, 0),
    ("full_house", [1, 1, 2, 2, 3], 0, 0),
    ("four", [3, 3, 3, 1, 1], 0, 0),
    ("poker", [3, 3, 3, 3, 1], 0, 0),
]


@pytest.mark.parametrize(("row", "dice", "later", "first"), RUSSIAN_STAGE2)
def test_russian_stage2_rows(row, dice, later, first):
    assert score_row(row, dice) == later
    assert score_row(row, dice, rules="russian", first_roll=True) == first
    assert satisfies(row, dice) == (later > 0)


@pytest.mark.parametrize("dice", [[1, 2, 3, 4, 6], [6, 5, 4, 3, 2], [2, 2, 4, 6, 6]])
def test_dice_order_does_not_matter(dice):
    for row, perm in itertools.product(RUSSIAN_ROWS, itertools.permutations(dice)):
        assert score_row(row, perm, first_roll=True) == score_row(
            row, sorted(dice), first_roll=True
        )


# -- classic -------------------------------------------------------------------------------

CLASSIC = [
    ("ones", [1, 1, 2, 3, 6], 2),
    ("threes", [3, 3, 3, 3, 4], 12),
    ("sixes", [1, 2, 3, 4, 5], 0),
    ("sixes", [6, 6, 6, 6, 6], 30),
    ("three_of_a_kind", [2, 2, 2, 3, 5], 14),
    ("three_of_a_kind", [4, 4, 4, 4, 4], 20),
    ("three_of_a_kind", [2, 2, 3, 3, 5], 0),
    ("four_of_a_kind", [3, 3, 3, 3, 4], 16),
    ("four_of_a_kind", [3, 3, 3, 4, 4], 0),
    ("full_house", [1, 1, 3, 3, 3], 25),
    ("full_house", [5, 5, 5, 5, 5], 0),  # only as a joker
    ("full_house", [5, 5, 5, 5, 1], 0),
    ("small_straight", [1, 2, 3, 4, 6], 30),
    ("small_straight", [1, 2, 3, 4, 5], 30),
    ("small_straight", [3, 4, 5, 6, 6], 30),
    ("small_straight", [1, 2, 3, 5, 6], 0),
    ("large_straight", [2, 3, 4, 5, 6], 40),
    ("large_straight", [1, 2, 3, 4, 6], 0),
    ("yahtzee", [6, 6, 6, 6, 6], 50),
    ("yahtzee", [6, 6, 6, 6, 5], 0),
    ("chance", [1, 2, 4, 5, 6], 18),
]


@pytest.mark.parametrize(("row", "dice", "points"), CLASSIC)
@pytest.mark.parametrize("first_roll", [False, True])
def test_classic_rows(row, dice, points, first_roll):
    assert score_row(row, dice, rules="classic", first_roll=first_roll) == points


@pytest.mark.parametrize(
    ("row", "points"),
    [("full_house", 25), ("small_straight", 30), ("large_straight", 40), ("chance", 10)],
)
def test_classic_joker_values(row, points):
    assert score_row(row, [2] * 5, rules="classic", joker_active=True) == points


def test_joker_keyword_needs_a_yahtzee_and_classic():
    with pytest.raises(ValueError, match="five of a kind"):
        score_row("full_house", [2, 2, 2, 3, 3], rules="classic", joker_active=True)
    with pytest.raises(ValueError, match="classic"):
        score_row("full_house", [2] * 5, joker_active=True)


# -- exact counts over all 7776 ordered rolls (published figures) ------------------------

ALL_ROLLS = list(itertools.product(range(1, 7), repeat=5))


@pytest.mark.parametrize(
    ("rules", "row", "count"),
    [
        ("classic", "three_of_a_kind", 1656),  # 1200 + 300 full houses + 150 + 6
        ("classic", "four_of_a_kind", 156),
        ("classic", "full_house", 300),
        ("classic", "small_straight", 1200),
        ("classic", "large_straight", 240),
        ("classic", "yahtzee", 6),
        ("russian", "pair", 7776 - 720),  # all but five different faces
        ("russian", "two_pairs", 1800 + 300),
        ("russian", "set", 1656),
        ("russian", "even", 3**5),
        ("russian", "odd", 3**5),
        ("russian", "poker", 6),
        ("russian", "chance", 7776),
    ],
)
def test_satisfied_counts(rules, row, count):
    assert sum(satisfies(row, d, rules) for d in ALL_ROLLS) == count


# -- the card ------------------------------------------------------------------------------


def fill_all(card: Scorecard, plan) -> tuple[Scorecard, list[int]]:
    gains = []
    for row, dice, *first in plan:
        card, g = card.fill(row, dice, first_roll=bool(first and first[0]))
        gains.append(g)
    return card, gains


# three of each face (0 each, sum 0) except the one varied
def stage1_plan(ones_dice):
    return [
        ("ones", ones_dice),
        ("twos", [2, 2, 2, 1, 1]),
        ("threes", [3, 3, 3, 1, 1]),
        ("fours", [4, 4, 4, 1, 1]),
        ("fives", [5, 5, 5, 1, 1]),
        ("sixes", [6, 6, 6, 1, 1]),
    ]


@pytest.mark.parametrize(
    ("ones_dice", "last_gain", "bonus"),
    [([1, 1, 1, 2, 3], 50, 50), ([1, 1, 2, 3, 4], 0, 0), ([1, 1, 1, 1, 2], 50, 50)],
)
def test_stage1_bonus_at_sum_zero(ones_dice, last_gain, bonus):
    card, gains = fill_all(Scorecard.new(), stage1_plan(ones_dice))
    assert gains[-1] == last_gain  # paid when the sixth stage-1 row is filled, not earlier
    assert card.bonus == bonus
    assert card.stage == 2
    assert card.total == card.upper_sum + bonus


def test_stage1_sum_can_recover():
    plan = [
        ("sixes", [1, 2, 3, 4, 5]),  # -18
        ("fives", [5, 5, 5, 5, 5]),  # +10
        ("fours", [4, 4, 4, 4, 4]),  # +8
        ("threes", [3, 3, 3, 1, 1]),
        ("twos", [2, 2, 2, 1, 1]),
        ("ones", [1, 1, 1, 2, 2]),
    ]
    card, gains = fill_all(Scorecard.new(), plan)
    assert gains == [-18, 10, 8, 0, 0, 50]
    assert card.total == 50


def test_stage1_before_stage2():
    card = Scorecard.new()
    assert card.legal_rows([6, 6, 6, 6, 6]) == UPPER_ROWS
    with pytest.raises(ValueError, match="legal rows are"):
        card.fill("poker", [6, 6, 6, 6, 6], first_roll=True)
    # a stage-1 row may be filled with any dice, for a negative score
    card, g = card.fill("sixes", [1, 1, 1, 1, 1])
    assert g == -18
    assert card.legal_rows([6, 6, 6, 6, 6]) == UPPER_ROWS[:5]


def stage2_card(scratch="only_if_nothing", filled=()):
    card, _ = fill_all(Scorecard.new(scratch=scratch), stage1_plan([1, 1, 1, 2, 3]))
    for row in filled:
        card = Scorecard(
            card.rules,
            tuple(0 if r == row else s for r, s in zip(card.rows, card.scores, strict=True)),
            card.bonus,
        )
    return card


@pytest.mark.parametrize(
    ("dice", "filled", "legal"),
    [
        ([1, 2, 3, 5, 6], (), ("chance",)),
        ([1, 2, 3, 5, 6], ("chance",), RUSSIAN_ROWS[6:16]),  # nothing satisfied: a dash anywhere
        ([2, 2, 4, 4, 6], (), ("pair", "two_pairs", "even", "chance")),
        ([6, 6, 6, 6, 6], (), ("pair", "set", "even", "four", "poker", "chance")),
        ([3, 3, 3, 6, 6], ("pair",), ("two_pairs", "set", "full_house", "chance")),
        ([1, 2, 3, 4, 5], ("chance", "small_straight"), ("large_straight",)),
    ],
)
def test_scratch_only_if_nothing(dice, filled, legal):
    card = stage2_card(filled=filled)
    assert card.legal_rows(dice) == legal
    illegal = [r for r in card.open_rows if r not in legal]
    for row in illegal:
        with pytest.raises(ValueError):
            card.fill(row, dice)


def test_dash_scores_zero_even_on_first_roll():
    card = stage2_card(filled=("chance",))
    new, gain = card.fill("poker", [1, 2, 3, 5, 6], first_roll=True)
    assert gain == 0
    assert new.score_of("poker") == 0


def test_scratch_any():
    card = stage2_card(scratch="any")
    assert card.legal_rows([1, 2, 3, 5, 6]) == RUSSIAN_ROWS[6:]
    new, gain = card.fill("poker", [2, 2, 4, 4, 6])
    assert gain == 0
    new, gain = new.fill("two_pairs", [2, 2, 4, 4, 6], first_roll=True)
    assert gain == 24


def test_russian_whole_game_total():
    card, gains = fill_all(Scorecard.new(), stage1_plan([1, 1, 1, 1, 3]))
    plan = [
        ("pair", [6, 6, 1, 2, 3]),
        ("two_pairs", [3, 3, 6, 6, 1], True),
        ("set", [5, 5, 5, 1, 2]),
        ("small_straight", [3, 4, 5, 6, 6]),
        ("large_straight", [2, 3, 4, 5, 6], True),
        ("even", [2, 2, 4, 4, 6]),
        ("odd", [1, 3, 3, 5, 5]),
        ("full_house", [1, 1, 3, 3, 3]),
        ("four", [4, 4, 4, 4, 2]),
        ("poker", [5, 5, 5, 5, 5], True),
        ("chance", [1, 2, 4, 5, 6], True),
    ]
    card, more = fill_all(card, plan)
    assert gains == [1, 0, 0, 0, 0, 50]
    assert more == [12, 36, 15, 18, 40, 18, 17, 11, 16, 100, 18]
    assert card.is_complete and card.turns_left == 0
    assert card.total == sum(gains) + sum(more) == 1 + 50 + 301
    assert card.legal_rows([1, 1, 1, 1, 1]) == ()
    with pytest.raises(ValueError, match="complete"):
        card.fill("chance", [1, 1, 1, 1, 1])


# -- classic card: upper bonus, Yahtzee bonus, joker -------------------------------------


def classic_card(scores: dict[str, int], **options) -> Scorecard:
    rules = make_rules("classic", **options)
    return Scorecard(rules, tuple(scores.get(r) for r in CLASSIC_ROWS))


@pytest.mark.parametrize(
    ("before", "dice", "gain", "bonus"),
    [
        (45, [6, 6, 6, 1, 2], 18 + 35, 35),  # exactly 63
        (44, [6, 6, 6, 1, 2], 18, 0),  # 62
        (70, [6, 6, 6, 1, 2], 18, 0),  # already earned earlier
    ],
)
def test_upper_bonus_threshold(before, dice, gain, bonus):
    card = classic_card({"ones": before - 0})  # the upper sum is what counts, not the row
    new, g = card.fill("sixes", dice)
    assert g == gain
    assert new.bonus == bonus
    assert new.upper_sum == before + 18


@pytest.mark.parametrize(
    ("yahtzee_row", "option", "dice", "row", "gain"),
    [
        (50, True, [3] * 5, "threes", 15 + 100),
        (50, False, [3] * 5, "threes", 15),
        (0, True, [3] * 5, "threes", 15),  # no bonus after a scratched Yahtzee
        (50, True, [3, 3, 3, 3, 4], "threes", 12),
        (None, True, [3] * 5, "yahtzee", 50),
    ],
)
def test_yahtzee_bonus(yahtzee_row, option, dice, row, gain):
    card = classic_card({"yahtzee": yahtzee_row}, yahtzee_bonus=option)
    new, g = card.fill(row, dice)
    assert g == gain
    assert new.total == card.total + gain


@pytest.mark.parametrize("joker", ["forced", "free", "none"])
def test_bonus_paid_under_every_joker_option(joker):
    card = classic_card({"yahtzee": 50, "fours": 8}, joker=joker)
    new, g = card.fill("chance", [4] * 5)
    assert g == 20 + 100
    assert new.yahtzee_bonus == 100


LOWER = CLASSIC_ROWS[6:]

JOKER_CASES = [
    # (joker, filled rows, dice, legal rows, {row: score})
    # forced: its upper row while open
    ("forced", {"yahtzee": 50}, [4] * 5, ("fours",), {"fours": 20}),
    ("forced", {"yahtzee": 0}, [4] * 5, ("fours",), {"fours": 20}),
    # forced: upper row filled -> any open lower row, full values
    (
        "forced",
        {"yahtzee": 50, "fours": 12},
        [4] * 5,
        tuple(r for r in LOWER if r != "yahtzee"),
        {"full_house": 25, "small_straight": 30, "large_straight": 40, "three_of_a_kind": 20},
    ),
    # forced: no lower row open -> any open upper row, for 0
    (
        "forced",
        {r: 0 for r in (*LOWER, "fours")},
        [4] * 5,
        ("ones", "twos", "threes", "fives", "sixes"),
        {"ones": 0, "sixes": 0},
    ),
    # the first Yahtzee is no joker: any row, plain values
    ("forced", {}, [4] * 5, CLASSIC_ROWS, {"full_house": 0, "yahtzee": 50}),
    # free: any open row; full value only when the upper row is filled
    ("free", {"yahtzee": 0}, [4] * 5, tuple(r for r in CLASSIC_ROWS if r != "yahtzee"), {}),
    (
        "free",
        {"yahtzee": 50},
        [4] * 5,
        tuple(r for r in CLASSIC_ROWS if r != "yahtzee"),
        {"full_house": 0, "small_straight": 0, "large_straight": 0, "fours": 20, "chance": 20},
    ),
    (
        "free",
        {"yahtzee": 0, "fours": 4},
        [4] * 5,
        tuple(r for r in CLASSIC_ROWS if r not in ("yahtzee", "fours")),
        {"full_house": 25, "small_straight": 30, "large_straight": 40, "ones": 0},
    ),
    # none: any open row, never a full house or straight
    (
        "none",
        {"yahtzee": 50, "fours": 4},
        [4] * 5,
        tuple(r for r in CLASSIC_ROWS if r not in ("yahtzee", "fours")),
        {"full_house": 0, "small_straight": 0, "large_straight": 0},
    ),
]


@pytest.mark.parametrize(("joker", "filled", "dice", "legal", "scores"), JOKER_CASES)
def test_joker(joker, filled, dice, legal, scores):
    card = classic_card(filled, joker=joker)
    assert card.legal_rows(dice) == legal
    assert legal_rows(card.open_rows, dice, "classic", joker=joker) == legal
    for row, points in scores.items():
        assert card.row_score(row, dice) == points
        bonus = 100 if card.yahtzee_scored else 0
        assert card.points(row, dice) == points + bonus
    for row in set(card.open_rows) - set(legal):
        with pytest.raises(ValueError, match="legal rows"):
            card.fill(row, dice)


def test_joker_active_function():
    assert joker_active([2] * 5, ["ones"], "classic")
    assert not joker_active([2] * 5, ["ones", "twos"], "classic")
    assert not joker_active([2] * 5, ["yahtzee"], "classic")
    assert not joker_active([2] * 5, ["ones"], make_rules("classic", joker="none"))
    assert not joker_active([2, 2, 2, 2, 3], ["ones"], "classic")
    assert is_yahtzee([5] * 5) and not is_yahtzee([5, 5, 5, 5, 4])


def test_classic_any_row_scratch():
    card = Scorecard.new("classic")
    assert card.legal_rows([1, 2, 3, 5, 6]) == CLASSIC_ROWS
    new, g = card.fill("yahtzee", [1, 2, 3, 5, 6], first_roll=True)
    assert g == 0 and new.score_of("yahtzee") == 0 and not new.yahtzee_scored


def test_fill_is_pure():
    card = Scorecard.new("classic")
    new, _ = card.fill("chance", [6, 6, 6, 6, 6])
    assert card.open_rows == CLASSIC_ROWS
    assert new.open_rows == CLASSIC_ROWS[:-1]
    assert new.open_mask == (1 << 12) - 1


# -- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rules": "german"}, ValueError, "rules must be"),
        ({"scratch": "never"}, ValueError, "scratch must be"),
        ({"rules": "classic", "joker": "sometimes"}, ValueError, "joker must be"),
        ({"rules": "classic", "yahtzee_bonus": 1}, ValueError, "yahtzee_bonus must be"),
        ({"rules": "russian", "joker": "free"}, ValueError, "classic"),
        ({"rules": "classic", "scratch": "any"}, ValueError, "russian"),
        ({"jokers": "free"}, TypeError, "unknown scorecard option"),
    ],
)
def test_option_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_rules(**kwargs)
    with pytest.raises(error, match=match):
        score_row("chance", [1, 2, 3, 4, 5], **kwargs)
    with pytest.raises(error, match=match):
        Scorecard.new(**kwargs)


@pytest.mark.parametrize(
    ("row", "dice", "rules", "match"),
    [
        ("yahtzee", [1, 2, 3, 4, 5], "russian", "unknown row"),
        ("poker", [1, 2, 3, 4, 5], "classic", "unknown row"),
        ("chance", [0, 2, 3, 4, 5], "russian", "faces must be 1..6"),
        ("chance", [1, 2, 3, 4], "classic", "expected 5 dice"),
        ("chance", [1, 2, 3, 4, 5, 6], "russian", "expected 5 dice"),
    ],
)
def test_bad_rows_and_dice(row, dice, rules, match):
    with pytest.raises(ValueError, match=match):
        score_row(row, dice, rules=rules)


def test_rules_dataclass_defaults():
    assert make_rules() == ScorecardRules()
    assert make_rules("classic").options == {"yahtzee_bonus": True, "joker": "forced"}
    assert make_rules().options == {"scratch": "only_if_nothing"}
    assert len(RUSSIAN_ROWS) == 17 and len(CLASSIC_ROWS) == 13
