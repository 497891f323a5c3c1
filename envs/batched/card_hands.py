"""Card hands in batch: an ``(N, 5)`` array of hands valued at table speed.

:class:`BatchedHandEvaluator` reads the table of :class:`envs.rules.card_hands.HandEvaluator`
(every 5-card hand of the variant's deck, valued once by the rules) and nothing else: a
hand is sorted by a 9-comparator network over its columns, its combination index is the
sum of five binomial lookups (the evaluator's own ``binom``), and its strength one more
lookup. No rule is re-derived here, so the batch and the scalar evaluator cannot differ.
Every variant (36 or 54 cards, every option) works, since each has its own table.

Rows are processed in chunks that stay in cache; about 25-35M hands/s on one core of
the development machine (``benchmarks/batched_speed.py``).
"""

from __future__ import annotations

import numpy as np

from envs.rules.card_hands import HandEvaluator, get_evaluator

# An optimal sorting network for five values (checked on all 120 orders by the tests).
SORT5 = ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2))
_CHUNK = 1 << 15


class BatchedHandEvaluator:
    """The strengths of many hands at once (module docstring).

    Build from rule options (``BatchedHandEvaluator(deck=54)``) or from a
    ``HandEvaluator`` (``BatchedHandEvaluator.of(rules.evaluator)``). Strengths are
    those of ``HandEvaluator.strength``: dense, 0 the weakest, equal hands equal.
    """

    def __init__(self, evaluator: HandEvaluator | None = None, **variant) -> None:
        ev = evaluator if evaluator is not None else get_evaluator(**variant)
        if evaluator is not None and variant:
            raise ValueError("give an evaluator or variant options, not both")
        if ev.n_strengths > np.iinfo(np.int16).max:
            raise AssertionError("strengths no longer fit int16")
        self.evaluator = ev
        self.deck = ev.deck
        self.size = ev.deck.size
        self.table = ev.table.astype(np.int16)
        self._binom = [ev.binom[k + 1].astype(np.int32) for k in range(5)]
        # per strength: the category's place in the variant's order, and the percentile
        self.place = np.array([ev.order.index(c) for c in ev.categories], dtype=np.int8)
        self.percentile = ev.percentile

    @classmethod
    def of(cls, evaluator: HandEvaluator) -> BatchedHandEvaluator:
        return cls(evaluator)

    # -- hands given sorted ------------------------------------------------------------
    def combo_index(self, columns) -> np.ndarray:
        """Row of :attr:`table` of hands given as five columns (or an (N, 5) array),
        each row sorted ascending."""
        if isinstance(columns, np.ndarray) and columns.ndim == 2:
            columns = [columns[:, k] for k in range(5)]
        idx = np.take(self._binom[0], columns[0])
        for k in range(1, 5):
            idx += np.take(self._binom[k], columns[k])
        return idx

    def sorted_strengths(self, hands: np.ndarray) -> np.ndarray:
        """Strengths of an ``(N, 5)`` array whose rows are sorted ascending (unchecked)."""
        return np.take(self.table, self.combo_index(hands))

    # -- any hands ---------------------------------------------------------------------
    def strengths(self, hands, check: bool = True) -> np.ndarray:
        """Strengths (int16) of an ``(N, 5)`` integer array of deck indices, rows in any
        order. With ``check`` (the default), anything but five distinct cards of the deck
        per row is a ``ValueError`` naming the first bad row."""
        hands = np.asarray(hands)
        if hands.ndim != 2 or hands.shape[1] != 5 or not _is_int(hands):
            raise ValueError(
                f"hands must be an integer array of shape (N, 5), got {hands.dtype} {hands.shape}"
            )
        if check and hands.size and (hands.min() < 0 or hands.max() >= self.size):
            bad = int(np.flatnonzero(((hands < 0) | (hands >= self.size)).any(axis=1))[0])
            raise ValueError(
                f"hand {bad} is {hands[bad].tolist()}: cards are deck indices 0..{self.size - 1}"
            )
        t = hands.astype(np.int8).T  # (5, N): column-wise operations
        out = np.empty(len(hands), dtype=np.int16)
        for start in range(0, len(hands), _CHUNK):
            cols = [t[k, start : start + _CHUNK].copy() for k in range(5)]
            for a, b in SORT5:
                low = np.minimum(cols[a], cols[b])
                np.maximum(cols[a], cols[b], out=cols[b])
                cols[a] = low
            if check:
                same = np.zeros(len(cols[0]), dtype=bool)
                for k in range(4):
                    same |= cols[k] == cols[k + 1]
                if same.any():
                    bad = start + int(np.flatnonzero(same)[0])
                    raise ValueError(
                        f"hand {bad} is {hands[bad].tolist()}: a hand is five distinct cards"
                    )
            out[start : start + _CHUNK] = np.take(self.table, self.combo_index(cols))
        return out


def _is_int(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.integer) and a.dtype != bool


__all__ = ["SORT5", "BatchedHandEvaluator"]
