"""Seat bookkeeping shared by the table games: turn order and chip arithmetic.

The arithmetic takes plain numbers and numpy arrays alike (a leading batch axis
is fine), so a batched engine calls the very same functions as the scalar rules.
"""

from __future__ import annotations

import numpy as np


def turn_order(first: int, n_players: int) -> list[int]:
    """Seats in playing order from ``first``, passing to the left (increasing seats)."""
    return [(first + i) % n_players for i in range(n_players)]


def split_pot(pot, n_winners):
    """``(share, odd)``: what each of ``n_winners`` equal best hands gets, and the odd chips
    left over (card poker gives them to the earliest winner in turn order)."""
    return np.divmod(pot, n_winners) if isinstance(pot, np.ndarray) else divmod(pot, n_winners)


def winner_takes_pot(pot, ante, won):
    """Net chips of a player who paid ``ante`` into ``pot``: ``pot - ante`` if ``won``, else
    ``-ante`` (dice poker: the play-offs add no ante)."""
    return (
        np.where(won, pot - ante, -ante)
        if isinstance(won, np.ndarray)
        else (pot - ante if won else -ante)
    )
