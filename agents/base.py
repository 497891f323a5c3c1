"""The Agent protocol: anything that picks an action from an observation and a mask."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """An agent sees only what a player may see: the observation and the legal-action mask.

    Environments call :meth:`seed` from their own seeded generator, so a whole
    trajectory is reproducible even when agents randomise.
    """

    name: str = "agent"

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int | None = None) -> None:
        """Re-seed the agent's own random generator."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Return a legal action (``action_mask[action]`` is True)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Indices of the legal actions; ``ValueError`` when there are none."""
    legal = np.flatnonzero(np.asarray(action_mask, dtype=bool))
    if legal.size == 0:
        raise ValueError("the action mask allows no action (is the episode over?)")
    return legal
