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
