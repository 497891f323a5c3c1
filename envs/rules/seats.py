"""Seat bookkeeping shared by the table games: turn order, chip arithmetic, and
:class:`GameSeries` (the games of a match played one after another).

The arithmetic takes plain numbers and numpy arrays alike (a leading batch axis
is fine), so a batched engine calls the very same functions as the scalar rules.
"""

from __future__ import annotations

import numpy as np


def turn_order(first: int, n_players: int) -> list[int]:
    """Seats in playing order from ``first``, passing to the left (increasing seats)."""
    return [(first + i) % n_players for i in range(n_players)]


def action_mask(legal, n_actions: int) -> np.ndarray:
    """The bool mask over ``n_actions`` actions with the ``legal`` ones set."""
    mask = np.zeros(n_actions, dtype=bool)
    mask[legal] = True
    return mask


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


def forfeit(stakes, offender: int, order) -> dict[int, int]:
    """Net chips per seat of a game that ``offender`` forfeits while it is in play (an
    illegal action under ``illegal_action="terminate"``): the offender loses its stake
    (everything it has put into the pot: ante, fees, bids); every other seat of ``order``
    takes its own stake back and an equal share of the offender's, the odd chips one each
    to the seats right after the offender in turn order. They sum to zero."""
    order = [int(s) for s in order]
    at = order.index(offender)
    others = order[at + 1 :] + order[:at]
    share, odd = divmod(int(stakes[offender]), len(others))
    net = {s: share + (k < odd) for k, s in enumerate(others)}
    net[offender] = -int(stakes[offender])
    return {s: net[s] for s in order}


class GameSeries:
    """Games played one after another at one table (a dice-poker circle, a card-poker
    session). A subclass keeps ``game`` (the game in play: ``step``, ``done``,
    ``payoffs()``, ``current_player``) and ``done``; it names its ledger of net chips per
    seat (:meth:`_ledger`) and starts the next game in :meth:`_game_over`.
    """

    game = None
    done: bool
    forfeited: int | None = None  # the seat that forfeited the series (see forfeit())

    @property
    def _what(self) -> str:
        """What is over when ``done``, for the error message."""
        return "match"

    @property
    def current_player(self) -> int | None:
        return self.game.current_player

    def _ledger(self) -> list[int]:
        raise NotImplementedError

    def _game_over(self, chance=None) -> None:
        """Count the finished game and start the next one when the series goes on
        (``chance``: the step's chance, whose part for a next game the subclass reads)."""
        raise NotImplementedError

    def step(self, action: int, chance=None) -> dict[int, int]:
        """Play ``action`` for the current player; the payoffs of a game it ended, else {}.

        ``chance``: the step's outcomes instead of the generator (see the game's ``step``;
        the subclass says which part starts a next game). An action after the end raises
        ``ValueError``, changing nothing.
        """
        if self.done:
            raise ValueError(f"illegal action {action!r}: the {self._what} is over")
        self.game.step(action, chance)  # checks the action and the chance before moving
        return self._settle(chance)

    def _settle(self, chance=None) -> dict[int, int]:
        """After a move of the game in play: when it ended the game, its payoffs (added to
        the ledger; the next game started), else {}."""
        if not self.game.done:
            return {}
        payoffs = self.game.payoffs()
        ledger = self._ledger()
        for seat, chips in payoffs.items():
            ledger[seat] += chips
        self._game_over(chance)
        return payoffs

    def forfeit(self, seat: int) -> dict[int, int]:
        """``seat`` forfeits the game in play and with it the rest of the series: the
        payoffs of :func:`forfeit` over the game's ``stakes()``, added to the ledger.
        The series is then over for the wrappers (``forfeited`` is the seat)."""
        if self.done or self.forfeited is not None:
            raise ValueError(f"the {self._what} is over; nothing to forfeit")
        payoffs = forfeit(self.game.stakes(), seat, self.game.order)
        ledger = self._ledger()
        for s, chips in payoffs.items():
            ledger[s] += chips
        self.forfeited = seat
        return payoffs
