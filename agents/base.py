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

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` (m, D) and ``action_masks`` (m, A).

        The default asks :meth:`act` row by row; agents that can, decide all at once.
        """
        return np.array(
            [self.act(o, m) for o, m in zip(observations, action_masks, strict=True)],
            dtype=np.int64,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Indices of the legal actions; ``ValueError`` when there are none."""
    legal = np.flatnonzero(np.asarray(action_mask, dtype=bool))
    if legal.size == 0:
        raise ValueError("the action mask allows no action (is the episode over?)")
    return legal
