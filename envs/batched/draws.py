"""One random stream per game: what ``reset(seed=[s_0, s_1, ...])`` of the batched vector
envs seeds (game ``i`` from ``s_i``, as Gymnasium's vector envs seed their sub-envs).

An engine normally draws every game's dice, cards and seats from one Generator, one call
per step for all the rows it moves (fast, and the int-seed path). With :class:`GameDraws`
set (``engine.draws``), each row draws from its own seeded ``numpy`` Generator instead, so
game ``i``'s episodes depend only on its seed and its own actions: not on the other games,
the batch size or the order the rows are asked in.

To keep that cheap, every game's Generator fills a buffer of ``block`` uniforms at a time
(``Generator.random``) and a request of ``k`` numbers per row is one gather over the rows'
buffers; only the rows whose buffer runs short go back to their Generator (one call each),
and a request longer than the buffer draws straight from the Generator. A whole number in
``low..high - 1`` is ``low + floor(u * (high - low))`` of such a uniform ``u`` (53 random
bits: the bias is below ``(high - low) / 2**53``).

:class:`RowGenerator` is the same streams seen as one Generator by a batched opponent
(``agents`` Agents draw from ``self.rng``): while an engine asks an opponent on its rows,
the opponent's ``random(size)`` and ``integers(low, high)`` take the leading axis as those
rows (``size[0]`` a multiple ``q`` of them: ``q`` consecutive rows per game), so its random
choices in a game come from that game's stream too. An opponent that draws for some of the
rows it was asked about names them with ``rng.at(positions)`` (``getattr(rng, "at", None)``:
a plain Generator has none); one whose draws fit no such reading draws them from its own
Generator, with a warning that its choices then depend on the other games.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np


class GameDraws:
    """Per-game seeded Generators behind buffered uniforms (module docstring)."""

    def __init__(
        self, seeds: Sequence[int | None], block: int = 64, keep: GameDraws | None = None
    ) -> None:
        """Game ``i`` from ``seeds[i]``; a None keeps game ``i``'s stream of ``keep`` (the
        draws it replaces, same games and block) or, without one, is a fresh unseeded one."""
        self.n = len(seeds)
        self.block = int(block)
        self.generators = [np.random.default_rng(None if s is None else int(s)) for s in seeds]
        self._buf = np.empty((self.n, self.block))
        self._at = np.full(self.n, self.block, dtype=np.int64)  # every buffer starts empty
        if keep is not None and keep.n == self.n and keep.block == self.block:
            for i, s in enumerate(seeds):
                if s is None:
                    self.generators[i] = keep.generators[i]
                    self._buf[i], self._at[i] = keep._buf[i], keep._at[i]

    def uniform(self, rows: np.ndarray, k: int) -> np.ndarray:
        """``(len(rows), k)`` uniforms in [0, 1), row ``j`` from game ``rows[j]``'s stream."""
        rows = np.asarray(rows, dtype=np.int64)
        if k > self.block:  # longer than a buffer: straight from each game's Generator
            out = np.empty((len(rows), k))
            for j, g in enumerate(rows.tolist()):
                out[j] = self.generators[g].random(k)
            return out
        short = rows[self._at[rows] + k > self.block]
        for g in short.tolist():  # refill (what was left of the buffer is not used)
            self._buf[g] = self.generators[g].random(self.block)
            self._at[g] = 0
        at = self._at[rows]
        out = self._buf[rows[:, None], at[:, None] + np.arange(k)]
        self._at[rows] = at + k
        return out

    def integers(self, rows: np.ndarray, low: Any, high: Any, k: int, dtype=np.int64) -> np.ndarray:
        """``(len(rows), k)`` whole numbers in ``low..high - 1`` (``low``/``high`` scalars or
        one per row)."""
        u = self.uniform(rows, k)
        m = len(u)
        low = np.broadcast_to(np.asarray(low, dtype=np.int64), (m,))[:, None]
        span = np.broadcast_to(np.asarray(high, dtype=np.int64), (m,))[:, None] - low
        return (low + np.floor(u * span).astype(np.int64)).astype(dtype)


class RowGenerator:
    """``draws`` at ``rows`` as one Generator for a batched opponent (module docstring):
    ``random`` and ``integers`` read the leading axis as the rows; anything else (e.g.
    ``spawn``) is the opponent's own Generator's."""

    def __init__(self, draws: GameDraws, rows: np.ndarray, own: np.random.Generator) -> None:
        self._draws, self._rows, self._own = draws, np.asarray(rows, dtype=np.int64), own

    def at(self, positions: np.ndarray) -> RowGenerator:
        """The same streams for the rows at ``positions`` of those it was asked about."""
        return RowGenerator(self._draws, self._rows[np.asarray(positions)], self._own)

    def _per_row(self, size: Any) -> tuple[tuple[int, ...], int] | None:
        """``(shape, numbers per game)``, None where ``size`` is not rows first."""
        shape = (size,) if isinstance(size, int | np.integer) else tuple(size or ())
        m = len(self._rows)
        if not shape or m == 0 or shape[0] % m:
            warnings.warn(
                f"an opponent drew random numbers of shape {shape} while asked for {m} "
                f"games: they come from its own Generator, so with a per-game seed list its "
                f"choices depend on the other games (draw one row per game, or name the "
                f"rows with rng.at(positions))",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        return shape, shape[0] // m * int(np.prod(shape[1:], dtype=np.int64))

    def random(self, size: Any = None) -> np.ndarray:
        per = self._per_row(size)
        if per is None:
            return self._own.random(size)
        return self._draws.uniform(self._rows, per[1]).reshape(per[0])

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype=np.int64):
        if high is None:
            low, high = 0, low
        m = len(self._rows)
        per = self._per_row((m,) if size is None else size)
        if per is None or per[0] != (m,):  # one per game only
            if per is not None:
                self._per_row(())  # warns
            return self._own.integers(low, high, size=size, dtype=dtype)
        return self._draws.integers(self._rows, low, high, 1, dtype).reshape(m)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._own, name)


class CoreDraws:
    """``draws`` of a single-agent engine: its ``core``'s (the engine that rolls and deals)."""

    @property
    def draws(self) -> GameDraws | None:
        return self.core.draws

    @draws.setter
    def draws(self, value: GameDraws | None) -> None:
        self.core.draws = value


@contextmanager
def opponent_rows(opponent: Any, draws: GameDraws | None, rows: np.ndarray) -> Iterator[None]:
    """While asking ``opponent`` on ``rows``: its ``rng`` (an Agent's) is the rows' streams
    (nothing changes without ``draws``, or for an opponent without an ``rng``)."""
    own = getattr(opponent, "rng", None) if draws is not None else None
    if not isinstance(own, np.random.Generator):
        yield
        return
    opponent.rng = RowGenerator(draws, rows, own)
    try:
        yield
    finally:
        opponent.rng = own


__all__ = ["CoreDraws", "GameDraws", "RowGenerator", "opponent_rows"]
