"""Ray RLlib policies as Agents: ``make_agent("rllib:PATH", game=...)``; and the RLModules
``train/rllib.py`` trains with. Needs the ``[rllib]`` extra; ``import agents`` never loads it.

``PATH`` is a run folder of ``train/rllib.py`` (its ``model/``), an algorithm checkpoint
(``checkpoints/step_N``: the module ``main`` or ``default_policy`` in it), or an RLModule
folder itself.

- :class:`MaskedPPOModule`: RLlib's default PPO network on the ``"observations"`` part of a
  masked observation ``{"observations", "action_mask"}``; illegal actions get the logit
  ``FLOAT_MIN`` in every forward pass (exploration, inference and training alike), so no
  illegal action is ever sampled and a terminal observation whose mask is all zeros still
  gives finite numbers.
- :class:`FixedAgentModule`: any project agent (``"heuristic"``, ``"optimal"``, ...) as an
  RLModule that is never trained: the fixed players of a self-play league.
- :class:`RLlibAgent`: a trained module playing the most likely legal action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.base import Agent
from agents.model_files import check_finite, check_game

# Module ids train/rllib.py uses: the single-agent policy, and the shared self-play policy.
MODULE_IDS = ("default_policy", "main")


def _check_masked_space(space: Any) -> gym.spaces.Dict:
    if not (
        isinstance(space, gym.spaces.Dict) and set(space.spaces) == {"observations", "action_mask"}
    ):
        raise ValueError(
            f"a masked module needs a Dict observation space with 'observations' and "
            f"'action_mask', got {space!r}"
        )
    return space


def _split(batch: dict) -> tuple[torch.Tensor, dict]:
    obs = batch[Columns.OBS]
    inner = dict(batch)
    inner[Columns.OBS] = obs["observations"]
    return obs["action_mask"], inner


def _mask_logits(out: dict, mask: torch.Tensor) -> dict:
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = torch.where(
        mask > 0.5, logits, torch.full_like(logits, FLOAT_MIN)
    )
    return out


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default network with action masking (module docstring)."""

    def __init__(self, *, observation_space=None, **kwargs) -> None:
        self._masked_space = _check_masked_space(observation_space)
        # The catalog builds the encoder from the observation part alone.
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        # Seen from outside (spaces checks, checkpoints), the module takes the masked form.
        self.observation_space = self._masked_space

    def _forward(self, batch: dict, **kwargs) -> dict:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings=None):
        if isinstance(batch.get(Columns.OBS), dict):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


class FixedAgentModule(RLModule):
    """A project agent as a never-trained RLModule. ``model_config``: ``game``, ``spec``
    (a make_agent spec), ``rules`` (the game's rule options) and ``seed``.

    Not a torch module on purpose: a torch learner builds an optimizer for every
    ``nn.Module`` it holds, and this one has no parameters (as RLlib's ``RandomRLModule``).
    """

    def setup(self) -> None:
        _check_masked_space(self.observation_space)
        self._agent: Agent | None = None

    @property
    def agent(self) -> Agent:
        if self._agent is None:  # built on first use: a learner never asks it to act
            from agents import make_agent

            cfg = self.model_config
            self._agent = make_agent(cfg["spec"], cfg["game"], **cfg.get("rules", {}))
            self._agent.seed(cfg.get("seed"))
        return self._agent

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        observations = np.asarray(obs["observations"], dtype=np.float32)
        masks = np.asarray(obs["action_mask"]) > 0.5
        return {Columns.ACTIONS: torch.as_tensor(self.agent.act_batch(observations, masks))}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        raise NotImplementedError(f"{self.model_config['spec']} is a fixed player: not trained")

    def compile(self, *args, **kwargs) -> None:
        """Nothing to compile (a torch env runner asks every module)."""

    def get_state(self, *args, **kwargs) -> dict:
        return {}

    def set_state(self, state: dict) -> None:
        pass


def module_dir(path: str | Path) -> Path:
    """The RLModule folder that ``path`` names (module docstring)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no RLlib model at {str(path)!r}")
    # An algorithm checkpoint has a class_and_ctor_args.pkl of its own: look inside first.
    modules = path / "learner_group" / "learner" / "rl_module"
    for mid in MODULE_IDS:
        if (modules / mid / "class_and_ctor_args.pkl").is_file():
            return modules / mid
    if (path / "model" / "class_and_ctor_args.pkl").is_file():
        return path / "model"
    if (path / "class_and_ctor_args.pkl").is_file():
        return path
    raise ValueError(
        f"{str(path)!r} is not an RLlib model: give a train/rllib.py run folder, an algorithm "
        f"checkpoint (with module {' or '.join(MODULE_IDS)}) or an RLModule folder"
    )


def load_module(path: str | Path) -> RLModule:
    """The trained RLModule at ``path``, ready to play (evaluation mode, CPU)."""
    folder = module_dir(path)
    try:
        module = RLModule.from_checkpoint(folder.resolve())  # ray reads paths as URIs
        if hasattr(module, "named_parameters"):  # a torch module: its weights are numbers
            check_finite(module.named_parameters())
    except Exception as err:  # a damaged or foreign folder
        raise ValueError(f"cannot load an RLModule from {str(folder)!r}: {err}") from None
    _check_masked_space(module.observation_space)
    module.eval()
    return module


class RLlibAgent(Agent):
    """Plays a masked RLlib module's most likely legal action, or samples
    (``deterministic=False``) from its masked policy with the agent's own generator."""

    name = "rllib"

    def __init__(
        self, path: str | Path, game: str | None = None, deterministic: bool = True, **rules
    ) -> None:
        super().__init__()
        self.module = load_module(path)
        if game is not None:
            space = self.module.observation_space["observations"]
            n_actions = getattr(getattr(self.module, "action_space", None), "n", None)
            check_game(path, game, space.shape, n_actions, **rules)
        self.deterministic = deterministic
        self.name = f"rllib:{path}"

    @classmethod
    def from_module(cls, module: RLModule, deterministic: bool = True) -> RLlibAgent:
        """An agent of a module in memory (e.g. the one being trained)."""
        _check_masked_space(module.observation_space)
        agent = cls.__new__(cls)
        Agent.__init__(agent)
        agent.module, agent.deterministic, agent.name = module, deterministic, "rllib"
        return agent

    def logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Masked action logits (illegal actions at -inf) of a batch (m, D)."""
        obs = np.asarray(observations, dtype=np.float32)
        expected = self.module.observation_space["observations"].shape
        if obs.ndim != 2 or obs.shape[1:] != expected:
            raise ValueError(
                f"{self.name} was trained on observations of shape {expected}, "
                f"got a batch of shape {obs.shape}: a different game or variant?"
            )
        mask = np.asarray(action_masks, dtype=bool).reshape(len(obs), -1)
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(obs),
                "action_mask": torch.as_tensor(mask.astype(np.float32)),
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        logits = np.where(mask, out.numpy().astype(np.float64), -np.inf)
        if not np.isfinite(logits).any(axis=1).all():
            raise ValueError("an action mask allows no action (is an episode over?)")
        return logits

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        logits = self.logits(observations, action_masks)
        if self.deterministic:
            return logits.argmax(axis=1)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        u = self.rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)


__all__ = [
    "MODULE_IDS",
    "FixedAgentModule",
    "MaskedPPOModule",
    "RLlibAgent",
    "load_module",
    "module_dir",
]
