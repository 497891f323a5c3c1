"""The masked random agent: a uniformly random legal action."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions
from envs.rules.card_poker import CardPokerRules


class RandomAgent(Agent):
    name = "random"

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

    def table_policy(self, core):
        """``act(rows)``: :meth:`act_batch` at the tables ``rows`` of a batched engine that
        keeps each table's turn state as an id with a legal set per state (the dice tables:
        ``core.state_ids``, ``core.legal_by_state``; None elsewhere), without a mask gathered:
        the per-state count of legal actions and their list in ascending order are
        compiled once, and the draw is the same ``integers(0, counts)``, so the choices and
        the Generator's state are those of :meth:`act_batch` on the same masks."""
        legal = getattr(core, "legal_by_state", None)
        if legal is None:
            return None
        width = legal.shape[1]
        counts = legal.sum(axis=1).astype(np.int64)
        listed = np.argsort(~legal, axis=1, kind="stable").reshape(-1)  # legal ones first

        def act(rows: np.ndarray) -> np.ndarray:
            sid = core.state_ids[rows].astype(np.int64)
            return listed[sid * width + self.rng.integers(0, counts[sid])]

        return act

    def game_policy(self, rules):
        """``policy(game) -> int``: :meth:`act` for the player to act in an
        ``envs.rules.card_poker.CardPokerGame`` (the shortcut ``CardPoker-v0`` takes), read
        from the game's legal actions (ascending, as the mask lists them) instead of an
        encoded observation and a mask: ``choice`` over ``k`` of them draws
        ``integers(0, k)``, and so does the policy, so the same pick and the same Generator
        state (the generator is new each deal: binding its ctypes interface for
        :func:`envs.rules.dice.below_drawer` would cost more than the draws it saves).
        None for the other games."""
        if not isinstance(rules, CardPokerRules):
            return None
        return _RandomGamePolicy(self)


class _RandomGamePolicy:
    """:meth:`RandomAgent.game_policy` (a class, so that an env holding it pickles and
    copies)."""

    def __init__(self, agent: RandomAgent) -> None:
        self.agent = agent

    def __call__(self, game) -> int:
        legal = game._legal_now()
        if len(legal) == 1:
            return legal[0]  # integers(0, 1) draws nothing
        return legal[int(self.agent.rng.integers(len(legal)))]
