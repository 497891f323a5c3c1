"""What the PettingZoo AEC envs share: agents ``player_i``, spaces, seeding, rendering."""

from __future__ import annotations

import copy
import warnings
from abc import abstractmethod

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from envs.spaces import to_action

# what PettingZoo's api_test passes to reset to check that it takes options (see _reset_table)
_PETTINGZOO_PROBE = {"options": 1}


class TableAEC(AECEnv):
    """A table of ``n_players`` agents ``player_0`` .. ``player_{n-1}`` (seat i is player_i).

    A subclass calls :meth:`_setup_table` in ``__init__`` and :meth:`_reset_table`
    at the start of ``reset``, and provides :meth:`render_text`. ``reset`` takes no
    options: one is a ``ValueError``, except PettingZoo's api_test probe, which warns
    (:meth:`_reset_table` says why).
    """

    def _setup_table(
        self,
        n_players: int,
        observation: spaces.Space,
        n_actions: int,
        render_mode: str | None,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.n_players = n_players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(n_players)]
        space = spaces.Dict(
            {"observation": observation, "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)}
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _reset_table(self, seed: int | None, options: dict | None = None) -> None:
        """Re-seed (when asked) and clear PettingZoo's per-agent bookkeeping.

        ``options``: none are known, and any option is a ``ValueError`` naming it, as in
        the Gymnasium envs, with one exception: PettingZoo's own ``api_test`` (and
        ``parallel_api_test``) probe ``reset(seed=0, options={"options": 1})`` and require
        it to succeed, so exactly that probe only warns.
        """
        if options and dict(options) != _PETTINGZOO_PROBE:
            raise ValueError(
                f"{self.metadata['name']}.reset takes no options, got {dict(options)!r}"
            )
        if options:
            warnings.warn(
                f"{self.metadata['name']}.reset takes no options; ignored {sorted(options)}",
                stacklevel=3,
            )
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    @abstractmethod
    def render_text(self) -> str:
        """The table as text."""

    @abstractmethod
    def render_rgb(self, labels: dict[int, str] | None = None) -> np.ndarray:
        """The table as an H×W×3 uint8 frame (``labels``: seat -> name, default player_i)."""

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __deepcopy__(self, memo: dict) -> TableAEC:
        # EzPickle (kept for pickling: a pickled env comes back new, built from its
        # arguments) would make a deep copy un-reset; a copy carries the state along.
        new = object.__new__(type(self))
        memo[id(self)] = new
        for key, value in vars(self).items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new

    @abstractmethod
    def _legal_actions(self) -> list[int]:
        """The legal actions of the agent to act."""

    def _action(self, action: object) -> int:
        """``action`` as an int (see :func:`envs.spaces.to_action`), or the ValueError."""
        return to_action(action, self._legal_actions)


class MatchAEC(TableAEC):
    """A table that plays a rules-layer match (``step(action) -> payoffs``,
    ``current_player``, ``done``): every step is one player's action, and each
    finished game pays its net chips."""

    match = None

    def _legal_actions(self) -> list[int]:
        return [] if self.match.done else self.match.game.legal_actions()

    def _agent_of(self, seat: int) -> str:
        return self.possible_agents[seat]

    @abstractmethod
    def _final_info(self) -> dict:
        """What every agent's info holds once the match is over."""

    @abstractmethod
    def _observation(self, seat: int) -> np.ndarray:
        """What ``seat`` sees now (the game's observation layout)."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        m = self.match
        mask = np.zeros(self.rules.n_actions, dtype=np.int8)
        if not m.done and m.current_player == seat:
            mask[m.game.legal_actions()] = 1
        return {"observation": self._observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # raises on an illegal action, changing nothing
        payoffs = self.match.step(self._action(action))
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        for seat, gain in payoffs.items():
            self.rewards[self._agent_of(seat)] = gain
        if self.match.done:
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = self._final_info()
        else:
            self.agent_selection = self._agent_of(self.match.current_player)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()
