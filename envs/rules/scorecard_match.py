"""Several players at one scorecard game: seat order and the settlement (docs/rules.md section 4).

Each player keeps their own card; players take whole turns in seat order, seat 0
first, and a turn ends with a fill. When every card is full each player is paid
their total minus the table's mean total.

The settlement is paid in exact dyadic numbers that sum to exactly zero in any
order of addition: each seat's ``scale * (total - mean)`` is rounded to a multiple
of ``2**-SETTLE_BITS`` (within 1e-6 of the exact value; exact whenever the mean is,
e.g. with 2 or 4 players and an integer scale) and the rounding residue, a few
units of ``2**-SETTLE_BITS``, goes to seat 0. Every partial sum of such numbers is
exactly representable in a float64, so the rewards sum to 0.0, not to +-3.6e-15.
:meth:`ScorecardMatch.exact_settlements` gives the exact fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from envs.rules.scorecard import N_REROLL_ACTIONS, ScorecardGame, ScorecardRules, make_rules

SETTLE_BITS = 20


def settle(totals, scale: float = 1.0):
    """Each seat's ``scale * (total - mean total)``, summing to exactly zero.

    ``totals``: a sequence of integer totals, or an integer array whose last axis is
    the seats (a leading batch axis is fine). Returns floats of the same shape.
    """
    t = np.asarray(totals, dtype=np.int64)
    n = t.shape[-1]
    diff = n * t - t.sum(axis=-1, keepdims=True)  # n * (total - mean), exact
    units = np.rint(diff * (float(scale) * 2**SETTLE_BITS / n)).astype(np.int64)
    units[..., 0] -= units.sum(axis=-1)  # the residue to seat 0: integers sum to 0
    out = units / 2.0**SETTLE_BITS
    return out if isinstance(totals, np.ndarray) else out.tolist()


class ScorecardMatch:
    """``n_players`` cards at one table; every card rolls from the one generator ``rng``,
    in playing order. ``step(action)`` plays the current player's action and returns
    the points it scored."""

    def __init__(
        self, n_players: int, rng: np.random.Generator, rules: str | ScorecardRules = "russian"
    ) -> None:
        if type(n_players) is not int or n_players < 1:
            raise ValueError(f"n_players must be a whole number >= 1, got {n_players!r}")
        self.rules = make_rules(rules)
        self.n_players = n_players
        self.games = [ScorecardGame(rng, self.rules) for _ in range(n_players)]
        self.current_player = 0

    @property
    def done(self) -> bool:
        return all(g.done for g in self.games)

    def others(self, seat: int) -> list[ScorecardGame]:
        """The other players' games in turn order after ``seat``."""
        return [self.games[(seat + k) % self.n_players] for k in range(1, self.n_players)]

    def step(self, action: int) -> int:
        """Play ``action`` for the current player (raises on an illegal one, changing
        nothing); a fill passes the turn to the next seat."""
        points = self.games[self.current_player].step(action)
        if int(action) >= N_REROLL_ACTIONS:
            self.current_player = (self.current_player + 1) % self.n_players
        return points

    def totals(self) -> list[int]:
        return [g.card.total for g in self.games]

    def settlements(self, scale: float = 1.0) -> list[float]:
        """Total minus the mean total (times ``scale``), summing to exactly zero."""
        return settle(self.totals(), scale)

    def exact_settlements(self) -> list[Fraction]:
        totals = self.totals()
        mean = Fraction(sum(totals), self.n_players)
        return [t - mean for t in totals]
