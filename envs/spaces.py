"""Spaces shared by the environments."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose plain ``sample()`` draws a legal action.

    Every env here rejects illegal actions with ``ValueError``, so code that
    samples the action space blindly (random exploration, SB3's ``check_env``)
    gets an action the env accepts. ``sample(mask=...)`` works as in Gymnasium;
    when no action is legal (the episode is over) it samples over all of them.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray], seed=None) -> None:
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def __reduce__(self):
        # Pickle (e.g. inside a saved model) as a plain Discrete, without the env.
        return (spaces.Discrete, (int(self.n), None, int(self.start)))

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            legal = np.asarray(self._legal_mask(), dtype=np.int8)
            if legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)
