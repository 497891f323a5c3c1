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
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame, hand_strengths


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
    return encoder(game.rules).observe(game, seat, games_left, chips)


class Encoder:
    """:func:`observe` for one rule set, with what it writes compiled once: per decision of
    the player to act (``DicePokerGame.decision``: its dice, frozen flags and roll) the
    vector with the fields from ``dice`` to ``hand`` filled in (the rest is written over),
    per best-hand strength (``DicePokerGame.best_strength``) the ``best`` vector. The
    fields are written in layout order (:func:`layout` checks the order)."""

    def __init__(self, rules) -> None:
        n = rules.n_dice
        self.rules = rules
        self._hands = hand_strengths(rules)
        self._size = layout(n).size
        self._rest = 2 * n + 11  # where ``best`` starts: what follows is per observation
        self._own: dict[tuple, np.ndarray] = {}  # (dice, frozen, rolls_used) -> template
        self._by_decision: dict[int, np.ndarray] = {}
        # someone else's turn: dice, frozen, face_counts, rolls_used 0 and no hand
        self._nobody = self._template([0.0] * (2 * n + 6) + [0, -1.0, 0.0, 0.0, 0.0])
        by_strength = {s: self._hands.hand[m] for m, s in self._hands.strength.items()}
        self._best = [hand_vector(None)] + [
            hand_vector(by_strength[s]) for s in range(self._hands.n_hands)
        ]

    def _template(self, own: list[float]) -> np.ndarray:
        out = np.zeros(self._size, dtype=np.float32)
        out[: len(own)] = own
        out.flags.writeable = False
        return out

    def _own_fields(self, dice: tuple[int, ...], frozen: tuple[bool, ...], rolls: int):
        """The template of the player to act: ``dice`` + ``frozen`` + ``face_counts`` +
        ``rolls_used`` + ``hand``."""
        key = (dice, frozen, rolls)
        out = self._own.get(key)
        if out is None:
            counts = [0] * 6
            for d in dice:
                counts[d - 1] += 1
            hand = self._hands.hand.get(dice)
            if hand is None:  # not a sorted roll of these dice: ranked (and checked) as ever
                hand = self.rules.rank(dice)
            own = list(dice) + [float(f) for f in frozen] + counts + [rolls] + hand_vector(hand)
            out = self._own[key] = self._template(own)
        return out

    def observe(self, game: DicePokerGame, seat: int, games_left: int = 0, chips: float = 0.0):
        """:func:`observe`."""
        seats = game.round_seats
        done = game.winner is not None
        if not done and seats[game.position] == seat:
            d = game.decision
            own = self._by_decision.get(d)
            if own is None:
                own = self._own_fields(game.dice, game.frozen, game.rolls_used)
                if d >= 0:
                    self._by_decision[d] = own
        else:
            own = self._nobody
        out = own.copy()
        out[self._rest :] = self._best[game.best_strength + 1] + [
            game.best_count,
            0 if done else len(seats) - game.position - 1,
            len(seats),
            game.pot,
            len(game.rounds) - 1,
            seat,
            seats.index(seat) if seat in seats else -1,
            games_left,
            chips,
        ]
        return out


@cache
def encoder(rules) -> Encoder:
    """The (cached) :class:`Encoder` of ``rules``."""
    return Encoder(rules)


def decode_observation(obs: np.ndarray, n_dice: int = 5) -> dict[str, np.ndarray | float]:
    """Split an observation into its named fields (scalars as floats)."""
    return layout(n_dice).decode(obs)


__doc__ = layout(5).document(__doc__)
