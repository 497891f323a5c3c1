"""The masked random agent: a uniformly random legal action."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions


class RandomAgent(Agent):
    name = "random"
    reads_observations = False  # batched tables need not encode observations for it

    def __init__(self, game: str | None = None, **rules) -> None:
        # The rules do not change what "uniform over the legal actions" means.
        super().__init__()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(legal_actions(action_mask)))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """What :meth:`act` chooses row after row, drawn at once.

        "The same choice" for a random player: from the same Generator state the batch
        picks exactly what ``act`` would pick on the rows in order, and leaves the
        Generator in the same state (``choice`` over ``k`` legal actions draws
        ``integers(0, k)``; one vectorised ``integers(0, ks)`` draws the same numbers).
        """
        masks = np.asarray(action_masks, dtype=bool)
        if masks.ndim != 2:
            raise ValueError(f"action_masks must be (m, A), got shape {masks.shape}")
        k = masks.sum(axis=1)
        if (k == 0).any():
            row = int(np.flatnonzero(k == 0)[0])
            raise ValueError(f"the action mask of row {row} allows no action (is it over?)")
        j = self.rng.integers(0, k)
        starts = np.cumsum(k) - k
        return np.flatnonzero(masks)[starts + j] - np.arange(len(k)) * masks.shape[1]
