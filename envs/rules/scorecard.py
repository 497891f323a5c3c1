"""Scorecard dice games: "Покер на костях" and classic Yahtzee (docs/rules.md sections 4, 5).

Pure Python + numpy. The only randomness is the dice of :class:`ScorecardGame`, rolled
from the numpy Generator it is given. Dice are any five faces 1..6 in any order; every
function sorts them itself.

API summary (what the env, the heuristic and the exact solver build on)
-----------------------------------------------------------------------
Rows and rule sets::

    RUSSIAN_ROWS   17 names: ones..sixes pair two_pairs set small_straight large_straight
                   even odd full_house four poker chance
    CLASSIC_ROWS   13 names: ones..sixes three_of_a_kind four_of_a_kind full_house
                   small_straight large_straight yahtzee chance
    UPPER_ROWS     ones..sixes (stage 1 of the russian card, the upper section of the classic one)
    rows_of(rules) the row tuple of a rule set

    ScorecardRules(rules="russian", scratch="only_if_nothing", yahtzee_bonus=True, joker="forced")
    make_rules(rules="russian", **options) -> ScorecardRules
        options: russian ``scratch`` ("only_if_nothing" | "any"); classic ``yahtzee_bonus``
        (bool) and ``joker`` ("forced" | "free" | "none"). An unknown name is a TypeError; a
        bad value, or an option of the other rule set, is a ValueError. Every function below
        that takes ``rules`` accepts a rule-set name plus ``**options`` or a ScorecardRules.

One row, no card context::

    score_row(row, dice, rules="russian", first_roll=False, joker_active=False, **options) -> int
        russian: stage-1 rows (count-3)*face; stage-2 rows the sum of the dice that form the
        row (0 if the dice do not satisfy it), doubled when ``first_roll`` (never Chance);
        Poker adds +50 after the doubling. classic: the plain printed score; ``first_roll``
        has no effect; ``joker_active=True`` (a Yahtzee used as a joker at full value) makes
        Full house / Small / Large straight score 25 / 30 / 40 for five of a kind.
    satisfies(row, dice, rules="russian") -> bool
        whether the dice form the row's combination (plain, no joker). For stage-1/upper rows:
        russian = at least three of the face (the stage-1 goal, "выполнена"); classic = at least
        one. Legality in russian stage 1 does not use it: any open stage-1 row may be filled.
    is_yahtzee(dice) -> bool

A whole card (immutable; every step returns a new one)::

    card = Scorecard.new(rules="russian", **options)
    card.rows, card.scores (per row: None = open, else the points written, doubling and
        Poker's +50 included), card.bonus (stage-1 +50 or classic upper +35 once earned),
        card.yahtzee_bonus (classic: 100 per extra Yahtzee so far)
    card.open_rows, card.open_mask (bit k = row k open), card.stage (russian 1 | 2, classic 0),
    card.upper_sum, card.total, card.is_complete, card.yahtzee_scored (classic: the Yahtzee row
        holds 50), card.turns_left
    card.legal_rows(dice) -> tuple[str, ...]   rows the rules allow now (stage, open rows,
        scratch rule, forced joker); the same after any roll (doubling only changes points)
    card.row_score(row, dice, first_roll=False) -> int   what the row would hold (joker
        values included)
    card.points(row, dice, first_roll=False) -> int      the whole gain of that fill: row
        score + the bonus it completes (stage-1 +50 at sum >= 0 when the sixth stage-1 row
        is filled; classic +35 when the upper sum reaches 63) + the Yahtzee bonus
    card.fill(row, dice, first_roll=False) -> (Scorecard, points)
        ValueError naming the legal rows if the row is not legal now; the card is immutable.
    card.fill_options(dice, first_roll=False) -> dict[str, int]   every legal row -> the
        whole gain of filling it (as card.points), in one fast pass

One player's whole game (what the envs wrap; actions as in the envs)::

    game = ScorecardGame(rng, rules="russian", **options)   rolls the first five dice
    game.dice (sorted tuple), game.rolls_used (1..3), game.card, game.done, game.first_roll
    game.legal_rows(), game.fill_options(), game.legal_actions(), game.action_mask()
    game.step(action) -> points     action < 32: re-roll the dice whose bits are set (bit i
        = the i-th smallest die; legal while rolls_used < 3; 0 never); 32 + k: fill row k
    total_bounds(rules, **options) -> (lo, hi)  bounds of a finished card's total

Module-level forms of the card rules (for solvers that keep their own state)::

    legal_rows(open_rows, dice, rules="russian", **options) -> tuple[str, ...]
    joker_active(dice, open_rows, rules) -> bool   a Yahtzee with the Yahtzee row filled and
        its upper row filled (joker != "none"): full house and straights score full value

The same rules on one card as bit sets (bit k = row k; what a game's step reads)::

    step_tables(rules)   per dice index: the satisfied rows as a bit set, the best upper score
    legal_bits_one(rules, step_tables, open_bits, dice_idx) -> int   legal_rows_one as bits
    plain_gains_one(rules, step_tables, open_bits, upper_sum, dice_idx) -> bool   the gains
        are the rows' plain scores (no bonus, no joker score); False: ask fill_gains_one
    mask_of_bits(n_rows, can_reroll, legal) -> np.ndarray   the action mask, by table
        (mask_bytes: the same as bytes, what the env writes into its buffer)
    game.bits_view() -> (dice index, legal rows as bits, plain)

Decisions (docs/rules.md sections 4 and 5): doubling never applies to stage-1 rows or to
dashes (a dash is 0); the classic upper bonus is paid on the fill that reaches 63, the
russian +50 on the fill that completes stage 1; a Yahtzee bonus is paid whatever row the
extra Yahtzee goes in, under every joker option; the joker applies whether the Yahtzee row
holds 50 or 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from itertools import compress

import numpy as np

from envs.rules.dice import _ordered_rolls, below_drawer, check_dice, multisets

N_DICE = 5
UPPER_ROWS = ("ones", "twos", "threes", "fours", "fives", "sixes")
RUSSIAN_ROWS = (
    *UPPER_ROWS,
    "pair",
    "two_pairs",
    "set",
    "small_straight",
    "large_straight",
    "even",
    "odd",
    "full_house",
    "four",
    "poker",
    "chance",
)
CLASSIC_ROWS = (
    *UPPER_ROWS,
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
RULE_SETS = ("russian", "classic")
SCRATCH_OPTIONS = ("only_if_nothing", "any")
JOKER_OPTIONS = ("forced", "free", "none")
OPTION_NAMES = ("scratch", "yahtzee_bonus", "joker")
_RUSSIAN_ONLY = ("scratch",)
_CLASSIC_ONLY = ("yahtzee_bonus", "joker")

STAGE1_BONUS = 50  # russian: stage-1 sum >= 0
STAGE1_BONUS_AT = 0
UPPER_BONUS = 35  # classic: upper sum >= 63
UPPER_BONUS_AT = 63
POKER_BONUS = 50
YAHTZEE_BONUS = 100
JOKER_VALUES = {"full_house": 25, "small_straight": 30, "large_straight": 40}

_ROWS = {"russian": RUSSIAN_ROWS, "classic": CLASSIC_ROWS}
_INDEX = {
    "russian": {r: i for i, r in enumerate(RUSSIAN_ROWS)},
    "classic": {r: i for i, r in enumerate(CLASSIC_ROWS)},
}
_YAHTZEE_ROW = CLASSIC_ROWS.index("yahtzee")
ROW_INDEX = _INDEX  # rules name -> row name -> position on the card


@dataclass(frozen=True)
class ScorecardRules:
    """A rule set and its options; the defaults are those of docs/rules.md."""

    rules: str = "russian"
    scratch: str = "only_if_nothing"
    yahtzee_bonus: bool = True
    joker: str = "forced"

    def __post_init__(self) -> None:
        if self.rules not in RULE_SETS:
            raise ValueError(f"rules must be one of {RULE_SETS}, got {self.rules!r}")
        if self.scratch not in SCRATCH_OPTIONS:
            raise ValueError(f"scratch must be one of {SCRATCH_OPTIONS}, got {self.scratch!r}")
        if not isinstance(self.yahtzee_bonus, bool):
            raise ValueError(f"yahtzee_bonus must be True or False, got {self.yahtzee_bonus!r}")
        if self.joker not in JOKER_OPTIONS:
            raise ValueError(f"joker must be one of {JOKER_OPTIONS}, got {self.joker!r}")

    @property
    def rows(self) -> tuple[str, ...]:
        return _ROWS[self.rules]

    @property
    def options(self) -> dict:
        """The options that apply to this rule set (keyword arguments of :func:`make_rules`)."""
        names = _RUSSIAN_ONLY if self.rules == "russian" else _CLASSIC_ONLY
        return {k: getattr(self, k) for k in names}


_DEFAULT_RULES = {name: ScorecardRules(rules=name) for name in RULE_SETS}


def rows_of(rules: str | ScorecardRules) -> tuple[str, ...]:
    """The row names of a rule set, in card order."""
    name = rules.rules if isinstance(rules, ScorecardRules) else rules
    if name == "russian":
        return RUSSIAN_ROWS
    if name == "classic":
        return CLASSIC_ROWS
    raise ValueError(f"rules must be one of {RULE_SETS}, got {name!r}")


def make_rules(rules: str | ScorecardRules = "russian", **options) -> ScorecardRules:
    """Validate ``rules`` and its options into a :class:`ScorecardRules`.

    A ScorecardRules passes through (``options`` then must be empty).
    """
    if isinstance(rules, ScorecardRules):
        if options:
            raise TypeError(f"options {sorted(options)} given together with a ScorecardRules")
        return rules
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown scorecard option(s) {unknown}; options are {OPTION_NAMES}")
    if rules not in RULE_SETS:
        raise ValueError(f"rules must be one of {RULE_SETS}, got {rules!r}")
    foreign = _CLASSIC_ONLY if rules == "russian" else _RUSSIAN_ONLY
    wrong = sorted(set(options) & set(foreign))
    if wrong:
        other = "classic" if rules == "russian" else "russian"
        raise ValueError(f"option(s) {wrong} apply to rules={other!r} only, not rules={rules!r}")
    if not options:
        return _DEFAULT_RULES[rules]
    return ScorecardRules(rules=rules, **options)


def _row_index(rules: ScorecardRules, row: str) -> int:
    try:
        return _INDEX[rules.rules][row]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown row {row!r} for rules={rules.rules!r}; rows are {rules.rows}"
        ) from None


# -- plain row values per sorted dice (252 multisets, so cached) ----------------


def _key(dice: Iterable[int]) -> tuple[int, ...]:
    """Validated, sorted dice (cached: there are only 7776 ordered rolls)."""
    return _sorted_dice(tuple(dice))


@cache
def _sorted_dice(dice: tuple) -> tuple[int, ...]:
    return tuple(sorted(check_dice(dice, N_DICE)))


def _counts(dice: tuple[int, ...]) -> list[int]:
    c = [0] * 7  # index = face
    for d in dice:
        c[d] += 1
    return c


def _runs(counts: list[int], length: int) -> list[int]:
    """Lowest faces of every run of ``length`` consecutive faces among the dice."""
    return [lo for lo in range(1, 8 - length) if all(counts[lo + k] for k in range(length))]


@cache
def _russian_table(dice: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """(base value, satisfied) per russian row: undoubled, Poker without its +50."""
    check_dice(dice, N_DICE)
    c = _counts(dice)
    total = sum(dice)
    pairs = [f for f in range(1, 7) if c[f] >= 2]
    sets = [f for f in range(1, 7) if c[f] >= 3]
    fours = [f for f in range(1, 7) if c[f] >= 4]
    small = _runs(c, 4)
    large = _runs(c, 5)
    full = sorted(x for x in c if x) == [2, 3]
    values: list[int] = [(c[f] - 3) * f for f in range(1, 7)]
    sat: list[bool] = [c[f] >= 3 for f in range(1, 7)]
    rows = [
        (bool(pairs), 2 * max(pairs, default=0)),
        # two faces with two dice each; the best are the two highest such faces
        (len(pairs) >= 2, 2 * sum(sorted(pairs)[-2:])),
        (bool(sets), 3 * max(sets, default=0)),
        (bool(small), sum(range(max(small, default=0), max(small, default=0) + 4))),
        (bool(large), sum(range(max(large, default=0), max(large, default=0) + 5))),
        (all(d % 2 == 0 for d in dice), total),
        (all(d % 2 == 1 for d in dice), total),
        (full, total),
        (bool(fours), 4 * max(fours, default=0)),
        (c[dice[0]] == 5, 5 * dice[0]),
        (True, total),
    ]
    for ok, v in rows:
        sat.append(ok)
        values.append(v if ok else 0)
    return tuple(values), tuple(sat)


@cache
def _classic_table(dice: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """(plain value, satisfied) per classic row, no joker."""
    check_dice(dice, N_DICE)
    c = _counts(dice)
    total = sum(dice)
    top = max(c)
    values: list[int] = [c[f] * f for f in range(1, 7)]
    sat: list[bool] = [c[f] >= 1 for f in range(1, 7)]
    rows = [
        (top >= 3, total),
        (top >= 4, total),
        (sorted(x for x in c if x) == [2, 3], 25),
        (bool(_runs(c, 4)), 30),
        (bool(_runs(c, 5)), 40),
        (top == 5, 50),
        (True, total),
    ]
    for ok, v in rows:
        sat.append(ok)
        values.append(v if ok else 0)
    return tuple(values), tuple(sat)


def _table(rules: ScorecardRules, dice: Iterable[int]):
    key = _key(dice)
    return _russian_table(key) if rules.rules == "russian" else _classic_table(key)


def is_yahtzee(dice: Iterable[int]) -> bool:
    """Five of a kind."""
    d = _key(dice)
    return len(set(d)) == 1


def satisfies(row: str, dice: Iterable[int], rules: str | ScorecardRules = "russian") -> bool:
    """Whether ``dice`` form ``row``'s combination (plain rules, no joker).

    Upper rows: russian = three or more of the face; classic = at least one of it.
    """
    r = make_rules(rules)
    return _table(r, dice)[1][_row_index(r, row)]


def score_row(
    row: str,
    dice: Iterable[int],
    rules: str | ScorecardRules = "russian",
    first_roll: bool = False,
    joker_active: bool = False,
    **options,
) -> int:
    """The score ``row`` gets for ``dice`` (module docstring: doubling, Poker +50, joker)."""
    r = make_rules(rules, **options)
    k = _row_index(r, row)
    values, sat = _table(r, dice)
    if r.rules == "russian":
        if joker_active:
            raise ValueError("joker_active applies to rules='classic' only")
        if k < 6 or not sat[k]:
            return values[k]
        v = values[k] * (2 if first_roll and row != "chance" else 1)
        return v + (POKER_BONUS if row == "poker" else 0)
    if joker_active and row in JOKER_VALUES:
        if not is_yahtzee(dice):
            raise ValueError(f"joker_active needs five of a kind, got {list(dice)}")
        return JOKER_VALUES[row]
    return values[k]


# -- the rules as arrays: compiled tables and bookkeeping on numbers or numpy arrays ----
#
# These are the card rules written once for every consumer: the scalar Scorecard below,
# the batched engine (envs.batched.scorecard), the exact solver and the heuristic. State
# enters as arrays with any leading batch shape: ``open_`` (..., rows) bool, ``upper_sum``
# and ``yahtzee_scored`` (...), ``dice_index`` (...) into :data:`DICE` (the 252 sorted
# multisets of five dice, the solver's order).

DICE: tuple[tuple[int, ...], ...] = multisets(N_DICE)
_DICE_CODE = 6 ** np.arange(N_DICE)
_DICE_BY_CODE = np.zeros(6**N_DICE, dtype=np.int16)
for _i, _d in enumerate(DICE):
    _DICE_BY_CODE[(np.array(_d) - 1) @ _DICE_CODE] = _i
_DICE_INDEX = {d: i for i, d in enumerate(DICE)}


def dice_index(dice) -> np.ndarray | int:
    """Index in :data:`DICE` of sorted five dice: ``(..., 5)`` array -> ``(...)``."""
    return _DICE_BY_CODE[(np.asarray(dice) - 1) @ _DICE_CODE]


@dataclass(frozen=True, eq=False)
class ScoreTables:
    """Per sorted roll (252) and row: what :func:`score_row` says, compiled once per rule set.

    ``later`` / ``first``: the row's score after a later / the first roll (russian
    doubling and Poker's +50 included; identical for classic); ``joker``: classic score
    with the joker active (equal to ``later`` elsewhere); ``sat``: :func:`satisfies`;
    ``yahtzee``: five of a kind; ``face``: the face - 1 of a roll's lowest die.
    """

    rules: ScorecardRules
    later: np.ndarray
    first: np.ndarray
    joker: np.ndarray
    sat: np.ndarray
    yahtzee: np.ndarray
    face: np.ndarray


@cache
def score_tables(rules: ScorecardRules) -> ScoreTables:
    """The :class:`ScoreTables` of a rule set (asks :func:`score_row` for every entry)."""
    classic = rules.rules == "classic"
    yahtzee = np.array([d[0] == d[4] for d in DICE])

    def table(**kw) -> np.ndarray:  # int16: the batched engine streams these per game
        rows = [[score_row(r, d, rules, **kw) for r in rules.rows] for d in DICE]
        return np.array(rows, dtype=np.int16)

    later = table()
    joker = later.copy()
    if classic:
        for i in np.flatnonzero(yahtzee):
            joker[i] = [score_row(r, DICE[i], rules, joker_active=True) for r in rules.rows]
    arrays = {
        "later": later,
        "first": table(first_roll=True),
        "joker": joker,
        "sat": np.array([[satisfies(r, d, rules) for r in rules.rows] for d in DICE]),
        "yahtzee": yahtzee,
        "face": np.array([d[0] - 1 for d in DICE]),
    }
    for a in arrays.values():
        a.flags.writeable = False
    return ScoreTables(rules, **arrays)


def _upper(n_rows: int) -> np.ndarray:
    return np.arange(n_rows) < len(UPPER_ROWS)


def legal_row_mask(rules: ScorecardRules, open_, dice_idx) -> np.ndarray:
    """``(..., rows)`` bool: the rows that may be filled now (see :func:`legal_rows`)."""
    tab = score_tables(rules)
    open_ = np.asarray(open_, dtype=bool)
    upper = _upper(open_.shape[-1])
    if rules.rules == "russian":
        stage1 = open_ & upper
        legal = open_
        if rules.scratch == "only_if_nothing":
            good = open_ & tab.sat[dice_idx]
            legal = np.where(good.any(-1, keepdims=True), good, open_)
        return np.where(stage1.any(-1, keepdims=True), stage1, legal)
    if rules.joker != "forced":
        return open_
    face = tab.face[dice_idx]
    forced = tab.yahtzee[dice_idx] & ~open_[..., _YAHTZEE_ROW]
    own = np.arange(open_.shape[-1]) == np.asarray(face)[..., None]
    own_open = (open_ & own).any(-1, keepdims=True)
    lower = open_ & ~upper
    joker_rows = np.where(own_open, own, np.where(lower.any(-1, keepdims=True), lower, open_))
    return np.where(np.asarray(forced)[..., None], joker_rows, open_)


def joker_in_force(rules: ScorecardRules, open_, dice_idx):
    """classic: a Yahtzee with the Yahtzee row and its upper row filled (:func:`joker_active`)."""
    tab = score_tables(rules)
    open_ = np.asarray(open_, dtype=bool)
    if rules.rules != "classic" or rules.joker == "none":
        return np.zeros(open_.shape[:-1], dtype=bool)
    face = np.asarray(tab.face[dice_idx])
    own_open = np.take_along_axis(open_, face[..., None], axis=-1)[..., 0]
    return tab.yahtzee[dice_idx] & ~open_[..., _YAHTZEE_ROW] & ~own_open


def card_bonus(rules: ScorecardRules, upper_sum, score, is_upper, completes_upper):
    """The card bonus a fill earns: russian +50 when it completes stage 1 at a sum >= 0;
    classic +35 when it brings the upper sum from below 63 to 63 or more."""
    after = upper_sum + score
    if rules.rules == "russian":
        return STAGE1_BONUS * (is_upper & completes_upper & (after >= STAGE1_BONUS_AT))
    return UPPER_BONUS * (is_upper & (upper_sum < UPPER_BONUS_AT) & (after >= UPPER_BONUS_AT))


def yahtzee_bonus_earned(rules: ScorecardRules, yahtzee_scored, is_yahtzee):
    """classic: +100 for a Yahtzee while the Yahtzee row holds 50, whatever row it goes in."""
    if rules.rules != "classic" or not rules.yahtzee_bonus:
        return 0 * is_yahtzee
    return YAHTZEE_BONUS * (yahtzee_scored & is_yahtzee)


def fill_gains(rules: ScorecardRules, open_, upper_sum, yahtzee_scored, dice_idx, first_roll):
    """``(score, bonus, yahtzee_bonus)``, each ``(..., rows)``: what filling each row would
    write, the card bonus it would earn and the Yahtzee bonus, for every row (legal or
    not: combine with :func:`legal_row_mask`). ``first_roll`` may be an array (...)."""
    tab = score_tables(rules)
    open_ = np.asarray(open_, dtype=bool)
    if isinstance(first_roll, bool):  # the scalar card's case: no per-game choice
        score = (tab.first if first_roll else tab.later)[dice_idx]
    else:
        first = np.asarray(first_roll, dtype=bool)[..., None]
        score = np.where(first, tab.first[dice_idx], tab.later[dice_idx])
    if rules.rules == "classic":
        joker = np.asarray(joker_in_force(rules, open_, dice_idx))[..., None]
        score = np.where(joker, tab.joker[dice_idx], score)
    upper = _upper(open_.shape[-1])
    n_upper_open = (open_ & upper).sum(-1, keepdims=True)
    completes = (n_upper_open == 1) & open_
    bonus = card_bonus(rules, np.asarray(upper_sum)[..., None], score, upper, completes)
    ybonus = yahtzee_bonus_earned(
        rules, np.asarray(yahtzee_scored, dtype=bool), np.asarray(tab.yahtzee[dice_idx])
    )
    return score, bonus, np.broadcast_to(np.asarray(ybonus)[..., None], score.shape)


# -- the same rules on one card, as plain Python over the same tables --------------------
#
# A single game (the envs, the AEC envs) asks for one card's legal rows and gains at every
# step; numpy's per-call overhead on arrays of 17 values is most of that step. These read
# the very tables above (score_tables, as Python tuples) and follow legal_row_mask /
# fill_gains line by line; tests/rules/test_scorecard.py holds them equal on random cards.


@dataclass(frozen=True, eq=False)
class ScoreLists:
    """:class:`ScoreTables` as Python tuples (row values per dice index), for one game."""

    later: tuple[tuple[int, ...], ...]
    first: tuple[tuple[int, ...], ...]
    joker: tuple[tuple[int, ...], ...]
    sat: tuple[tuple[bool, ...], ...]
    yahtzee: tuple[bool, ...]
    face: tuple[int, ...]


@cache
def score_lists(rules: ScorecardRules) -> ScoreLists:
    """The :func:`score_tables` of a rule set as nested tuples (read, never recomputed)."""
    tab = score_tables(rules)

    def rows(a: np.ndarray) -> tuple:
        return tuple(tuple(r) for r in a.tolist())

    return ScoreLists(
        later=rows(tab.later),
        first=rows(tab.first),
        joker=rows(tab.joker),
        sat=rows(tab.sat),
        yahtzee=tuple(tab.yahtzee.tolist()),
        face=tuple(tab.face.tolist()),
    )


def legal_rows_one(rules: ScorecardRules, open_: tuple[bool, ...], dice_idx: int) -> list[bool]:
    """:func:`legal_row_mask` of one card (``open_`` per row) and one dice index, as a list."""
    return _legal_one(rules, score_lists(rules), open_, dice_idx)


def _legal_one(rules: ScorecardRules, tab: ScoreLists, open_, dice_idx: int) -> list[bool]:
    """:func:`legal_rows_one` given the rules' :func:`score_lists` (a game keeps them)."""
    if rules.rules == "russian":
        stage1 = [*open_[:6], *_FALSE[len(open_) - 6]]
        if True in stage1:
            return stage1
        if rules.scratch == "only_if_nothing":
            good = [o and s for o, s in zip(open_, tab.sat[dice_idx], strict=True)]
            if True in good:
                return good
        return list(open_)
    if rules.joker != "forced" or open_[_YAHTZEE_ROW] or not tab.yahtzee[dice_idx]:
        return list(open_)
    face = tab.face[dice_idx]
    if open_[face]:
        return [k == face for k in range(len(open_))]
    lower = [*_FALSE[6], *open_[6:]]
    return lower if True in lower else list(open_)


_FALSE = tuple((False,) * n for n in range(len(RUSSIAN_ROWS) + 1))
_ZERO = tuple((0,) * n for n in range(len(RUSSIAN_ROWS) + 1))


def fill_gains_one(
    rules: ScorecardRules,
    open_: tuple[bool, ...],
    upper_sum: int,
    yahtzee_scored: bool,
    dice_idx: int,
    first_roll: bool,
) -> tuple[list[int], list[int], list[int]]:
    """:func:`fill_gains` of one card and one dice index: (score, bonus, Yahtzee bonus) per
    row, as lists of ints."""
    return tuple(
        list(part)
        for part in _gains_one(
            rules, score_lists(rules), open_, upper_sum, yahtzee_scored, dice_idx, first_roll
        )
    )


def _gains_one(rules, tab: ScoreLists, open_, upper_sum, yahtzee_scored, dice_idx, first_roll):
    """:func:`fill_gains_one` given the rules' :func:`score_lists`, as tuples; a part that is
    0 in every row is the one shared ``_ZERO[n]`` (a game tests it by identity)."""
    score = (tab.first if first_roll else tab.later)[dice_idx]
    classic = rules.rules == "classic"
    yahtzee = tab.yahtzee[dice_idx]
    if (
        classic
        and yahtzee
        and rules.joker != "none"
        and not open_[_YAHTZEE_ROW]
        and not open_[tab.face[dice_idx]]
    ):
        score = tab.joker[dice_idx]
    n_upper = len(UPPER_ROWS)
    n = len(open_)
    bonus = _ZERO[n]
    if classic:  # +35 on whichever upper fill brings the sum from below 63 to 63 or more
        if upper_sum < UPPER_BONUS_AT:
            need = UPPER_BONUS_AT - upper_sum
            if max(score[:n_upper]) >= need:
                bonus = tuple(
                    [UPPER_BONUS if k < n_upper and score[k] >= need else 0 for k in range(n)]
                )
    elif sum(open_[:n_upper]) == 1:  # russian: +50 on the fill that completes stage 1
        k = open_.index(True)
        if upper_sum + score[k] >= STAGE1_BONUS_AT:
            bonus = tuple([STAGE1_BONUS if j == k else 0 for j in range(n)])
    earned = classic and yahtzee and yahtzee_scored and rules.yahtzee_bonus
    return score, bonus, (YAHTZEE_BONUS,) * n if earned else _ZERO[n]


# -- the same rules as bit sets over the rows: what one game's step reads ----------------
#
# A card's open rows as an int (bit k = row k open) and, per dice index, the satisfied
# rows as an int: the legal rows of legal_rows_one are then a few integer operations, and
# a state whose gains carry no bonus (most states) needs no per-row pass at all. Built
# from score_lists, so from the same compiled tables; tests/rules/test_scorecard_one.py
# holds them to legal_rows_one and fill_gains_one over every dice index.

_UPPER_BITS = (1 << len(UPPER_ROWS)) - 1


@dataclass(frozen=True, eq=False)
class StepTables:
    """Per dice index (:data:`DICE`): ``sat`` the rows the dice satisfy as a bit set,
    ``upper_best`` the best upper-row score (classic: what the +35 check asks),
    ``yahtzee`` and ``face`` as in :class:`ScoreLists`."""

    sat: tuple[int, ...]
    upper_best: tuple[int, ...]
    yahtzee: tuple[bool, ...]
    face: tuple[int, ...]


@cache
def step_tables(rules: ScorecardRules) -> StepTables:
    """The :class:`StepTables` of a rule set, read from its :func:`score_lists`."""
    tab = score_lists(rules)
    return StepTables(
        sat=tuple(sum(1 << k for k, ok in enumerate(row) if ok) for row in tab.sat),
        upper_best=tuple(max(row[: len(UPPER_ROWS)]) for row in tab.later),
        yahtzee=tab.yahtzee,
        face=tab.face,
    )


def legal_bits_one(rules: ScorecardRules, st: StepTables, open_bits: int, dice_idx: int) -> int:
    """:func:`legal_rows_one` as a bit set (bit k = row k legal), from the card's open rows
    as a bit set and the rules' :func:`step_tables`."""
    if rules.rules == "russian":
        stage1 = open_bits & _UPPER_BITS
        if stage1:
            return stage1
        if rules.scratch == "only_if_nothing":
            return open_bits & st.sat[dice_idx] or open_bits
        return open_bits
    if rules.joker != "forced" or open_bits >> _YAHTZEE_ROW & 1 or not st.yahtzee[dice_idx]:
        return open_bits
    face = st.face[dice_idx]
    if open_bits >> face & 1:
        return 1 << face
    return open_bits & ~_UPPER_BITS or open_bits


def plain_gains_one(
    rules: ScorecardRules, st: StepTables, open_bits: int, upper_sum: int, dice_idx: int
) -> bool:
    """True when :func:`fill_gains_one` of this state is the rows' plain scores
    (``score_lists``' ``first`` / ``later``) with no card bonus, no Yahtzee bonus and no
    joker score in any row. False may also be said of a state without them (the last
    open stage-1 row, a Yahtzee): its gains are then asked of :func:`fill_gains_one`."""
    if rules.rules == "russian":
        stage1 = open_bits & _UPPER_BITS
        return not stage1 or bool(stage1 & (stage1 - 1))  # not exactly one stage-1 row open
    if st.yahtzee[dice_idx]:
        return False
    return upper_sum >= UPPER_BONUS_AT or st.upper_best[dice_idx] < UPPER_BONUS_AT - upper_sum


# -- card-level rules -------------------------------------------------------------


def joker_active(
    dice: Iterable[int], open_rows: Iterable[str], rules: str | ScorecardRules = "classic"
) -> bool:
    """Classic: the dice are a Yahtzee, the Yahtzee row and the dice's upper row are filled.

    Then Full house / straights score 25 / 30 / 40 (under ``joker="forced"`` the upper row
    is always filled when a lower row is legal; under ``"free"`` this is the literature's
    condition; ``"none"`` never).
    """
    r = make_rules(rules)
    if r.rules != "classic" or r.joker == "none":
        return False
    d = _key(dice)
    open_set = set(open_rows)
    return len(set(d)) == 1 and "yahtzee" not in open_set and UPPER_ROWS[d[0] - 1] not in open_set


def legal_rows(
    open_rows: Iterable[str],
    dice: Iterable[int],
    rules: str | ScorecardRules = "russian",
    **options,
) -> tuple[str, ...]:
    """Rows that may be filled now with ``dice``, in card order.

    russian: while a stage-1 row is open, exactly the open stage-1 rows; then the open
    stage-2 rows, restricted to the satisfied ones under ``scratch="only_if_nothing"`` when
    any is satisfied. classic: every open row, except the forced joker (docs/rules.md section 5).
    """
    r = make_rules(rules, **options)
    open_set = set(open_rows)
    rows = r.rows
    bad = sorted(open_set - set(rows))
    if bad:
        raise ValueError(f"unknown row(s) {bad} for rules={r.rules!r}; rows are {rows}")
    return _legal(r, tuple(row for row in rows if row in open_set), _key(dice))


@lru_cache(maxsize=1 << 16)
def _legal(r: ScorecardRules, ordered: tuple[str, ...], d: tuple[int, ...]) -> tuple[str, ...]:
    """:func:`legal_rows` for validated input: open rows in card order, sorted dice."""
    open_ = tuple(row in ordered for row in r.rows)
    mask = legal_rows_one(r, open_, _DICE_INDEX[d])
    return tuple(row for row, ok in zip(r.rows, mask, strict=True) if ok)


@dataclass(frozen=True)
class Scorecard:
    """One player's card. Immutable: :meth:`fill` returns a new card and the points gained."""

    rules: ScorecardRules = field(default_factory=ScorecardRules)
    scores: tuple[int | None, ...] = ()
    bonus: int = 0
    yahtzee_bonus: int = 0

    def __post_init__(self) -> None:
        if not self.scores:
            object.__setattr__(self, "scores", (None,) * len(self.rules.rows))
        if len(self.scores) != len(self.rules.rows):
            raise ValueError(
                f"a {self.rules.rules} card has {len(self.rules.rows)} rows, "
                f"got {len(self.scores)} scores"
            )
        self._derive()

    def _derive(self) -> None:
        """The derived state, once: a card never changes, and envs ask for it every step
        (``_open`` and ``_open_rows`` on first use: a game's step reads ``_open_bits``)."""
        scores = self.scores
        upper = scores[:6]
        upper_sum = sum([x for x in upper if x is not None])
        lower_sum = sum([x for x in scores[6:] if x is not None])
        classic = self.rules.rules == "classic"
        self.__dict__.update(
            _stage=0 if classic else (1 if None in upper else 2),
            _upper_sum=upper_sum,
            _total=upper_sum + lower_sum + self.bonus + self.yahtzee_bonus,
            _yahtzee_scored=classic and scores[_YAHTZEE_ROW] == 50,
            _open_bits=sum([1 << k for k, x in enumerate(scores) if x is None]),
        )

    @cached_property
    def _open(self) -> tuple[bool, ...]:
        """Per row, open (what the per-row rule functions read)."""
        return tuple([x is None for x in self.scores])

    @cached_property
    def _open_rows(self) -> tuple[str, ...]:
        return tuple(compress(self.rules.rows, self._open))

    def _filled(self, k: int, score: int, bonus: int, ybonus: int) -> Scorecard:
        """This card with row ``k`` holding ``score`` and the bonuses added: what
        :meth:`fill` returns, built without the dataclass's checks (the game knows the
        fill is legal)."""
        # the derived state follows from this card's by one row (as _derive would read it)
        d = self.__dict__
        open_bits = d["_open_bits"] & ~(1 << k)
        scores = d["scores"]
        upper_sum = d["_upper_sum"]
        stage = d["_stage"]
        ys = d["_yahtzee_scored"]
        if k < 6:
            upper_sum += score
            if stage == 1 and not open_bits & _UPPER_BITS:
                stage = 2
        elif k == _YAHTZEE_ROW and score == 50 and stage == 0:  # stage 0: classic
            ys = True
        scores = list(scores)
        scores[k] = score
        new = object.__new__(Scorecard)
        new.__dict__.update(
            {
                "rules": d["rules"],
                "scores": tuple(scores),
                "bonus": d["bonus"] + bonus,
                "yahtzee_bonus": d["yahtzee_bonus"] + ybonus,
                "_stage": stage,
                "_upper_sum": upper_sum,
                "_total": d["_total"] + score + bonus + ybonus,
                "_yahtzee_scored": ys,
                "_open_bits": open_bits,
            }
        )
        return new

    @classmethod
    def new(cls, rules: str | ScorecardRules = "russian", **options) -> Scorecard:
        """An empty card."""
        return cls(make_rules(rules, **options))

    # -- state (derived once in __post_init__: a card never changes) ------------
    @property
    def rows(self) -> tuple[str, ...]:
        return self.rules.rows

    @property
    def open_rows(self) -> tuple[str, ...]:
        return self._open_rows

    @property
    def open_mask(self) -> int:
        """Bit k set when row k is open."""
        return self._open_bits

    @property
    def stage(self) -> int:
        """russian: 1 while a stage-1 row is open, then 2; classic: 0 (no stages)."""
        return self._stage

    @property
    def upper_sum(self) -> int:
        """Sum of the filled stage-1 / upper rows."""
        return self._upper_sum

    @property
    def total(self) -> int:
        return self._total

    @property
    def is_complete(self) -> bool:
        return not self._open_bits

    @property
    def turns_left(self) -> int:
        return len(self._open_rows)

    @property
    def yahtzee_scored(self) -> bool:
        """classic: the Yahtzee row holds 50 (so extra Yahtzees earn the bonus)."""
        return self._yahtzee_scored

    def score_of(self, row: str) -> int | None:
        """What ``row`` holds (None while open)."""
        return self.scores[_row_index(self.rules, row)]

    # -- rules ---------------------------------------------------------------
    def legal_rows(self, dice: Iterable[int]) -> tuple[str, ...]:
        if self.is_complete:
            return ()
        return _legal(self.rules, self.open_rows, _key(dice))

    def row_score(self, row: str, dice: Iterable[int], first_roll: bool = False) -> int:
        """What ``row`` would hold if filled now (joker values included; legality unchecked)."""
        joker = self.rules.rules == "classic" and joker_active(dice, self.open_rows, self.rules)
        return score_row(row, dice, self.rules, first_roll=first_roll, joker_active=joker)

    def _check(self, row: str, dice: Iterable[int]) -> tuple[int, ...]:
        d = _key(dice)
        _row_index(self.rules, row)
        legal = self.legal_rows(d)
        if row not in legal:
            why = " (the card is complete)" if self.is_complete else ""
            raise ValueError(
                f"row {row!r} may not be filled now with dice {sorted(d)}; "
                f"legal rows are {list(legal)}{why}"
            )
        return d

    def _gains(self, d: tuple[int, ...], first_roll: bool) -> tuple[list, list, list]:
        """:func:`fill_gains_one` of this card for sorted dice ``d``: (score, bonus, Yahtzee
        bonus) per row, as lists. A card never changes, so each is kept on the card."""
        memo = self.__dict__.setdefault("_gains_memo", {})
        key = (d, first_roll)
        if key not in memo:
            memo[key] = fill_gains_one(
                self.rules,
                self._open,
                self._upper_sum,
                self._yahtzee_scored,
                _DICE_INDEX[d],
                first_roll,
            )
        return memo[key]

    def _gain(self, row: str, dice: tuple[int, ...], first_roll: bool) -> tuple[int, int, int]:
        """(row score, card bonus earned, Yahtzee bonus earned) for a legal fill."""
        k = _INDEX[self.rules.rules][row]
        return tuple(part[k] for part in self._gains(dice, first_roll))

    def fill_options(self, dice: Iterable[int], first_roll: bool = False) -> dict[str, int]:
        """Every legal row now with the whole gain of filling it (as :meth:`points`)."""
        d = _key(dice)
        score, bonus, ybonus = self._gains(d, first_roll)
        index = _INDEX[self.rules.rules]
        return {
            row: score[k] + bonus[k] + ybonus[k]
            for row in self.legal_rows(d)
            for k in (index[row],)
        }

    def points(self, row: str, dice: Iterable[int], first_roll: bool = False) -> int:
        """Everything filling ``row`` now would add to the total (bonuses included)."""
        d = self._check(row, dice)
        return sum(self._gain(row, d, first_roll))

    def fill(
        self, row: str, dice: Iterable[int], first_roll: bool = False
    ) -> tuple[Scorecard, int]:
        """Fill ``row`` with ``dice``; returns (new card, points gained)."""
        return self._fill_unchecked(row, self._check(row, dice), first_roll)

    def _fill_unchecked(
        self, row: str, d: tuple[int, ...], first_roll: bool
    ) -> tuple[Scorecard, int]:
        """:meth:`fill` for a row known to be legal with sorted, valid dice ``d``."""
        score, bonus, ybonus = self._gain(row, d, first_roll)
        new = self._filled(_INDEX[self.rules.rules][row], score, bonus, ybonus)
        return new, score + bonus + ybonus


@cache
def total_bounds(rules: str | ScorecardRules = "russian", **options) -> tuple[int, int]:
    """A lower and an upper bound of a finished card's total (every row at its best).

    russian: no die of its face in every stage-1 row (-63) .. every row at its best with the
    first-roll doubling and both bonuses; classic: 0 .. every row at its best plus the upper
    bonus and twelve Yahtzee bonuses. Not every bound is reachable in one game.
    """
    r = make_rules(rules, **options)
    rolls = multisets(N_DICE)
    best = 0
    for row in r.rows:
        best += max(score_row(row, d, r, first_roll=True) for d in rolls)
    if r.rules == "russian":
        return -3 * sum(range(1, 7)), best + STAGE1_BONUS
    extra = UPPER_BONUS + (YAHTZEE_BONUS * (len(r.rows) - 1) if r.yahtzee_bonus else 0)
    return 0, best + extra


# -- one player's whole game ------------------------------------------------------

MAX_ROLLS = 3
N_REROLL_ACTIONS = 32  # actions 0..31: re-roll bit sets over the sorted dice


def dice_moves() -> tuple[np.ndarray, ...]:
    """The dice as an index in ``DICE`` and the moves between them as lookups (what both
    engines roll by): ``radix[f]`` is the count code of one die of face f (``sum radix[d]``
    over up to five dice is unique per multiset), ``by_code[code]`` the ``DICE`` index of
    five dice, ``kept[i, a]`` the code of the dice of ``DICE[i]`` that re-roll bit set
    ``a`` keeps, ``bits[a]`` the bits of a."""
    radix = np.zeros(7, dtype=np.int32)
    radix[1:] = (N_DICE + 1) ** np.arange(6)
    dice = np.array(DICE, dtype=np.int8)
    by_code = np.full((N_DICE + 1) ** 6, -1, dtype=np.int16)
    by_code[radix[dice].sum(axis=1)] = np.arange(len(DICE))
    bits = ((np.arange(N_REROLL_ACTIONS)[:, None] >> np.arange(N_DICE)) & 1).astype(np.int32)
    kept = (radix[dice][:, None, :] * (1 - bits)[None]).sum(axis=2).astype(np.int32)
    for a in (radix, dice, by_code, bits, kept):
        a.flags.writeable = False
    return radix, dice, by_code, bits, kept


# The same moves as Python sequences, for one game: a re-roll of bit set ``a`` from dice
# index ``i`` that rolls the ordered faces ``r`` (the roll's index among the 6**n ordered
# rolls of n dice, as :func:`roll` draws it) lands on ``_BY_CODE[_KEPT[i][a] +
# _ROLL_CODE[n][r]]``.
_RADIX_A, _, _BY_CODE_A, _BITS_A, _KEPT_A = dice_moves()
_RADIX = tuple(_RADIX_A.tolist())
_BY_CODE = tuple(_BY_CODE_A.tolist())
_KEPT = tuple(tuple(r) for r in _KEPT_A.tolist())
_N_ROLLED = tuple(_BITS_A.sum(axis=1).tolist())  # dice a re-roll bit set rolls
_ROLL_CODE = tuple(
    tuple([sum(_RADIX[f] for f in faces) for faces in _ordered_rolls(n)]) for n in range(6)
)
_ROLL_BOUND = tuple(6**n for n in range(6))
# per re-roll bit set ``a``: the draw's bound and the codes of the rolls it indexes
# (``_ROLL_BOUND`` / ``_ROLL_CODE`` of the dice ``a`` rolls, read in one lookup)
_REROLL_DRAW = tuple((_ROLL_BOUND[n], _ROLL_CODE[n]) for n in _N_ROLLED)
# a turn's first roll: the draw below 6**5 -> the sorted dice it lands on
_OPENING = tuple(DICE[_BY_CODE[code]] for code in _ROLL_CODE[N_DICE])
_OPENING_BOUND = _ROLL_BOUND[N_DICE]


# The action mask as bytes (one 0/1 byte per action) from the legal rows as a bit set:
# the re-roll part, then rows 0-8 and rows 9.. by table, so building a mask is three
# lookups, no pass over the rows.
_MASK_LO = 9
_REROLL_BYTES = (bytes(N_REROLL_ACTIONS), bytes([0] + [1] * (N_REROLL_ACTIONS - 1)))
_ROW_BYTES = {
    width: tuple(bytes([b >> k & 1 for k in range(width)]) for b in range(1 << width))
    for width in {_MASK_LO, len(CLASSIC_ROWS) - _MASK_LO, len(RUSSIAN_ROWS) - _MASK_LO}
}
_ROW_BYTES_LO = _ROW_BYTES[_MASK_LO]
_BOOL = np.dtype(bool)  # a dtype object: frombuffer skips converting np.bool_


def mask_bytes(n_rows: int, can_reroll: bool, legal: int) -> bytes:
    """The action mask as bytes, one 0/1 byte per action: re-rolls 1..31 when
    ``can_reroll``, row ``k`` where bit ``k`` of ``legal`` is set; ``n_rows`` is 13 or 17."""
    return (
        _REROLL_BYTES[can_reroll]
        + _ROW_BYTES_LO[legal & 0x1FF]
        + _ROW_BYTES[n_rows - _MASK_LO][legal >> _MASK_LO]
    )


def mask_of_bits(n_rows: int, can_reroll: bool, legal: int) -> np.ndarray:
    """:func:`mask_bytes` as a fresh bool array."""
    return np.frombuffer(bytearray(mask_bytes(n_rows, can_reroll, legal)), _BOOL)


@cache
def _empty_card(rules: ScorecardRules) -> Scorecard:
    """The empty card of a rule set, built once (a card never changes)."""
    return Scorecard(rules)


_LAST_TABLES: list = [None, None]  # the last rules object and its game tables


def _game_tables(rules: ScorecardRules) -> tuple[ScoreLists, StepTables, Scorecard]:
    """``(score_lists, step_tables, empty card)`` of ``rules``; the last rules object's
    without hashing it again (a frozen dataclass hashes its fields on every cached lookup,
    and an env starts a game with the same rules object every episode)."""
    last = _LAST_TABLES
    if last[0] is rules:
        return last[1]
    out = (score_lists(rules), step_tables(rules), _empty_card(rules))
    last[0], last[1] = rules, out
    return out


class ScorecardGame:
    """One player's game as a state machine: the card, this turn's dice and rolls.

    Actions (the envs' action space): ``a < 32`` re-rolls the dice whose bits are set,
    bit i = the i-th smallest die (legal while rolls remain; never 0); ``32 + k`` fills
    row ``k`` of the card. Each turn starts with a roll of all five dice. Mutable, owns
    ``rng`` for its rolls; :meth:`copy` gives an independent game.

    A step moves the dice by the compiled lookups of :func:`dice_moves` (the batched
    engine's). The state's legal rows and gains come from the compiled
    :func:`score_tables` two ways: :meth:`bits_view` (bit sets, :func:`legal_bits_one` and
    :func:`plain_gains_one`: what a step, the mask and the env's observation read) and
    :meth:`state_view` (per-row lists, :func:`legal_rows_one` and :func:`fill_gains_one`,
    once per state: options, points, the gains where a bonus is in play).
    """

    def __init__(
        self,
        rng: np.random.Generator,
        rules: str | ScorecardRules = "russian",
        chance: Iterable[int] | None = None,
        **options,
    ) -> None:
        self.rules = make_rules(rules, **options)
        self.rng = rng
        self._tab, self._st, self.card = _game_tables(self.rules)
        self.dice: tuple[int, ...] = ()
        self.rolls_used = 0
        self.history: list[tuple[tuple[int, ...], ...]] = []  # rolls of each finished turn
        self._rolls: list[tuple[int, ...]] = []
        self._view: tuple | None = None
        self._start_turn(chance)

    @property
    def rng(self) -> np.random.Generator:
        """The generator the rolls are drawn from; setting it binds its drawer
        (:func:`~envs.rules.dice.below_drawer`, looked up once, not at every roll)."""
        return self._rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._below = below_drawer(rng)

    @property
    def n_actions(self) -> int:
        return N_REROLL_ACTIONS + len(self.rules.rows)

    @property
    def done(self) -> bool:
        return not self.card._open_bits

    @property
    def first_roll(self) -> bool:
        """The dice are this turn's first roll (stage-2 rows filled now are doubled)."""
        return self.rolls_used == 1

    @property
    def rolls_left(self) -> int:
        return 0 if self.done else MAX_ROLLS - self.rolls_used

    def state_view(self) -> tuple:
        """What the rules say about the state now, computed once per (card, dice, rolls):
        ``(card, dice, rolls_used, legal, points, gains, mask)`` with ``legal`` a bool per row,
        ``points`` per row the whole gain of filling it now (0 where illegal), ``gains``
        the ``(score, bonus, Yahtzee bonus)`` of :func:`fill_gains_one` and ``mask`` the
        action mask (a fresh array, kept in the view). A card, dice
        or rolls set from outside are noticed (the view names the ones it was read for)."""
        v = self._view
        card, dice, rolls_used = self.card, self.dice, self.rolls_used
        if v is not None and v[0] is card and v[1] is dice and v[2] == rolls_used:
            return v
        open_ = card._open
        n = len(open_)
        if not card._open_bits:
            legal, gains = _FALSE[n], (_ZERO[n], _ZERO[n], _ZERO[n])
            points = _ZERO[n]
        else:
            di = _DICE_INDEX[dice]
            rules, tab = self.rules, self._tab
            legal = tuple(_legal_one(rules, tab, open_, di))
            gains = _gains_one(
                rules, tab, open_, card._upper_sum, card._yahtzee_scored, di, rolls_used == 1
            )
            score, bonus, ybonus = gains
            if bonus is ybonus:  # both _ZERO: the points are the scores of the legal rows
                points = [s if ok else 0 for s, ok in zip(score, legal, strict=True)]
            else:
                points = [
                    s + b + y if ok else 0
                    for s, b, y, ok in zip(score, bonus, ybonus, legal, strict=True)
                ]
        mask = self.action_mask()
        v = self._view = (card, dice, rolls_used, legal, points, gains, mask)
        return v

    def bits_view(self) -> tuple[int, int, bool]:
        """``(dice index, legal, plain)`` of the state now, without a pass over the rows:
        the dice's index in :data:`DICE`, the legal rows as a bit set (bit k = row k; 0
        once the game is over) and whether the gains are the rows' plain scores
        (:func:`plain_gains_one`). What :meth:`state_view` says, for the fused env step."""
        card = self.card
        di = _DICE_INDEX[self.dice]
        open_bits = card._open_bits
        if not open_bits:
            return di, 0, True
        rules, st = self.rules, self._st
        return (
            di,
            legal_bits_one(rules, st, open_bits, di),
            plain_gains_one(rules, st, open_bits, card._upper_sum, di),
        )

    def legal_rows(self) -> tuple[str, ...]:
        """Rows that may be filled now."""
        legal = self.state_view()[3]
        return tuple([row for row, ok in zip(self.rules.rows, legal, strict=True) if ok])

    def fill_options(self) -> dict[str, int]:
        """Legal rows now and the whole gain of each (a fresh dict)."""
        _, _, _, legal, points, _, _ = self.state_view()
        return {row: p for row, ok, p in zip(self.rules.rows, legal, points, strict=True) if ok}

    def fill_points(self) -> list[int]:
        """Per row, the whole gain of filling it now (as :meth:`fill_options`), 0 where the
        row may not be filled (a fresh list)."""
        return list(self.state_view()[4])

    def legal_row_actions(self) -> list[int]:
        return [N_REROLL_ACTIONS + k for k, ok in enumerate(self.state_view()[3]) if ok]

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        rerolls = list(range(1, N_REROLL_ACTIONS)) if self.rolls_used < MAX_ROLLS else []
        return rerolls + self.legal_row_actions()

    def action_mask(self, legal: int | None = None) -> np.ndarray:
        """The legal actions now as a fresh bool array; ``legal``: the legal rows of
        :meth:`bits_view`, where the caller has them."""
        if legal is None:
            legal = self.bits_view()[1]
        card = self.card
        can = self.rolls_used < MAX_ROLLS and card._open_bits != 0
        return mask_of_bits(len(card.scores), can, legal)

    def is_legal(self, action: int) -> bool:
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, int | np.integer):
                return False
            action = int(action)
        if self.done:
            return False
        if 0 < action < N_REROLL_ACTIONS:
            return self.rolls_used < MAX_ROLLS
        k = action - N_REROLL_ACTIONS
        return 0 <= k < len(self.rules.rows) and bool(self.bits_view()[1] >> k & 1)

    def step(self, action: int, chance: Iterable[int] | None = None) -> int:
        """Play ``action``; returns the points it gained (0 for a re-roll).

        ``chance``: five faces to roll instead of drawing from ``rng`` — die ``i`` that is
        rolled (a re-rolled die, or every die of the next turn's first roll) takes
        ``chance[i]`` (the batched engine reads chance the same way). Raises
        ``ValueError`` naming the legal actions, leaving the game unchanged.
        """
        card = self.card
        di = _DICE_INDEX[self.dice]
        if type(action) is not int or not card._open_bits:
            legal = self.is_legal(action)
            if legal:
                action = int(action)
        elif 0 < action < N_REROLL_ACTIONS:  # a re-roll, the common case
            legal = self.rolls_used < MAX_ROLLS
        else:  # a fill: legal_rows_one as a bit set
            k = action - N_REROLL_ACTIONS
            legal = (
                0 <= k < len(card.scores)
                and legal_bits_one(self.rules, self._st, card._open_bits, di) >> k & 1
            )
        if not legal:
            if self.done:
                raise ValueError(f"illegal action {action!r}: the game is over")
            rows = ", ".join(
                f"{a}={self.rules.rows[a - N_REROLL_ACTIONS]}" for a in self.legal_row_actions()
            )
            rerolls = "1..31 (re-roll)" if self.rolls_used < MAX_ROLLS else "no re-roll (roll 3/3)"
            raise ValueError(f"illegal action {action!r}; legal actions are {rerolls}, {rows}")
        faces = None if chance is None else check_dice(chance, N_DICE)
        if action < N_REROLL_ACTIONS:
            if faces is None:  # as roll(rng, n): one draw below 6**n indexes the ordered rolls
                bound, codes = _REROLL_DRAW[action]
                rolled = codes[self._below(bound)]
            else:
                rolled = sum([_RADIX[faces[i]] for i in range(N_DICE) if action >> i & 1])
            self.rolls_used += 1
            self.dice = dice = DICE[_BY_CODE[_KEPT[di][action] + rolled]]
            self._rolls.append(dice)
            return 0
        k = action - N_REROLL_ACTIONS
        if plain_gains_one(self.rules, self._st, card._open_bits, card._upper_sum, di):
            tab = self._tab.first if self.rolls_used == 1 else self._tab.later
            score, bonus, ybonus = tab[di][k], 0, 0
        else:
            scores, bonuses, ybonuses = self.state_view()[5]
            score, bonus, ybonus = scores[k], bonuses[k], ybonuses[k]
        self.card = card = card._filled(k, score, bonus, ybonus)
        self.history.append(tuple(self._rolls))
        if card._open_bits:
            self._start_turn(faces)
        return score + bonus + ybonus

    def _start_turn(self, chance: Iterable[int] | None = None) -> None:
        self.rolls_used = 1
        if chance is None:  # as roll(rng, 5)
            dice = _OPENING[self._below(_OPENING_BOUND)]
        else:
            dice = DICE[_BY_CODE[sum(_RADIX[f] for f in check_dice(chance, N_DICE))]]
        self.dice = dice
        self._rolls = [dice]

    def __getstate__(self) -> dict:  # the rules' tables and the drawer are rebuilt, not pickled
        state = dict(self.__dict__)
        del state["_tab"], state["_st"], state["_below"]
        state["rng"] = state.pop("_rng")
        state["_view"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        rng = state.pop("rng")
        self.__dict__.update(state)
        self.rng = rng
        self._tab, self._st, _ = _game_tables(self.rules)

    def copy(self) -> ScorecardGame:
        new = object.__new__(ScorecardGame)
        new.__dict__.update(self.__dict__)
        new.rng = np.random.Generator(type(self.rng.bit_generator)())
        new.rng.bit_generator.state = self.rng.bit_generator.state
        new.history = list(self.history)
        new._rolls = list(self._rolls)
        return new


__all__ = [
    "CLASSIC_ROWS",
    "dice_moves",
    "ROW_INDEX",
    "MAX_ROLLS",
    "N_REROLL_ACTIONS",
    "JOKER_OPTIONS",
    "RULE_SETS",
    "RUSSIAN_ROWS",
    "SCRATCH_OPTIONS",
    "UPPER_ROWS",
    "Scorecard",
    "ScorecardGame",
    "ScorecardRules",
    "is_yahtzee",
    "joker_active",
    "legal_rows",
    "make_rules",
    "rows_of",
    "satisfies",
    "score_row",
]
