"""The games in the forms Ray RLlib's new API stack samples from (``train/rllib.py``).

Needs the ``[rllib]`` extra (``pip install -e ".[rllib]"``); nothing else imports this module.

Every observation is RLlib's masked form ``{"observations": Box, "action_mask": Box(0, 1)}``
(float32 mask), which ``agents.rllib.MaskedPPOModule`` reads.

- :class:`NextStepVectorEnv`: a batched engine (:func:`envs.vector.make_engine`) as a
  Gymnasium ``VectorEnv`` with **next-step** autoreset. RLlib's ``SingleAgentEnvRunner``
  assumes that mode: after a finished game it takes the next ``step`` result as the reset
  of that slot. The project's :class:`envs.vector.BatchedVectorEnv` resets in the same
  step (SB3's convention), which RLlib would read as losing the first move of every game,
  so this class holds a finished game for one step: the finished slot returns its last
  observation with ``terminated`` (or ``truncated``), and the next ``step`` starts it anew,
  ignoring its action and paying 0. ``reset(seed=...)`` is the batched vector env's
  (:func:`envs.vector.seed_engine`: an int, or game ``i`` from ``seed[i]``; a bad seed is
  one ``ValueError``). ``illegal_action``, ``illegal_penalty`` and ``max_illegal_steps``
  are every env's (:class:`envs.games.IllegalActions`), applied as the batched vector env
  applies them: a game with an illegal action does not move and, under ``"terminate"``,
  ends with the penalty (less its stake at a betting table), under ``"penalize"`` pays it
  and is truncated after ``max_illegal_steps`` in a row; ``infos["illegal_action"]``
  (``"_illegal_action"``) marks them. The finished games' actions are never read.
- :class:`MaskedObs`: one scalar Gymnasium env in the masked form (for ids without a
  batched engine; RLlib vectorises it with Gymnasium's ``SyncVectorEnv``, next-step too).
- :class:`TurnTable`: a PettingZoo AEC env (``envs.multi.*_v0``) as an RLlib
  ``MultiAgentEnv``. Only the seat to act gets an observation. Rewards earned while a
  seat waits are paid with its next observation; when the match ends every seat that has
  acted gets its last observation, what it is owed and ``terminated``. (A seat that never
  acted in an episode took no decision and is left out of it: RLlib cannot start an
  agent's episode on a terminal observation.)
- :func:`make_env`: the creator ``train/rllib.py`` hands RLlib, built from ``env_config``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from envs import games, seat_options
from envs.vector import IllegalSteps, make_engine, seed_engine

# Table options of the single-agent envs that an AEC table (every seat an agent) does not take.
SINGLE_AGENT_ONLY = ("opponents", "agent_seat", "reward_scale")


def masked_space(observation: gym.Space, n_actions: int) -> gym.spaces.Dict:
    """RLlib's masked observation space over ``observation``."""
    mask = gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32)
    return gym.spaces.Dict({"observations": observation, "action_mask": mask})


class NextStepVectorEnv(VectorEnv):
    """A batched engine with next-step autoreset and masked observations (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int = 1, seed: int | None = None, **options):
        illegal = games.pop_illegal(options)
        self.engine, inner, self.reward_scale = make_engine(env_id, num_envs, seed=seed, **options)
        self._illegal = IllegalSteps(illegal, self.engine.n)
        self.num_envs = self.engine.n
        n_actions = self.engine.n_actions
        self.single_observation_space = masked_space(inner, n_actions)
        self.single_action_space = gym.spaces.Discrete(n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.spec = None
        self._ended = np.zeros(self.num_envs, dtype=bool)

    def _observe(self) -> dict[str, np.ndarray]:
        mask = self.engine.action_masks().astype(np.float32)
        return {"observations": self.engine.observe(), "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"reset takes no options, got {options!r}")
        seed_engine(self.engine, seed)  # checked: the dice and cards, and the opponents
        self.engine.reset()
        self._ended[:] = False
        self._illegal.run[:] = 0
        return self._observe(), {}

    def step(self, actions):
        actions = np.asarray(actions)  # not cast: a float action is an error, not a move
        if actions.size == self.num_envs:
            actions = actions.reshape(self.num_envs)
        ended, live = self._ended, ~self._ended
        # every running game's action is checked before a finished one is reset, so a bad
        # action anywhere moves nothing (the finished games' actions are not read)
        infos: dict[str, Any] = {}
        if self._illegal.illegal.raises:
            self.engine.check_actions(actions, live)
            if ended.any():
                self.engine.reset(ended)
            rewards = np.zeros(self.num_envs)
            if live.any():
                rewards = np.where(live, self.engine.step_some(actions, live), 0)
            done = self.engine.done & live
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            at, illegal = self._illegal.judge(self.engine, actions, live)
            if ended.any():
                self.engine.reset(ended)
            rewards, done, truncated, illegal = self._illegal.settle(self.engine, at, illegal, live)
            if illegal.any():
                infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        self._ended = done | truncated
        rewards = rewards * self.reward_scale
        return self._observe(), rewards.astype(np.float32), done, truncated, infos


class MaskedObs(gym.Wrapper):
    """One env whose observations carry its ``action_masks()`` (RLlib's masked form)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = masked_space(env.observation_space, env.action_space.n)
        self.action_space = gym.spaces.Discrete(env.action_space.n)

    def _masked(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        mask = np.asarray(self.env.unwrapped.action_masks(), dtype=np.float32)
        return {"observations": obs, "action_mask": mask}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._masked(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        return self._masked(obs), reward, terminated, truncated, info


class TurnTable(MultiAgentEnv):
    """A PettingZoo AEC table as an RLlib ``MultiAgentEnv`` (module docstring)."""

    def __init__(self, game: str, **options: Any) -> None:
        super().__init__()
        record = games.get(game)
        wrong = sorted(set(options) & set(SINGLE_AGENT_ONLY))
        if wrong:
            raise ValueError(
                f"option(s) {wrong} belong to the single-agent env; at a self-play table "
                f"every seat is an agent"
            )
        self.aec = import_module(record.aec_module).env(**{**record.aec_kwargs, **options})
        self.aec.reset()
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        first = self.possible_agents[0]
        space = self.aec.observation_space(first)
        n_actions = self.aec.action_space(first).n
        one = masked_space(space["observation"], n_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, one)
        self.action_spaces = {a: gym.spaces.Discrete(n_actions) for a in self.possible_agents}
        self._owed: dict[str, float] = {}
        self._acted: set[str] = set()

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        o = self.aec.observe(agent)
        return {
            "observations": np.asarray(o["observation"], dtype=np.float32),
            "action_mask": np.asarray(o["action_mask"], dtype=np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._owed = dict.fromkeys(self.possible_agents, 0.0)
        self._acted = set()
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]):
        agent = self.aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s turn; got actions for {sorted(action_dict)}")
        self.aec.step(int(action_dict[agent]))
        self._acted.add(agent)
        for a, r in self.aec.rewards.items():
            self._owed[a] += float(r)
        if all(self.aec.terminations.values()):
            seats = [a for a in self.possible_agents if a in self._acted]
            obs = {a: self._observe(a) for a in seats}
            rewards = {a: self._owed[a] for a in seats}
            terminated = {**dict.fromkeys(seats, True), "__all__": True}
            self.agents = []
            return obs, rewards, terminated, {"__all__": False}, {}
        nxt = self.aec.agent_selection
        reward, self._owed[nxt] = self._owed[nxt], 0.0
        return {nxt: self._observe(nxt)}, {nxt: reward}, {"__all__": False}, {"__all__": False}, {}


def make_env(config: dict):
    """The creator ``train/rllib.py`` registers: ``config`` is RLlib's env context with
    ``kind`` ("vector": a batched engine, "single": one Gymnasium env, "table": every seat
    an agent), ``env_id``, ``game``, ``kwargs``, and ``num_envs`` when RLlib asks for a
    vector env."""
    kwargs = dict(config["kwargs"])
    kind = config["kind"]
    if kind == "vector":  # agent specs in kwargs resolved one floor up, as gym.make_vec does
        kwargs = seat_options(config["env_id"], kwargs, batched=True)
        return NextStepVectorEnv(config["env_id"], config.get("num_envs", 1), **kwargs)
    if kind == "single":
        return MaskedObs(gym.make(config["env_id"], **kwargs))
    if kind == "table":
        return TurnTable(config["game"], **kwargs)
    raise ValueError(f"env kind must be 'vector', 'single' or 'table', got {kind!r}")


__all__ = ["MaskedObs", "NextStepVectorEnv", "TurnTable", "make_env", "masked_space"]
