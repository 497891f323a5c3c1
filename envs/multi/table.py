"""What the PettingZoo AEC envs share: agents ``player_i``, spaces, seeding, rendering."""

from __future__ import annotations

import copy
import warnings
from abc import abstractmethod

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from envs import games
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

    # -- illegal actions (games.IllegalActions) ------------------------------------------
    illegal = games.IllegalActions()
    _illegal_run = 0  # illegal actions in a row (illegal_action="penalize")
    _ended = False  # the episode ended on an illegal action (terminated or truncated)

    def _setup_illegal(self, options: dict) -> None:
        """Take ``illegal_action``, ``illegal_penalty`` and ``max_illegal_steps`` out of
        ``options`` (the env's keyword arguments), checked."""
        self.illegal = games.pop_illegal(options)

    def _penalty(self) -> float:
        """``illegal_penalty`` in the env's reward units (chips; points times
        ``reward_scale`` in the scorecard game)."""
        return self.illegal.penalty

    def _forfeit(self, seat: int) -> dict[int, int]:
        """What every seat gets when ``seat`` forfeits (a betting game: its stake)."""
        return {}

    def _illegal_step(self, agent: str, action: int) -> bool:
        """Play an illegal ``action`` of ``agent`` as ``illegal_action`` says; False when
        it is legal or the env raises on it (the rules raise then, changing nothing).

        ``"terminate"``: every agent terminates; the offender gets the penalty (plus its
        forfeited stake at a betting table, whose other seats get their stakes back and
        share the forfeit), as PettingZoo's ``TerminateIllegalWrapper`` (which pays the
        others 0). ``"penalize"``: nothing moves, the offender pays the penalty and stays
        to act; ``max_illegal_steps`` illegal actions in a row truncate every agent.
        """
        if self.illegal.raises or action in self._legal_actions():
            self._illegal_run = 0
            return False
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        self._illegal_run += 1
        if self.illegal.mode == "terminate":
            for seat, gain in self._forfeit(self.possible_agents.index(agent)).items():
                self.rewards[self.possible_agents[seat]] = gain
            self.terminations = dict.fromkeys(self.agents, True)
            self._ended = True
        elif self._illegal_run >= self.illegal.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
            self._ended = True
        self.rewards[agent] += self._penalty()
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()
        return True

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
        self._illegal_run, self._ended = 0, False
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
        m = self.match
        return [] if m.done or self._ended else m.game.legal_actions()

    def _agent_of(self, seat: int) -> str:
        return self.possible_agents[seat]

    def _forfeit(self, seat: int) -> dict[int, int]:
        return self.match.forfeit(seat)

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
        if not m.done and not self._ended and m.current_player == seat:
            mask[m.game.legal_actions()] = 1
        return {"observation": self._observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._action(action)
        if self._illegal_step(agent, action):  # illegal_action="terminate" or "penalize"
            return
        # raises on an illegal action, changing nothing
        payoffs = self.match.step(action)
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


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (the same checks, errors and warnings), whose
    AEC loop calls, ``last``, ``step`` and ``agent_iter``, read the env they wrap directly
    once it is reset: through the wrapper's ``__getattr__`` each attribute of a step costs
    a Python call of its own, eight a step."""

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the wrapped env's agents directly."""

    def __next__(self) -> str:
        env = self.env.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return env.agent_selection
