"""What the speed benchmarks share (a module, not a script): timers measured in turns, and
random legal actions drawn in batch."""

from __future__ import annotations

import sys
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np


def time_rounds(timers: Mapping[Hashable, Any], rounds: int) -> dict[Hashable, list]:
    """``{key: [what timer.round() returned, one per round]}``: every timer is called once a
    round, in turn, so each sees the same load, for ``rounds`` rounds after one warm-up
    round that is dropped (first forward passes, caches). The round count goes to stderr."""
    times: dict[Hashable, list] = {key: [] for key in timers}
    for r in range(rounds + 1):
        for key, timer in timers.items():
            measured = timer.round()
            if r:
                times[key].append(measured)
        print(f"round {r}/{rounds}", end="\r", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return times


def random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row, the whole batch at once (0 in a row with
    none): the ``j``-th legal action of a row, ``j`` uniform below its count of legal ones,
    found among the flat indices of the mask (one draw per row, not one per action)."""
    masks = np.asarray(masks, dtype=bool)
    k = masks.sum(axis=1)
    j = rng.integers(0, np.maximum(k, 1))
    legal = np.flatnonzero(masks)
    at = np.minimum(np.cumsum(k) - k + j, max(len(legal) - 1, 0))
    flat = legal[at] if len(legal) else np.zeros(len(k), dtype=np.int64)
    return np.where(k > 0, flat - np.arange(len(k)) * masks.shape[1], 0)
