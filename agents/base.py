"""The Agent protocol: anything that picks an action from an observation and a mask."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents.seeding import seeded_generator

#: What a ``table_policy`` returns: ``act(rows) -> actions`` at a dice engine
#: (``BatchedDicePoker``: the player to act at each of the tables ``rows``), or
#: ``act(tables, seats) -> actions`` at a card engine (``BatchedCardPoker``: the seat
#: ``seats[i]`` to move at table ``tables[i]``); int64 arrays, one action per row.
TableAct = Callable[..., np.ndarray]


@runtime_checkable
class TablePolicy(Protocol):
    """The shortcut a batched engine takes past the observation and the mask.

    An engine seating an opponent asks ``opponent.table_policy(core)`` once, with ``core``
    the engine (``envs.batched.dice_poker.BatchedDicePoker``, or
    ``envs.batched.card_poker.BatchedCardPoker``, the core under ``BatchedCardPokerTable``).
    The answer is None (no shortcut for these rules: the engine gathers observations and
    masks for ``act_batch``) or a :data:`TableAct` bound to choose exactly what
    ``act_batch(observations, masks)`` would on the same rows, including the draws from the
    agent's Generator.

    The act reads only the engine's public view: the dice engine's ``state_ids`` (the turn
    state of the player to act), ``legal_by_state``, ``turns``, ``rules``, ``best``,
    ``best_count``, ``round_len``, ``turn``, ``rolls_used``; the card engine's ``rules``,
    ``hands``, ``phase``, ``strength``, ``hands_eval``, ``in_play``, ``drawn``,
    ``bids_made``, ``pot``, ``level``, ``n_players`` and ``action_masks(tables)``.
    It never writes to the engine.
    """

    def table_policy(self, core: Any) -> TableAct | None: ...


class Agent(ABC):
    """An agent sees only what a player may see: the observation and the legal-action mask.

    Environments call :meth:`seed` from their own seeded generator, so a whole
    trajectory is reproducible even when agents randomise.
    """

    name: str = "agent"
    # The generator is made when first used: an env re-seeds its opponents at every reset,
    # and most of them never draw (the same stream as making it at once from the seed).
    _rng: np.random.Generator | None = None
    _rng_seed: object = None

    def __init__(self) -> None:
        self._rng = None
        self._rng_seed = None

    @property
    def rng(self) -> np.random.Generator:
        """The agent's own random generator."""
        if self._rng is None:
            self._rng = seeded_generator(self._rng_seed)  # default_rng(seed), cheaper
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def seed(self, seed: int | None = None) -> None:
        """Re-seed the agent's own random generator."""
        self._rng = None
        self._rng_seed = seed

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


class DecisionMemo:
    """An agent's answers, kept by what its ``act`` reads: the observation's entries at
    ``fields`` and the mask. Only for an ``act`` that is a pure function of them (no random
    draws, no state that changes), so a looked-up answer is the answer ``act`` would give;
    a single env asks its opponents again and again in the same few situations."""

    def __init__(self, fields, limit: int = 1 << 17) -> None:
        self.fields = np.asarray(fields, dtype=np.intp)
        self.limit = limit
        self.answers: dict[tuple, int] = {}

    def key(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple:
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
        if obs.ndim != 1 or obs.shape[0] <= self.fields[-1]:
            return ()  # not one observation of this layout: act decides (and raises)
        return (
            obs.dtype.char,
            obs.shape,
            obs[self.fields].tobytes(),
            mask.dtype.char,
            mask.shape,
            mask.tobytes(),
        )

    def act(self, act, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """``act(observation, action_mask)``, looked up when seen before."""
        key = self.key(observation, action_mask)
        answer = self.answers.get(key) if key else None
        if answer is None:
            answer = act(observation, action_mask)
            if key:
                if len(self.answers) >= self.limit:
                    self.answers.clear()
                self.answers[key] = answer
        return answer
