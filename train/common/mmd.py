"""Neural magnetic mirror descent (MMD; Sokota et al. 2023, "A unified approach to
reinforcement learning, quantal response equilibria, and two-player zero-sum games") on
sb3-contrib's MaskablePPO: :class:`MmdPPO`, and the self-play card-poker tables that
``train/mmd.py`` trains on (:class:`SelfPlayVecEnv`, its config :func:`load_config`).

MMD as a deep RL algorithm is a policy-gradient step on the reward, kept close to the last
policy (PPO's clipped ratio plays the mirror-descent proximity term) and pulled toward a
**magnet** policy rho by a reverse KL term; the magnet itself moves slowly toward the
policy. The loss of one minibatch is MaskablePPO's with one term added:

    loss = policy_loss - ent_coef * H(pi) + vf_coef * value_loss + magnet_coef * KL(pi || rho)

``KL(pi || rho) = sum_a pi(a) (log pi(a) - log rho(a))`` over the legal actions of each
observation (the same mask for both), averaged over the minibatch. The magnet is a frozen
copy of the policy network; after every update (one rollout's epochs) its parameters move
toward the policy's by Polyak averaging, ``rho <- (1 - magnet_tau) rho + magnet_tau pi``.
With ``magnet_coef = 0`` the loss is MaskablePPO's: the plain self-play PPO baseline of
``benchmarks/mini_mmd.py`` is the same code with that coefficient 0.

In self-play the opponents are the current policy itself: the network does not change
during a rollout (PPO updates between rollouts), so seating the live policy, sampling from
its masked softmax with a seeded generator, is seating a snapshot refreshed every rollout.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import polyak_update

from train.common import sb3
from train.common.config import ConfigError, is_number
from train.common.league import ENV_ID, GAME


def masked_log_probs(policy, obs: th.Tensor, masks: th.Tensor | None) -> th.Tensor:
    """``policy``'s log-probabilities ``(batch, actions)`` over the legal actions of each
    row (the masked softmax of its logits; illegal actions far below every legal one)."""
    dist = policy.get_distribution(obs, action_masks=masks)
    return dist.distribution.logits


def magnet_kl(log_pi: th.Tensor, log_rho: th.Tensor, masks: th.Tensor | None) -> th.Tensor:
    """``KL(pi || rho)`` per row from both policies' log-probabilities, summed over the
    legal actions only (an illegal action's probability is 0 in both)."""
    terms = log_pi.exp() * (log_pi - log_rho)
    if masks is not None:
        terms = th.where(masks.bool(), terms, th.zeros_like(terms))
    return terms.sum(dim=-1)


class MmdPPO(MaskablePPO):
    """MaskablePPO with MMD's magnet term (module docstring): ``magnet_coef`` weighs the
    reverse KL to the magnet, ``magnet_tau`` is the magnet's Polyak step per update. A saved
    model is a MaskablePPO zip (the magnet is not in it: :meth:`save_magnet` writes it
    beside a checkpoint), so ``make_agent("ppo:PATH")`` plays it."""

    def __init__(self, *args, magnet_coef: float = 0.1, magnet_tau: float = 0.05, **kwargs):
        if not (is_number(magnet_coef) and magnet_coef >= 0):
            raise ValueError(f"magnet_coef must be a number >= 0, got {magnet_coef!r}")
        if not (is_number(magnet_tau) and 0 <= magnet_tau <= 1):
            raise ValueError(f"magnet_tau must be a number from 0 to 1, got {magnet_tau!r}")
        self.magnet_coef, self.magnet_tau = float(magnet_coef), float(magnet_tau)
        self.magnet = None
        self.last_magnet_kl = float("nan")  # the mean KL(pi || rho) of the last update
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        super()._setup_model()
        self.reset_magnet()

    def reset_magnet(self) -> None:
        """The magnet becomes a frozen copy of the policy as it is now."""
        optimizer, self.policy.optimizer = self.policy.optimizer, None
        try:
            self.magnet = copy.deepcopy(self.policy)
        finally:
            self.policy.optimizer = optimizer
        self.magnet.set_training_mode(False)
        for p in self.magnet.parameters():
            p.requires_grad_(False)

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "magnet"]

    def save_magnet(self, path: Path) -> None:
        from agents.atomic import atomic_write

        with atomic_write(path) as f:
            th.save(self.magnet.state_dict(), f)

    def load_magnet(self, path: Path) -> None:
        self.magnet.load_state_dict(th.load(path, map_location="cpu", weights_only=True))

    def train(self) -> None:
        """MaskablePPO's update with the magnet term: the policy's ``evaluate_actions``
        returns, in place of the entropy, ``ent_coef * H - magnet_coef * KL`` while
        ``ent_coef`` is 1, so MaskablePPO's own loss ``... + ent_coef * (-mean(entropy))``
        is the MMD loss; then the magnet takes its Polyak step."""
        policy, ent_coef, kls = self.policy, self.ent_coef, []
        evaluate = policy.evaluate_actions

        def with_magnet(obs, actions, action_masks=None):
            values, log_prob, entropy = evaluate(obs, actions, action_masks=action_masks)
            log_pi = masked_log_probs(policy, obs, action_masks)
            with th.no_grad():
                log_rho = masked_log_probs(self.magnet, obs, action_masks)
            kl = magnet_kl(log_pi, log_rho, action_masks)
            kls.append(float(kl.detach().mean()))
            return values, log_prob, ent_coef * entropy - self.magnet_coef * kl

        policy.evaluate_actions = with_magnet
        self.ent_coef = 1.0
        try:
            super().train()
        finally:
            del policy.evaluate_actions  # the class's method again
            self.ent_coef = ent_coef
        polyak_update(policy.parameters(), self.magnet.parameters(), self.magnet_tau)
        self.last_magnet_kl = float(np.mean(kls)) if kls else float("nan")
        self.logger.record("train/magnet_kl", self.last_magnet_kl)


def build_mmd_model(ppo: dict[str, Any], mmd: MmdConfig, vec, seed: int) -> MmdPPO:
    """:class:`MmdPPO` of a config's ``ppo:`` section (checked as MaskablePPO's arguments by
    :func:`train.common.sb3.ppo_arguments`) and ``mmd:`` section, seeded, on the CPU."""
    from train.common.sb3 import ppo_arguments

    try:
        return MmdPPO(
            env=vec,
            seed=seed,
            device="cpu",
            verbose=0,
            magnet_coef=mmd.magnet_coef,
            magnet_tau=mmd.magnet_tau,
            **ppo_arguments(ppo),
        )
    except (ValueError, TypeError, AssertionError) as err:
        vec.close()
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ConfigError(f"ppo: MmdPPO rejects these arguments: {first}") from None


# -- the full game's config ------------------------------------------------------------------


@dataclass
class MmdConfig:
    magnet_coef: float = 0.1  # weight of KL(pi || magnet) in the loss (0: plain self-play PPO)
    magnet_tau: float = 0.05  # the magnet's Polyak step toward the policy, per PPO update
    eval_every: int = 50_000  # timesteps between evaluations against the fixed players
    eval_deals: int = 1_000  # duplicate deals per fixed player and evaluation (each in every seat)
    eval_against: list[str] = field(default_factory=lambda: ["random", "careful", "quick"])


SECTIONS = ("env", "ppo", "mmd", "run")


def _limits() -> dict[str, tuple[Any, str]]:
    """The range checks of ``mmd:`` and ``run:`` (the league's ``run:``, and its evaluation
    checks for the evaluation keys): key -> (test, what is allowed)."""
    from train.common.league import LIMITS

    return {
        "mmd.magnet_coef": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
        "mmd.magnet_tau": (lambda v: is_number(v) and 0 <= v <= 1, "a number from 0 to 1"),
        "mmd.eval_every": LIMITS["league.eval_every"],
        "mmd.eval_deals": LIMITS["league.eval_deals"],
        **{k: v for k, v in LIMITS.items() if k.startswith("run.")},
    }


def load_config(
    name: str, overrides: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None
):
    """Read and check an MMD config (``env:``, ``ppo:``, ``mmd:``, ``run:``): ``overrides``
    replace ``run:`` fields, ``env_kwargs`` env kwargs (``--rule``, ``--players``). Every
    problem is one ConfigError line naming the key, the value and what is allowed."""
    from agents import make_agent
    from agents.tables import make_engine
    from train.common.config import build, read_sections
    from train.common.league import LeagueRun
    from train.common.rundir import check_out_dir
    from train.common.sb3 import EnvConfig, ppo_arguments

    path, data = read_sections(name, SECTIONS, ("mmd",))
    where = path.name
    if data.get("env") is None:
        raise ConfigError(f"{where}: env: is missing; it needs id: {ENV_ID}")
    env = build(EnvConfig, data["env"], f"{where}: env")
    if env.id != ENV_ID:
        raise ConfigError(f"{where}: env.id must be {ENV_ID!r} (MMD self-play plays card poker)")
    env.kwargs = {**env.kwargs, **(env_kwargs or {})}
    if "opponents" in env.kwargs:
        raise ConfigError(
            f"{where}: env.kwargs.opponents is set by self-play (the learner's own policy)"
        )
    for section in ("mmd", "run"):
        if not isinstance(data.get(section) or {}, dict):
            raise ConfigError(f"{where}: {section}: must be a mapping, got {data[section]!r}")
    mmd = build(MmdConfig, data.get("mmd") or {}, f"{where}: mmd")
    run = build(LeagueRun, data.get("run") or {}, f"{where}: run", overrides)
    values = {f"mmd.{k}": v for k, v in dataclasses.asdict(mmd).items()}
    values.update({f"run.{k}": v for k, v in dataclasses.asdict(run).items()})
    for key, (ok, allowed) in _limits().items():
        if not ok(values[key]):
            raise ConfigError(f"{where}: {key} must be {allowed}, got {values[key]!r}")
    check_out_dir(run.out_dir, f"{where}: run")
    ppo_section = data.get("ppo") or {}
    ppo_arguments(ppo_section)
    cfg = Config(path.stem, env, ppo_section, run, mmd)
    try:  # the engine's own checks of the rules and table options
        make_engine(ENV_ID, 1, opponents="random", **env.kwargs)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{where}: env.kwargs {env.kwargs!r}: {err}") from None
    if not mmd.eval_against or len(set(mmd.eval_against)) != len(mmd.eval_against):
        raise ConfigError(
            f"{where}: mmd.eval_against must name each fixed player once, got {mmd.eval_against}"
        )
    for spec in mmd.eval_against:
        try:
            make_agent(spec, GAME, **cfg.rules)
        except (ValueError, TypeError, FileNotFoundError) as err:
            raise ConfigError(f"{where}: mmd.eval_against: {err}") from None
    return cfg


@dataclass
class Config(sb3.Config):
    """train/ppo.py's config (its run name and folder) with the ``mmd:`` section; its
    ``run:`` is the league's (:class:`train.common.league.LeagueRun`)."""

    mmd: MmdConfig = field(default_factory=MmdConfig)

    @property
    def rules(self) -> dict[str, Any]:
        """The rule options of ``env.kwargs`` (what an agent needs to judge hands)."""
        from envs import games

        return games.get(GAME).split_options(self.env.kwargs)[0]


# -- the self-play tables ----------------------------------------------------------------------


def self_play_vec_env(cfg: Config, holder: dict, seed: int):
    """Card poker's ``BatchedVecEnv`` (the learner in a random seat of ``n_players``) whose
    every other seat plays the live policy of ``holder["model"]``, sampled from its masked
    softmax with a generator seeded from ``seed`` (module docstring); those seats'
    observations go through ``holder["normalizer"]`` (None: raw) as the learner's do."""
    from agents.ppo import PPOAgent
    from agents.tables import BatchedVecEnv
    from envs import games

    engine_seed, own = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(own)

    def live(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        agent = PPOAgent.from_model(holder["model"], holder.get("normalizer"), False)
        agent.rng = rng
        return agent.act_batch(observations, masks)

    n_players = cfg.env.kwargs.get("n_players", games.get(GAME).default_players)
    vec = BatchedVecEnv(
        ENV_ID, cfg.run.n_envs, opponents=[live] * (n_players - 1), **cfg.env.kwargs
    )
    vec.seed(int(engine_seed.generate_state(1)[0]))
    return vec
