"""What a seat of prison dice poker sees, as numbers (``DicePoker-v0``, ``DicePoker6-v0``,
``dice_poker_v0``).

A flat float32 vector of ``2*n_dice + 24`` values (34 for five dice); the fields
of :func:`layout` define it (five dice):

{index_table}

For six dice every index from ``frozen`` on shifts by one, from ``face_counts``
on by two. Hand ranks follow the rules (five dice: nothing 0 .. poker 6; six
dice: nothing 0 .. poker 10).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.obs.layout import Field, Layout
from envs.rules.dice_hands import DiceHand
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame


@cache
def layout(n_dice: int = 5) -> Layout:
    """The observation layout of dice poker with ``n_dice`` dice."""
    if n_dice not in (5, 6):
        raise ValueError(f"n_dice must be 5 or 6, got {n_dice!r}")
    inf = np.inf
    top = 6 * n_dice
    out = Layout(
        [
            Field(
                "dice",
                n_dice,
                0,
                6,
                "own dice, sorted ascending (faces 1-6); zeros when it is not your turn",
            ),
            Field("frozen", n_dice, 0, 1, "1 where the die may not be re-rolled any more"),
            Field("face_counts", 6, 0, n_dice, "how many ones .. sixes"),
            Field(
                "rolls_used",
                None,
                0,
                MAX_ROLLS,
                "1, 2 (the third roll ends the turn); 0 when it is not your turn",
            ),
            Field(
                "hand",
                4,
                -1,
                top,
                "own hand: rank (-1 if none), points, tie-break faces (0, 0 unless a face variant)",
            ),
            Field(
                "best", 4, -1, top, "best finished hand of this round, same layout; rank -1 if none"
            ),
            Field("best_count", None, 0, 6, "how many finished players hold that best hand"),
            Field(
                "players_after",
                None,
                0,
                5,
                "players of this round still to roll after the one rolling",
            ),
            Field(
                "round_players",
                None,
                0,
                6,
                "players in this round (all, or the tied in a play-off)",
            ),
            Field("pot", None, 0, inf, "chips in the pot"),
            Field("playoff", None, 0, inf, "0 in the main round, k in the k-th play-off"),
            Field("seat", None, 0, 5, "your seat at the table"),
            Field(
                "position",
                None,
                -1,
                5,
                "your place in this round's order (0 = first to roll), -1 if not in it",
            ),
            Field("games_left", None, 0, 5, "games of the circle still to come after this one"),
            Field("chips", None, -inf, inf, "your net chips so far this episode"),
        ],
        what=f"dice poker with {n_dice} dice",
    )
    if out.names != _ORDER:
        raise AssertionError(f"observe writes the fields {_ORDER}, the layout has {out.names}")
    return out


# the order observe writes the fields in
_ORDER = (
    "dice",
    "frozen",
    "face_counts",
    "rolls_used",
    "hand",
    "best",
    "best_count",
    "players_after",
    "round_players",
    "pot",
    "playoff",
    "seat",
    "position",
    "games_left",
    "chips",
)


def obs_fields(n_dice: int) -> list[tuple[str, int]]:
    """The observation's named slices, in order, as (name, length)."""
    return [(f.name, f.width) for f in layout(n_dice).fields]


def obs_space(n_dice: int):
    """The observation space (a ``gymnasium.spaces.Box``), with each field's bounds."""
    return layout(n_dice).box()


def obs_size(n_dice: int) -> int:
    return layout(n_dice).size


def hand_vector(hand: DiceHand | None) -> list[float]:
    """A hand as (rank, points, tie-break face, tie-break face); rank -1 for none."""
    if hand is None:
        return [-1.0, 0.0, 0.0, 0.0]
    tb = list(hand.tiebreak) + [0] * (2 - len(hand.tiebreak))
    if len(hand.tiebreak) == 1:  # points decide: keep the tie-break slots empty
        tb = [0, 0]
    return [float(hand.rank), float(hand.points), float(tb[0]), float(tb[1])]


def observe(game: DicePokerGame, seat: int, games_left: int = 0, chips: float = 0.0) -> np.ndarray:
    """The observation of ``seat`` while ``game`` waits for the current player."""
    n = game.rules.n_dice
    best, best_count = game.best_so_far()
    own_turn = game.current_player == seat
    dice = list(game.dice) if own_turn else [0] * n
    counts = [0] * 6
    for d in dice:
        if d:
            counts[d - 1] += 1
    order = game.round_order
    # the fields in layout order as one list (layout() checks the order)
    flat = (
        dice
        + ([float(f) for f in game.frozen] if own_turn else [0.0] * n)
        + counts
        + [game.rolls_used if own_turn else 0]
        + (_hand_vector_of(game.rules, game.dice) if own_turn else [-1.0, 0.0, 0.0, 0.0])
        + hand_vector(best)
        + [
            best_count,
            game.players_after if not game.done else 0,
            len(order),
            game.pot,
            game.playoff,
            seat,
            order.index(seat) if seat in order else -1,
            games_left,
            chips,
        ]
    )
    return np.array(flat, dtype=np.float32)


def _hand_vector_of(rules, dice: tuple[int, ...]) -> list[float]:
    """``hand_vector(rules.rank(dice))``, kept per rules object and dice."""
    known = rules.__dict__.get("_obs_hands")
    if known is None:
        known = {}
        object.__setattr__(rules, "_obs_hands", known)  # a cache beside the frozen fields
    v = known.get(dice)
    if v is None:
        v = known[dice] = hand_vector(rules.rank(dice))
    return v


def decode_observation(obs: np.ndarray, n_dice: int = 5) -> dict[str, np.ndarray | float]:
    """Split an observation into its named fields (scalars as floats)."""
    return layout(n_dice).decode(obs)


__doc__ = layout(5).document(__doc__)
