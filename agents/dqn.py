"""A mask-aware DQN on stable-baselines3's ``DQN``, and its models as Agents:
``make_agent("dqn:path/to/model.zip", game=...)``.

SB3's ``DQN`` (and sb3-contrib's ``QRDQN``) know nothing of action masks: they explore and
act over every action and bootstrap from the largest Q of the next state, legal or not, so
they train here only with ``illegal_action="terminate"``. :class:`MaskableDQN` is the same
algorithm with the masks of sb3-contrib's ``MaskablePPO`` (``get_action_masks`` of the env,
``predict(..., action_masks=...)``):

- exploration (the random warm-up before ``learning_starts`` and each epsilon draw) picks
  uniformly among the legal actions, and the greedy action is the legal one of the
  largest Q; the epsilon coin is tossed per game (SB3's ``DQN`` tosses one for the whole
  batch). These draws come from the model's own ``numpy`` Generator, seeded by ``seed``;
- the TD target takes its max over the next state's legal actions only:
  :class:`MaskableReplayBuffer` stores each transition's next-state mask beside it (a
  terminal next state's mask is never read; it is stored as all legal);
- ``double_q=True`` picks the next action by the online network and values it by the
  target network (Double DQN), both among the legal actions.

Everything else (replay, target updates, schedules, ``save``/``load``, callbacks) is SB3's.
It needs an env with ``action_masks()`` (every env of the project; the batched
:class:`agents.tables.BatchedVecEnv` too) and trains with ``illegal_action="raise"``, so an
illegal action would stop it at once. SB3's ``n_steps`` returns are not supported (they
need SB3's own n-step buffer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import ReplayBuffer
from torch.nn import functional as F

from agents.base import Agent
from agents.model_files import batch_of, check_game, load_sb3_zip

#: The info key under which :class:`MaskableDQN` hands each transition's next-state mask
#: to :class:`MaskableReplayBuffer` (SB3's buffers read the timeouts from the infos too).
NEXT_MASK = "next_action_mask"


class MaskableReplayBufferSamples(NamedTuple):
    """SB3's ``ReplayBufferSamples`` with the next states' legal actions."""

    observations: th.Tensor
    actions: th.Tensor
    next_observations: th.Tensor
    dones: th.Tensor
    rewards: th.Tensor
    next_action_masks: th.Tensor  # (batch, n_actions) bool


class MaskableReplayBuffer(ReplayBuffer):
    """SB3's ``ReplayBuffer`` that also keeps the next state's action mask of every
    transition (from ``infos[i]["next_action_mask"]``; all legal where an info has none)."""

    def __init__(self, buffer_size: int, observation_space, action_space, *args, **kwargs):
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"MaskableReplayBuffer needs Discrete actions, got {action_space}")
        super().__init__(buffer_size, observation_space, action_space, *args, **kwargs)
        self.next_action_masks = np.ones((self.buffer_size, self.n_envs, action_space.n), bool)

    def add(self, obs, next_obs, action, reward, done, infos) -> None:
        row = self.next_action_masks[self.pos]  # before super().add moves pos on
        row[:] = True
        for i, info in enumerate(infos):
            if info.get(NEXT_MASK) is not None:
                row[i] = info[NEXT_MASK]
        super().add(obs, next_obs, action, reward, done, infos)

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableReplayBufferSamples:
        # SB3's ReplayBuffer._get_samples, with the masks read at the same (step, env) cells
        env_indices = np.random.randint(0, high=self.n_envs, size=(len(batch_inds),))
        if self.optimize_memory_usage:
            next_obs = self.observations[(batch_inds + 1) % self.buffer_size, env_indices, :]
        else:
            next_obs = self.next_observations[batch_inds, env_indices, :]
        timeouts = self.timeouts[batch_inds, env_indices]
        data = (
            self._normalize_obs(self.observations[batch_inds, env_indices, :], env),
            self.actions[batch_inds, env_indices, :],
            self._normalize_obs(next_obs, env),
            (self.dones[batch_inds, env_indices] * (1 - timeouts)).reshape(-1, 1),
            self._normalize_reward(self.rewards[batch_inds, env_indices].reshape(-1, 1), env),
        )
        masks = th.as_tensor(self.next_action_masks[batch_inds, env_indices], device=self.device)
        return MaskableReplayBufferSamples(*map(self.to_torch, data), masks)


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One action per row of ``masks`` (n, A), uniform among that row's legal actions."""
    u = rng.random(masks.shape)
    return np.where(masks, u, -1.0).argmax(axis=1)


class MaskableDQN(DQN):
    """SB3's ``DQN`` that explores, acts and bootstraps among the legal actions only
    (module docstring). Takes every argument of ``DQN`` and ``double_q`` (default False)."""

    def __init__(self, policy, env, *args, double_q: bool = False, **kwargs) -> None:
        buffer = kwargs.get("replay_buffer_class") or MaskableReplayBuffer
        if not (isinstance(buffer, type) and issubclass(buffer, MaskableReplayBuffer)):
            raise ValueError(
                f"MaskableDQN's replay_buffer_class must be MaskableReplayBuffer (or a "
                f"subclass), got {buffer!r}: the TD target needs the next states' masks"
            )
        kwargs["replay_buffer_class"] = buffer
        if kwargs.get("n_steps", 1) != 1:
            raise ValueError(f"MaskableDQN supports n_steps=1 only, got {kwargs['n_steps']!r}")
        self.double_q = bool(double_q)
        self.mask_rng = np.random.default_rng()
        super().__init__(policy, env, *args, **kwargs)

    def set_random_seed(self, seed: int | None = None) -> None:
        """SB3's seeding, and the Generator of the masked exploration from the same seed."""
        super().set_random_seed(seed)
        self.mask_rng = np.random.default_rng(seed)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "mask_rng"]  # remade from seed on load

    def _setup_learn(self, *args, **kwargs):
        if not is_masking_supported(self.env):
            raise ValueError(
                f"MaskableDQN needs an env with action_masks() (as MaskablePPO does); "
                f"{type(self.env).__name__} has none"
            )
        return super()._setup_learn(*args, **kwargs)

    # -- acting ---------------------------------------------------------------------------

    def predict(
        self,
        observation: np.ndarray,
        state: tuple[np.ndarray, ...] | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
        """The legal action of the largest Q for each observation (one ``(D,)`` or a batch
        ``(n, D)``); unless ``deterministic``, with probability ``exploration_rate`` a
        uniformly drawn legal one instead. ``action_masks`` (A,) or (n, A); None: every
        action is legal (as ``MaskablePPO.predict``)."""
        self.policy.set_training_mode(False)
        obs, vectorized = self.policy.obs_to_tensor(observation)
        n, n_actions = len(obs), int(self.action_space.n)
        if action_masks is None:
            masks = np.ones((n, n_actions), dtype=bool)
        else:
            masks = np.asarray(action_masks, dtype=bool)
            if masks.size != n * n_actions:
                raise ValueError(
                    f"action_masks of shape {masks.shape} for {n} observation(s) of "
                    f"{n_actions} actions: expected ({n}, {n_actions})"
                )
            masks = masks.reshape(n, n_actions)
        empty = np.flatnonzero(~masks.any(axis=1))
        if empty.size:
            raise ValueError(f"action_masks row {int(empty[0])} allows no action (is a game over?)")
        with th.no_grad():
            q = self.q_net(obs).masked_fill(~th.as_tensor(masks, device=obs.device), -th.inf)
        actions = q.argmax(dim=1).cpu().numpy()
        if not deterministic and self.exploration_rate > 0:
            explore = self.mask_rng.random(n) < self.exploration_rate
            if explore.any():
                actions[explore] = random_legal(self.mask_rng, masks[explore])
        return (actions if vectorized else actions[0]), state

    def _sample_action(self, learning_starts: int, action_noise=None, n_envs: int = 1):
        masks = get_action_masks(self.env)
        if self.num_timesteps < learning_starts:  # the warm-up: uniform among legal actions
            actions = random_legal(self.mask_rng, masks)
        else:
            actions, _ = self.predict(self._last_obs, deterministic=False, action_masks=masks)
        return actions, actions

    def _store_transition(self, replay_buffer, buffer_action, new_obs, reward, dones, infos):
        # The env's masks now are those of new_obs; where a game ended, of the next game's
        # first state, so its own last state's mask comes from its info (a truncated game
        # bootstraps from it; a terminated one never reads it).
        masks = np.asarray(get_action_masks(self.env), dtype=bool).copy()
        for i in np.flatnonzero(dones):
            last = infos[i].get("action_mask")
            masks[i] = last if last is not None and np.any(last) else True
        infos = [{**info, NEXT_MASK: masks[i]} for i, info in enumerate(infos)]
        super()._store_transition(replay_buffer, buffer_action, new_obs, reward, dones, infos)

    # -- learning -------------------------------------------------------------------------

    def td_target(self, data: MaskableReplayBufferSamples) -> th.Tensor:
        """``r + gamma * (1 - done) * max_a' Q_target(s', a')`` over the legal ``a'`` of
        ``s'`` (Double DQN: ``a'`` the online network's legal argmax), shape (batch, 1)."""
        legal = data.next_action_masks.bool()
        with th.no_grad():
            next_q = self.q_net_target(data.next_observations).masked_fill(~legal, -th.inf)
            if self.double_q:
                online = self.q_net(data.next_observations).masked_fill(~legal, -th.inf)
                next_v = next_q.gather(1, online.argmax(dim=1, keepdim=True))
            else:
                next_v = next_q.max(dim=1, keepdim=True).values
            next_v = th.where(legal.any(dim=1, keepdim=True), next_v, 0.0)
            return data.rewards + (1 - data.dones) * self.gamma * next_v

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        # SB3's DQN.train with the target of td_target
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)
            target = self.td_target(data)
            current = th.gather(self.q_net(data.observations), dim=1, index=data.actions.long())
            loss = F.smooth_l1_loss(current, target)
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", np.mean(losses))


# -- models as Agents ---------------------------------------------------------------------


def load_model(path: str | Path) -> MaskableDQN:
    """Load a MaskableDQN zip (a plain SB3 ``DQN`` zip loads too: the same network), with
    errors that say what is wrong with the file."""
    return load_sb3_zip(MaskableDQN, path)


class DQNAgent(Agent):
    """Plays a MaskableDQN model's greedy legal action (the largest Q among the legal)."""

    name = "dqn"

    def __init__(self, path: str | Path, game: str | None = None, **rules: Any) -> None:
        super().__init__()
        self.model = model = load_model(path)
        if game is not None:  # a Q network's actions are its outputs: Discrete(n) always
            check_game(path, game, model.observation_space.shape, model.action_space.n, **rules)
        self.name = f"dqn:{path}"

    @classmethod
    def from_model(cls, model: MaskableDQN) -> DQNAgent:
        """An agent of a model in memory."""
        agent = cls.__new__(cls)
        Agent.__init__(agent)
        agent.model, agent.name = model, "dqn"
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """All rows at once: one forward pass of the Q network."""
        obs = batch_of(observations, self.name, self.model.observation_space.shape)
        actions, _ = self.model.predict(obs, deterministic=True, action_masks=action_masks)
        return actions.astype(np.int64)
