"""Card-poker players with one fixed habit: known weaknesses for a best response to find.

- :class:`AlwaysPass` stands pat in the draw and passes (folds) at its first bet.
- :class:`AlwaysMax` stands pat in the draw and bids the most it may, every turn; when it
  may bid no more it reveals, and passes only when it cannot even pay to reveal.

Neither reads its cards, so a best response beats them by reading its own: against
``AlwaysPass`` never fold, against ``AlwaysMax`` fold the weak hands and see the strong
ones. ``tests/train/test_best_response.py`` holds that ``train/best_response.py`` learns
that. They are not in the registry (not a player anyone would seat on purpose); pass an
instance where an agent is taken, e.g. ``best_response(..., against=AlwaysMax())``.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs import games
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL, CardPokerRules


class _Habit(Agent):
    def __init__(self, game: str = "card_poker", **rules) -> None:
        super().__init__()
        self.rules = games.rules_for(game, CardPokerRules, type(self).__name__, **rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])


class AlwaysPass(_Habit):
    """Stands pat (action 0) in the draw, passes in the betting."""

    name = "always_pass"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        return np.where(masks[:, PASS], PASS, 0).astype(np.int64)


class AlwaysMax(_Habit):
    """Stands pat in the draw; bids the highest legal bid, else reveals, else passes."""

    name = "always_max"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        bids = masks[:, FIRST_BID:]
        top = FIRST_BID + bids.shape[1] - 1 - bids[:, ::-1].argmax(axis=1)
        betting = masks[:, PASS]  # passing is legal exactly in the betting
        out = np.where(bids.any(axis=1), top, np.where(masks[:, REVEAL], REVEAL, PASS))
        return np.where(betting, out, 0).astype(np.int64)


__all__ = ["AlwaysMax", "AlwaysPass"]
