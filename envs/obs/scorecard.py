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

from array import array
from functools import cache
from struct import Struct

import numpy as np

from envs.obs.layout import Field, Layout
from envs.rules.dice import multisets
from envs.rules.scorecard import (
    MAX_ROLLS,
    N_DICE,
    ROW_INDEX,
    ScorecardGame,
    ScorecardRules,
    make_rules,
    score_row,
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
    if own_turn:  # the fields in layout order, as float32 bytes of per-dice and per-card parts
        card, dice, rolls_used, _, points, _, _ = game.state_view()
        tail = [
            card.rules.rules == "classic" and dice[0] == dice[4] and not card._open[_YAHTZEE],
            card._total,
            *points,
        ]
        if others:
            tail += [g.card.total for g in others]
        raw = bytearray(_dice_part(dice, rolls_used))
        raw += _card_part(card)
        raw += _packer(len(tail)).pack(*tail)
        return np.frombuffer(raw, _F32)
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


@cache
def _packer(n: int) -> Struct:
    """float32 bytes of ``n`` numbers (as ``array("f", ...)``, a little faster on a few)."""
    return Struct(f"={n}f")


@cache
def _dice_part(dice: tuple[int, ...], rolls_used: int) -> bytes:
    """face_counts, dice and rolls_used of sorted dice, as float32 bytes."""
    counts = [0] * 6
    for d in dice:
        counts[d - 1] += 1
    return array("f", [*counts, *dice, rolls_used]).tobytes()


def _card_part(card) -> bytes:
    """open_rows, stage, upper_sum, bonus, yahtzee_scored of a card as float32 bytes (kept
    on the card, which never changes)."""
    part = card.__dict__.get("_obs_part")
    if part is None:
        part = array(
            "f", [*card._open, card._stage, card._upper_sum, card.bonus, card._yahtzee_scored]
        ).tobytes()
        card.__dict__["_obs_part"] = part
    return part


def decode_observation(
    obs: np.ndarray, rules: str | ScorecardRules = "russian", n_players: int = 1
) -> dict[str, np.ndarray | float]:
    """Split an observation into its named fields (scalars as floats, dice as ints)."""
    return layout(rules, n_players).decode(obs)


__doc__ = layout("russian", 2).document(__doc__)
