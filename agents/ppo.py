"""A trained MaskablePPO model as an Agent: ``make_agent("ppo:path/to/model.zip", game=...)``.

It plays the model's most likely legal action (``?greedy``), or samples each action from
its masked policy (``?sample``: ``make_agent("ppo:PATH?sample", ...)``). Without either it
samples where the model is of a run whose trainer learns a mixed strategy
(:data:`MIXED_TRAINERS`, named by ``trainer:`` in the run folder's ``config.yaml``), and
plays greedily otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.model_files import batch_of, check_finite, check_game, load_sb3_zip

# Trainers whose policy is a mixed strategy, the distribution itself and not its argmax:
# magnetic mirror descent self-play (train/mmd.py) approaches an equilibrium of card poker.
MIXED_TRAINERS = ("mmd",)


def run_trainer(model_path: str | Path) -> str | None:
    """The ``trainer:`` of the run a model belongs to: the ``config.yaml`` beside it (or,
    for ``checkpoints/step_N.zip``, in the run folder above); None where there is none."""
    path = Path(model_path)
    here = path.parent.parent if path.parent.name == "checkpoints" else path.parent
    config = here / "config.yaml"
    if not config.is_file():
        return None
    import yaml

    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as err:
        raise ValueError(
            f"cannot read the run's config {str(config)!r} (it says whether the model "
            f"samples; give ?greedy or ?sample to skip it): {err}"
        ) from None
    trainer = data.get("trainer") if isinstance(data, dict) else None
    return trainer if isinstance(trainer, str) else None


def samples_by_default(model_path: str | Path) -> bool:
    """Whether ``ppo:PATH`` without an option samples: the model's run learns a mixed
    strategy (:data:`MIXED_TRAINERS`)."""
    return run_trainer(model_path) in MIXED_TRAINERS


def load_model(path: str | Path):
    """Load a MaskablePPO zip, with errors that say what is wrong with the file."""
    from sb3_contrib import MaskablePPO  # torch is imported only when a model is used

    return load_sb3_zip(MaskablePPO, path)


def normalizer_path(model_path: str | Path) -> Path:
    """Where the observation statistics of a model trained with ``normalize_obs`` live."""
    return Path(model_path).with_suffix(".vecnormalize.pkl")


def load_normalizer(model_path: str | Path):
    """The VecNormalize statistics saved beside a model, or None if it was trained without."""
    path = normalizer_path(model_path)
    if not path.is_file():
        return None
    import pickle

    try:
        with path.open("rb") as f:
            normalizer = pickle.load(f)
        # vars(): a VecNormalize without a venv recurses on a missing attribute (obs_rms
        # is missing where only the rewards were normalised)
        rms = vars(normalizer).get("obs_rms")
        if hasattr(rms, "mean"):  # a Box observation's statistics
            check_finite([("obs_rms.mean", rms.mean), ("obs_rms.var", rms.var)])
    except Exception as err:  # a damaged or foreign file
        raise ValueError(f"cannot read the observation statistics {str(path)!r}: {err}") from None
    return normalizer


def observation_normalizer(normalizer):
    """What of a saved VecNormalize a player needs: itself where it scales observations,
    else None (statistics of the rewards alone matter to training, not to play)."""
    return normalizer if normalizer is not None and vars(normalizer).get("norm_obs") else None


def masked_logits(model, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The policy's action logits with illegal actions at -inf, for one observation (D,)
    or a batch (m, D).

    Computed straight from the actor network: about ten times faster than
    ``model.predict`` with a masked distribution, which matters when an agent
    plays thousands of games. A policy that narrows the mask itself (``_masks``, e.g.
    ``agents.policies.ScorecardPolicy``'s canonical keeps) narrows it here too.
    """
    import torch

    policy = model.policy
    obs = np.asarray(observation, dtype=np.float32)
    single = obs.ndim == 1
    mask = np.asarray(action_mask, dtype=bool).reshape(len(obs) if not single else 1, -1)
    with torch.no_grad():
        t = torch.as_tensor(obs[None] if single else obs)
        features = policy.extract_features(t, policy.pi_features_extractor)
        latent = policy.mlp_extractor.forward_actor(features)
        # a policy whose head is not one logit per action says how it maps (action_logits)
        head = getattr(policy, "action_logits", None)
        logits = (head(t, latent) if head else policy.action_net(latent)).numpy()
        if hasattr(policy, "_masks"):
            mask = policy._masks(t, mask)
    out = np.where(mask, logits.astype(np.float64), -np.inf)
    return out[0] if single else out


class PPOAgent(Agent):
    """Plays the model's most likely legal action, or samples (``deterministic=False``)
    from its masked policy with the agent's own seeded generator. ``deterministic`` None:
    samples where the model's run learns a mixed strategy (:func:`samples_by_default`)."""

    name = "ppo"

    def __init__(
        self,
        path: str | Path,
        game: str | None = None,
        deterministic: bool | None = None,
        **rules,
    ) -> None:
        super().__init__()
        self.model = load_model(path)
        if game is not None:
            n_actions = getattr(self.model.action_space, "n", None)
            check_game(path, game, self.model.observation_space.shape, n_actions, **rules)
        self.normalizer = observation_normalizer(load_normalizer(path))
        if deterministic is None:
            deterministic = not samples_by_default(path)
        self.deterministic = deterministic
        self.name = f"ppo:{path}" + ("" if deterministic else "?sample")

    @classmethod
    def from_model(cls, model, normalizer=None, deterministic: bool = True) -> PPOAgent:
        """An agent of a model in memory (``normalizer``: its VecNormalize, if any)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent)
        agent.model, agent.normalizer = model, observation_normalizer(normalizer)
        agent.deterministic, agent.name = deterministic, "ppo"
        return agent

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        expected = self.model.observation_space.shape
        if np.shape(observation) != expected:
            raise ValueError(
                f"{self.name} was trained on observations of shape {expected}, "
                f"got {np.shape(observation)}: a different game or variant?"
            )
        if self.normalizer is not None:
            observation = self.normalizer.normalize_obs(np.asarray(observation, dtype=np.float32))
        logits = masked_logits(self.model, observation, action_mask)
        if not np.isfinite(logits).any():
            raise ValueError("the action mask allows no action (is the episode over?)")
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self.rng.choice(len(p), p=p / p.sum()))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """All rows at once: one forward pass of the network."""
        obs = batch_of(observations, self.name, self.model.observation_space.shape)
        if self.normalizer is not None:
            obs = self.normalizer.normalize_obs(obs)
        return self.choose(masked_logits(self.model, obs, action_masks))

    def choose(self, logits: np.ndarray) -> np.ndarray:
        """The actions of :meth:`act_batch` from its masked logits ``(m, A)`` (float64,
        -inf where illegal): the most likely, or drawn from the agent's Generator."""
        if not np.isfinite(logits).any(axis=1).all():
            raise ValueError("an action mask allows no action (is an episode over?)")
        if self.deterministic:
            return logits.argmax(axis=1)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        u = self.rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)
