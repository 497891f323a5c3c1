"""Scorecard games ("Покер на костях" and classic Yahtzee), N games at once in numpy.

The state of N one-player games is a handful of arrays with a leading batch axis;
:meth:`BatchedScorecard.step` plays one action in every game with one call. The
rules come only from :mod:`envs.rules.scorecard`: its compiled :func:`score_tables`,
:func:`legal_row_mask` and :func:`fill_gains` are the very functions the scalar
``Scorecard`` uses, so the two engines cannot disagree about a score or a legal row.

Chance is an input: every call that rolls dice takes ``chance``, an ``(N, 5)`` array of
faces 1..6, and die ``i`` of game ``n`` that is rolled takes ``chance[n, i]`` (at the start
of a turn all five are rolled; a re-roll rolls the dice whose bits are set, bit ``i`` =
the ``i``-th smallest die). ``ScorecardGame.step(action, chance=...)`` reads chance the
same way, which is how the differential test feeds both engines the same dice. Without
``chance`` the engine draws it from its seeded numpy Generator, or with ``draws`` set
(:mod:`envs.batched.draws`) each game that moves from its own stream.

Actions and observations are exactly those of ``PokerNaKostyah-v0`` / ``YahtzeeClassic-v0``
(``envs.scorecard``): ``a < 32`` re-rolls, ``32 + k`` fills row ``k``. About 100 bytes of
state per game.
"""

from __future__ import annotations

import numpy as np

from envs.obs.scorecard import layout as obs_layout
from envs.rules.scorecard import (
    MAX_ROLLS,
    N_DICE,
    N_REROLL_ACTIONS,
    ScorecardRules,
    dice_moves,
    fill_gains,
    legal_row_mask,
    make_rules,
    score_tables,
)

# the dice moves of envs.rules.scorecard.dice_moves (ScorecardGame rolls by the same)
_RADIX, _DICE, _BY_CODE, _ACTION_BITS, _KEPT = dice_moves()


class BatchedScorecard:
    """``n`` one-player scorecard games stepped together (module docstring).

    Arrays (leading axis = game): the dice as their index in ``DICE`` (``dice_index()``;
    the property ``dice``, (n, 5) sorted int8, reads it), ``rolls_used`` (n,),
    ``open_`` (n, rows) bool, ``scores`` (n, rows) (0 where open), ``upper_sum``,
    ``bonus``, ``yahtzee_bonus`` (n,), ``yahtzee_scored`` (n,) bool. Games that finish
    stay finished (``done``) until :meth:`reset` starts them again.
    """

    def __init__(
        self,
        n: int,
        rules: str | ScorecardRules = "russian",
        seed: int | np.random.Generator | None = None,
        **options,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"the number of games must be an integer >= 1, got {n!r}")
        self.n = int(n)
        self.rules = make_rules(rules, **options)
        self.rows = self.rules.rows
        self.n_rows = len(self.rows)
        self.n_actions = N_REROLL_ACTIONS + self.n_rows
        self.tables = score_tables(self.rules)
        self.layout = obs_layout(self.rules, 1)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.draws = None  # envs.batched.draws.GameDraws: one stream per game instead of rng
        n, r = self.n, self.n_rows
        self._di = np.zeros(n, dtype=np.int16)  # DICE[0] = five ones
        self.rolls_used = np.zeros(n, dtype=np.int8)
        self.open_ = np.zeros((n, r), dtype=bool)
        self.scores = np.zeros((n, r), dtype=np.int16)
        self.upper_sum = np.zeros(n, dtype=np.int16)
        self.bonus = np.zeros(n, dtype=np.int16)
        self.yahtzee_bonus = np.zeros(n, dtype=np.int16)
        self.yahtzee_scored = np.zeros(n, dtype=bool)
        self._cache: dict[str, np.ndarray] = {}

    # -- chance -------------------------------------------------------------------------
    def draw_chance(self) -> np.ndarray:
        """``(n, 5)`` fair faces from the engine's Generator."""
        return self.rng.integers(1, 7, size=(self.n, N_DICE), dtype=np.int8)

    def _chance(self, chance: np.ndarray | None, which: np.ndarray | None = None) -> np.ndarray:
        if chance is None and self.draws is not None:  # each moving game from its own stream
            rows = np.arange(self.n) if which is None else np.flatnonzero(which)
            out = np.ones((self.n, N_DICE), dtype=np.int8)
            out[rows] = self.draws.integers(rows, 1, 7, N_DICE, np.int8)
            return out
        if chance is None:
            return self.draw_chance()
        chance = np.asarray(chance)
        if chance.shape != (self.n, N_DICE) or not np.issubdtype(chance.dtype, np.integer):
            raise ValueError(
                f"chance must be an integer array of shape ({self.n}, {N_DICE}), "
                f"got {chance.dtype} {chance.shape}"
            )
        if chance.min() < 1 or chance.max() > 6:
            raise ValueError("chance faces must be 1..6")
        return chance.astype(np.int8)

    # -- state ----------------------------------------------------------------------------
    @property
    def dice(self) -> np.ndarray:
        """``(n, 5)`` int8: each game's dice, sorted (a copy)."""
        return _DICE[self._di]

    @property
    def done(self) -> np.ndarray:
        return self._done().copy()

    def _done(self) -> np.ndarray:
        """``done`` of the present state, computed once per state (read only)."""
        if "done" not in self._cache:
            self._cache["done"] = ~self.open_.any(axis=1)
        return self._cache["done"]

    @property
    def total(self) -> np.ndarray:
        return self.scores.sum(axis=1, dtype=np.int32) + self.bonus + self.yahtzee_bonus

    @property
    def stage(self) -> np.ndarray:
        """russian: 1 while a stage-1 row is open, then 2; classic: 0."""
        if self.rules.rules == "classic":
            return np.zeros(self.n, dtype=np.int8)
        return np.where(self.open_[:, :6].any(axis=1), 1, 2).astype(np.int8)

    def dice_index(self) -> np.ndarray:
        """Index of each game's sorted dice in ``envs.rules.scorecard.DICE`` (read only)."""
        return self._di

    def legal_rows(self) -> np.ndarray:
        """``(n, rows)`` bool: rows that may be filled now (none in a finished game)."""
        if "legal" not in self._cache:
            r = self.rules
            if r.rules == "classic" and r.joker == "forced":
                # legal_row_mask is the open rows except for a Yahtzee under the forced
                # joker: ask it about those games only
                legal = self.open_.copy()
                y = np.flatnonzero(self.tables.yahtzee[self._di])
                if len(y):
                    legal[y] = legal_row_mask(r, self.open_[y], self._di[y])
            else:
                legal = legal_row_mask(r, self.open_, self._di)
            self._cache["legal"] = legal
        return self._cache["legal"]

    def gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(score, card bonus, Yahtzee bonus), each (n, rows): what filling each row now gives."""
        if "gains" not in self._cache:
            self._cache["gains"] = fill_gains(
                self.rules,
                self.open_,
                self.upper_sum,
                self.yahtzee_scored,
                self.dice_index(),
                self.rolls_used == 1,
            )
        return self._cache["gains"]

    def fill_points(self) -> np.ndarray:
        """``(n, rows)``: the whole gain of filling each legal row now (0 where illegal)."""
        score, bonus, ybonus = self.gains()
        return np.where(self.legal_rows(), score + bonus + ybonus, 0)

    def action_masks(self) -> np.ndarray:
        """``(n, 32 + rows)`` bool: the legal actions of every game."""
        return self._masks().copy()

    def _masks(self) -> np.ndarray:
        """:meth:`action_masks` of the present state, computed once per state (read only)."""
        if "mask" not in self._cache:
            mask = np.zeros((self.n, self.n_actions), dtype=bool)
            mask[:, 1:N_REROLL_ACTIONS] = ((self.rolls_used < MAX_ROLLS) & ~self._done())[:, None]
            mask[:, N_REROLL_ACTIONS:] = self.legal_rows()
            self._cache["mask"] = mask
        return self._cache["mask"]

    # -- moves ----------------------------------------------------------------------------
    def reset(self, which: np.ndarray | None = None, chance: np.ndarray | None = None) -> None:
        """Start new games in the slots ``which`` (bool (n,), default all): empty cards,
        and the first roll of five dice from ``chance``."""
        which = np.ones(self.n, dtype=bool) if which is None else np.asarray(which, dtype=bool)
        chance = self._chance(chance, which)
        self.open_[which] = True
        for a in (self.scores, self.upper_sum, self.bonus, self.yahtzee_bonus):
            a[which] = 0
        self.yahtzee_scored[which] = False
        self.rolls_used[which] = 1
        self._di[which] = _BY_CODE[_RADIX[chance[which]].sum(axis=1)]
        self._cache.clear()

    def check_actions(self, actions, which: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as an int array of shape (n,), or a ValueError naming the first bad game
        (only the games ``which`` are checked, default all)."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or not (np.issubdtype(a.dtype, np.integer) and a.dtype != bool):
            raise ValueError(
                f"actions must be an integer array of shape ({self.n},), got {a.dtype} {a.shape}"
            )
        a = a.astype(np.int64)
        mask = self._masks()
        inside = (a >= 0) & (a < self.n_actions)
        legal = inside & mask[np.arange(self.n), np.clip(a, 0, self.n_actions - 1)]
        if which is not None:
            legal |= ~np.asarray(which, dtype=bool)
        if not legal.all():
            g = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"illegal action {int(a[g])} in game {g}; legal actions there are "
                f"{np.flatnonzero(mask[g]).tolist()} (no game was advanced)"
            )
        return a

    def step(self, actions, chance: np.ndarray | None = None) -> np.ndarray:
        """Play one action in every game; returns the points each gained, (n,) int.

        Checks every action first: one illegal action raises and no game moves.
        A fill that leaves rows open starts the next turn with a roll of ``chance``.
        """
        return self.step_some(actions, None, chance)

    def step_some(
        self, actions, which: np.ndarray | None, chance: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`step` for the games ``which`` (bool (n,)) only; the others do not move
        and their actions are not read (e.g. finished games waiting for the rest)."""
        a = self.check_actions(actions, which)
        chance = self._chance(chance, which)
        if which is not None:
            a = np.where(which, a, -1)
        reroll = (a >= 0) & (a < N_REROLL_ACTIONS)
        points = np.zeros(self.n, dtype=np.int32)
        if reroll.any():
            # the kept dice's code plus the rolled dice's code: one lookup, no sort
            r = np.flatnonzero(reroll)
            ar = a[r]
            rolled = (_RADIX[chance[r]] * _ACTION_BITS[ar]).sum(axis=1)
            self._di[r] = _BY_CODE[_KEPT[self._di[r], ar] + rolled]
            self.rolls_used[r] += 1
        fill = a >= N_REROLL_ACTIONS
        if fill.any():
            g = np.flatnonzero(fill)
            row = a[fill] - N_REROLL_ACTIONS
            if "gains" in self._cache:  # observe() has them all
                score, bonus, ybonus = (part[g, row] for part in self._cache["gains"])
            else:  # only the games that fill: the same function on their rows
                parts = fill_gains(
                    self.rules,
                    self.open_[g],
                    self.upper_sum[g],
                    self.yahtzee_scored[g],
                    self.dice_index()[g],
                    self.rolls_used[g] == 1,
                )
                at = np.arange(len(g))
                score, bonus, ybonus = (part[at, row] for part in parts)
            points[g] = score + bonus + ybonus
            self.scores[g, row] = score
            self.open_[g, row] = False
            self.bonus[g] += bonus
            self.yahtzee_bonus[g] += ybonus
            upper = row < 6
            self.upper_sum[g[upper]] += score[upper]
            if self.rules.rules == "classic":
                yrow = self.rows.index("yahtzee")
                self.yahtzee_scored[g] |= (row == yrow) & (score == 50)
            going = g[self.open_[g].any(axis=1)]
            self._di[going] = _BY_CODE[_RADIX[chance[going]].sum(axis=1)]
            self.rolls_used[going] = 1
        self._cache.clear()
        return points

    # -- observation ------------------------------------------------------------------------
    def observe(self) -> np.ndarray:
        """``(n, D)`` float32: each game's observation, through the scalar env's own layout
        (``envs.obs.scorecard``)."""
        d = self.dice.astype(np.int64)
        classic = self.rules.rules == "classic"
        yahtzee = self.tables.yahtzee[self.dice_index()]
        return self.layout.encode(
            face_counts=(d[:, :, None] == np.arange(1, 7)).sum(axis=1),
            dice=d,
            rolls_used=self.rolls_used,
            open_rows=self.open_,
            stage=self.stage,
            upper_sum=self.upper_sum,
            bonus=self.bonus,
            yahtzee_scored=self.yahtzee_scored,
            joker=yahtzee & ~self.open_[:, self.rows.index("yahtzee")]
            if classic
            else np.zeros(self.n, dtype=bool),
            total=self.total,
            fill_points=self.fill_points(),
        )


__all__ = ["BatchedScorecard"]
