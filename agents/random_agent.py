"""The masked random agent: a uniformly random legal action."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions


class RandomAgent(Agent):
    name = "random"

    def __init__(self, game: str | None = None, **rules) -> None:
        # The rules do not change what "uniform over the legal actions" means.
        super().__init__()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(legal_actions(action_mask)))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per row, all rows at once."""
        masks = np.asarray(action_masks, dtype=bool)
        if masks.ndim != 2 or not masks.any(axis=1).all():
            raise ValueError("every row of the action masks must allow an action")
        return np.where(masks, self.rng.random(masks.shape), -1.0).argmax(axis=1)
