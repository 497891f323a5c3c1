"""What a player of the scorecard games sees, as numbers (``PokerNaKostyah-v0``,
``YahtzeeClassic-v0``, ``yahtzee_v0``).

A flat float32 vector of ``2*n + 18`` values (52 russian, 44 classic), ``n`` =
number of rows; the AEC env appends ``others_total`` (``n_players - 1`` values).
The fields of :func:`layout` define it; for the russian card (n = 17) with two players:

{index_table}

Classic (n = 13) has 13 values of ``open_rows`` and of ``fill_points``, so every
index after ``open_rows`` is 4 lower.

For a waiting player (AEC env) face_counts, dice, rolls_used, joker and
fill_points are zeros.
"""

from __future__ import annotations

import sys
from array import array
from functools import cache
from struct import Struct

import numpy as np

from envs.obs.layout import Field, Layout
from envs.rules.dice import multisets
from envs.rules.scorecard import (
    _DICE_INDEX,
    DICE,
    MAX_ROLLS,
    N_DICE,
    N_REROLL_ACTIONS,
    ROW_INDEX,
    RUSSIAN_ROWS,
    Scorecard,
    ScorecardGame,
    ScorecardRules,
    legal_bits_one,
    make_rules,
    mask_bytes,
    plain_gains_one,
    score_lists,
    score_row,
    step_tables,
    total_bounds,
)

_YAHTZEE = ROW_INDEX["classic"]["yahtzee"]

# zeroed for a player who waits for another's turn
_TURN_FIELDS = ("face_counts", "dice", "rolls_used", "joker", "fill_points")


@cache
def _layout(r: ScorecardRules, n_players: int) -> Layout:
    multi = n_players > 1
    n = len(r.rows)
    lo_total, hi_total = total_bounds(r)
    russian = r.rules == "russian"
    best_fill = max(
        max(score_row(row, d, r, first_roll=True) for d in multisets(N_DICE)) for row in r.rows
    )
    # the largest single gain: a row at its best plus the bonus it may complete
    hi_fill = best_fill + (50 if russian else 35 + 100)
    others = (
        [
            Field(
                "others_total",
                n_players - 1,
                lo_total,
                hi_total,
                "AEC env only: the other players' totals, in turn order after you",
            )
        ]
        if multi
        else []
    )
    out = Layout(
        [
            Field("face_counts", 6, 0, N_DICE, "how many ones .. sixes", "int"),
            Field(
                "dice",
                N_DICE,
                0 if multi else 1,
                6,
                "the dice, sorted ascending (faces 1-6)",
                "int",
            ),
            Field(
                "rolls_used",
                None,
                0 if multi else 1,
                MAX_ROLLS,
                "1, 2 or 3 rolls of this turn so far",
            ),
            Field("open_rows", n, 0, 1, "1 where row k is still open", "bool"),
            Field(
                "stage", None, 0, 2, "russian: 1 while a stage-1 row is open, then 2; classic: 0"
            ),
            Field(
                "upper_sum",
                None,
                -63 if russian else 0,
                42 if russian else 105,
                "sum of the filled stage-1 (russian) / upper (classic) rows",
            ),
            Field(
                "bonus",
                None,
                0,
                50 if russian else 35,
                "the card bonus earned so far: russian 0/50, classic 0/35",
            ),
            Field(
                "yahtzee_scored",
                None,
                0,
                1,
                "classic: the Yahtzee row holds 50 (extra Yahtzees earn 100)",
            ),
            Field(
                "joker", None, 0, 1, "classic: the dice are a Yahtzee and the Yahtzee row is filled"
            ),
            Field("total", None, lo_total, hi_total, "the card's total so far, bonuses included"),
            Field(
                "fill_points",
                n,
                -18 if russian else 0,
                hi_fill,
                "what filling row k now would gain (0 where illegal)",
            ),
            *others,
        ],
        what=f"the {r.rules} scorecard game with {n_players} player(s)",
    )
    if out.names != _ORDER + (("others_total",) if multi else ()):
        raise AssertionError(f"observe's fast path writes {_ORDER}, the layout is {out.names}")
    return out


def layout(rules: str | ScorecardRules = "russian", n_players: int = 1, **options) -> Layout:
    """The observation layout of these rules (``n_players > 1``: the AEC env's)."""
    return _layout(make_rules(rules, **options), n_players)


def obs_fields(
    rules: str | ScorecardRules = "russian", n_players: int = 1
) -> list[tuple[str, int]]:
    """The observation's named slices, in order, as (name, length)."""
    return [(f.name, f.width) for f in layout(rules, n_players).fields]


def obs_size(rules: str | ScorecardRules = "russian", n_players: int = 1) -> int:
    return layout(rules, n_players).size


def obs_space(rules: str | ScorecardRules = "russian", n_players: int = 1, **options):
    """The observation Box (``gymnasium.spaces.Box``) with per-field bounds."""
    return layout(rules, n_players, **options).box()


def observe(
    game: ScorecardGame, others: list[ScorecardGame] | None = None, own_turn: bool = True
) -> np.ndarray:
    """The observation of the player of ``game``.

    ``others``: the other players' games in turn order after this one (AEC env);
    when it is not ``own_turn`` the dice, rolls, joker and fill points are zeros.
    """
    card = game.card
    if own_turn:
        return own_view(card.rules)(game, others)[0]
    values = {
        "open_rows": [s is None for s in card.scores],
        "stage": card.stage,
        "upper_sum": card.upper_sum,
        "bonus": card.bonus,
        "yahtzee_scored": card.yahtzee_scored,
        "total": card.total,
    }
    if others:
        values["others_total"] = [g.card.total for g in others]
    values.update(dict.fromkeys(_TURN_FIELDS, 0))
    return layout(card.rules, 1 + len(others or ())).encode(**values)


# The order observe's fast path writes (the layout's fields; _layout checks it).
_ORDER = (
    "face_counts",
    "dice",
    "rolls_used",
    "open_rows",
    "stage",
    "upper_sum",
    "bonus",
    "yahtzee_scored",
    "joker",
    "total",
    "fill_points",
)


_F32 = np.dtype(np.float32)
_BOOL = np.dtype(bool)


@cache
def _packer(n: int) -> Struct:
    """float32 bytes of ``n`` numbers (as ``array("f", ...)``, a little faster on a few)."""
    return Struct(f"={n}f")


def _dice_part(dice: tuple[int, ...], rolls_used: int) -> bytes:
    """face_counts, dice and rolls_used of sorted dice, as float32 bytes."""
    counts = [0] * 6
    for d in dice:
        counts[d - 1] += 1
    return array("f", [*counts, *dice, rolls_used]).tobytes()


class OwnView:
    """The observation of the player on turn and the legal rows (a bit set, bit k = row k)
    in one pass: ``OwnView(rules)(game) -> (obs, legal)``.

    The fields in layout order (``_layout`` checks the order), as float32 bytes in three
    parts (:meth:`parts`): the dice (face_counts, dice, rolls_used) by table per dice index
    and rolls; the card (open_rows .. total), built once per card (a card never changes)
    with joker 0 and kept on it (a joker patched in); and ``fill_points``: in a state whose
    gains are the plain row scores (:func:`~envs.rules.scorecard.plain_gains_one`, most
    states) the bytes of every row's score (``score_lists``' ``later`` / ``first``) held as
    one integer, the illegal rows masked to 0.0 by one AND; otherwise the game's
    ``state_view``.
    tests/envs/test_obs.py holds it to :meth:`Layout.encode` of the fields.
    """

    def __init__(self, rules: ScorecardRules) -> None:
        tab = score_lists(rules)
        self.rules = rules
        self.classic = rules.rules == "classic"
        self.step_tables = step_tables(rules)
        self.pack_points = _packer(len(rules.rows)).pack
        self.points_size = 4 * len(rules.rows)
        self.no_points = bytes(self.points_size)  # 0.0 in every row
        self.dice_part = tuple(tuple(_dice_part(d, k) for k in range(MAX_ROLLS + 1)) for d in DICE)

        def lanes(rows) -> tuple[int, ...]:
            return tuple(int.from_bytes(self.pack_points(*row), _ORDER_BYTES) for row in rows)

        self.lanes = (lanes(tab.later), lanes(tab.first))
        self.open_hi = _open_bytes(len(rules.rows) - _LO_BITS)
        # the joker's bytes in the card part: after open_rows, stage .. yahtzee_scored
        self.joker_at = 4 * (len(rules.rows) + 4)

    def __reduce__(self):  # pickled and copied as the rules' one view (tables are rebuilt)
        return own_view, (self.rules,)

    def card_bytes(self, card: Scorecard) -> bytes:
        """open_rows .. total of ``card`` as float32 bytes (joker 0); built once and kept on
        the card (``_obs_card``)."""
        d = card.__dict__
        out = d.get("_obs_card")
        if out is None:
            open_bits = d["_open_bits"]
            out = d["_obs_card"] = (
                _OPEN_LO[open_bits & _LO]
                + self.open_hi[open_bits >> _LO_BITS]
                + _PACK_CARD(  # stage, upper_sum, bonus, yahtzee_scored, joker, total
                    d["_stage"], d["_upper_sum"], d["bonus"], d["_yahtzee_scored"], 0, d["_total"]
                )
            )
        return out

    def parts(self, game: ScorecardGame) -> tuple[int, bytes, bytes, bytes]:
        """``(legal, dice, card, fill_points)``: the legal rows as a bit set and the
        observation's three parts as float32 bytes (the order of the layout)."""
        card = game.card
        cd = card.__dict__
        di = _DICE_INDEX[game.dice]
        rolls_used = game.rolls_used
        open_bits = cd["_open_bits"]
        st = self.step_tables
        if not open_bits:  # the game is over: no legal row, every gain 0
            legal, points = 0, self.no_points
        else:
            rules = self.rules
            legal = legal_bits_one(rules, st, open_bits, di)
            if plain_gains_one(rules, st, open_bits, cd["_upper_sum"], di):
                points = (
                    self.lanes[rolls_used == 1][di]
                    & (_LANE_LO[legal & _LO] | _LANE_HI[legal >> _LO_BITS])
                ).to_bytes(self.points_size, _ORDER_BYTES)
            else:
                points = self.pack_points(*game.state_view()[4])
        card_part = cd.get("_obs_card") or self.card_bytes(card)
        if self.classic and st.yahtzee[di] and not open_bits >> _YAHTZEE & 1:  # the joker
            at = self.joker_at
            card_part = card_part[:at] + _PACK_1(1) + card_part[at + 4 :]
        return legal, self.dice_part[di][rolls_used], card_part, points

    def __call__(
        self, game: ScorecardGame, others: list[ScorecardGame] | None = None
    ) -> tuple[np.ndarray, int]:
        legal, dice, card, points = self.parts(game)
        raw = bytearray(dice)
        raw += card
        raw += points
        if others:
            raw += _packer(len(others)).pack(*[g.card.total for g in others])
        return np.frombuffer(raw, _F32), legal


class StepView:
    """What the single env returns each step: ``StepView(rules)(game) -> (obs, mask,
    legal)``, the observation of :class:`OwnView`, the action mask of
    ``ScorecardGame.action_mask`` (by :func:`~envs.rules.scorecard.mask_bytes`) and the
    legal rows as a bit set.

    One per env: the parts are written into buffers this view owns and the arrays returned
    are copies of them (a copy of a small array is cheaper than an array over new bytes),
    so an array handed out is never written again. Copied or pickled as a fresh view.
    """

    def __init__(self, rules: ScorecardRules) -> None:
        self.rules = rules
        self.parts = own_view(rules).parts
        self.n_rows = n = len(rules.rows)
        self._obs_buf = bytearray(4 * layout(rules).size)
        self._obs = np.frombuffer(self._obs_buf, _F32)
        self._mask_buf = bytearray(N_REROLL_ACTIONS + n)
        self._mask = np.frombuffer(self._mask_buf, _BOOL)
        mv = memoryview(self._obs_buf)
        dice_end = 4 * (6 + N_DICE + 1)
        card_end = dice_end + 4 * (n + 6)
        self._dice_mv, self._card_mv, self._points_mv = (
            mv[:dice_end],
            mv[dice_end:card_end],
            mv[card_end:],
        )
        self._mask_mv = memoryview(self._mask_buf)
        # what the buffers hold (written again only when it changes: within a turn the card
        # part is the same, and so is the mask but for the last roll and the dice's rows)
        self._card_part: bytes | None = None
        self._mask_key = -1

    def __reduce__(self):  # the buffers are not copied: a copy gets its own
        return StepView, (self.rules,)

    def __call__(self, game: ScorecardGame) -> tuple[np.ndarray, np.ndarray, int]:
        legal, dice, card, points = self.parts(game)
        self._dice_mv[:] = dice
        if card is not self._card_part:
            self._card_mv[:] = self._card_part = card
        self._points_mv[:] = points
        # as ScorecardGame.action_mask: re-rolls while rolls remain in a game not over
        can = game.rolls_used < MAX_ROLLS and game.card._open_bits != 0
        key = legal << 1 | can
        if key != self._mask_key:
            self._mask_key = key
            self._mask_mv[:] = mask_bytes(self.n_rows, can, legal)
        return self._obs.copy(), self._mask.copy(), legal


@cache
def own_view(rules: ScorecardRules) -> OwnView:
    """The :class:`OwnView` of a rule set, built once."""
    return OwnView(rules)


# a bit set of legal rows -> an integer with 0xFFFFFFFF in the 4 bytes of each legal row
# (two tables, for rows 0-8 and 9-16, so a card of 17 rows needs 768 entries, not 2**17)
_LO_BITS = 9
_LO = (1 << _LO_BITS) - 1
_LANE_LO = tuple(
    sum(0xFFFFFFFF << 32 * k for k in range(_LO_BITS) if b >> k & 1) for b in range(1 << _LO_BITS)
)
_LANE_HI = tuple(x << 32 * _LO_BITS for x in _LANE_LO[: 1 << (len(RUSSIAN_ROWS) - _LO_BITS)])
_ORDER_BYTES = sys.byteorder  # as the native float32 bytes that Struct("=...f") writes


def _open_bytes(width: int) -> tuple[bytes, ...]:
    """A bit set of ``width`` rows -> float32 bytes of 1.0 where the bit is set, else 0.0."""
    return tuple(
        array("f", [b >> k & 1 for k in range(width)]).tobytes() for b in range(1 << width)
    )


_OPEN_LO = _open_bytes(_LO_BITS)
_PACK_CARD = Struct("=6f").pack
_PACK_1 = Struct("=f").pack


def decode_observation(
    obs: np.ndarray, rules: str | ScorecardRules = "russian", n_players: int = 1
) -> dict[str, np.ndarray | float]:
    """Split an observation into its named fields (scalars as floats, dice as ints)."""
    return layout(rules, n_players).decode(obs)


__doc__ = layout("russian", 2).document(__doc__)
