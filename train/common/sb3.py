"""The SB3 side of the run protocol: the schema of a ``ppo:`` config (``env:``, ``ppo:``
and ``run:``, read by train/ppo.py, train/league.py, train/best_response.py and
train/rllib.py), MaskablePPO built once from it (:func:`build_model`), the vectorised
envs, the self-play pool, checkpoints and the evaluation of a run (``measure``: the same
episodes for every agent measured in a run, a 95% CI as mean ± half-width).

A bad config is a :class:`~train.common.config.ConfigError` of one line naming the key,
the value and what is allowed.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import inspect
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.atomic import atomic_write
from agents.ppo import load_model, load_normalizer, normalizer_path
from agents.tables import BatchedVecEnv, play_games
from envs import games
from envs.vector import BATCHED_IDS
from train.common.config import (
    HONOURED_BY,
    ConfigError,
    build,
    check_honoured,
    find_config,
    is_int,
    is_number,
    read_sections,
)
from train.common.results import EVAL_SEED, bonus_figures, bonus_text, mean_ci, write_final
from train.common.rundir import RunNamed, check_out_dir, open_folder


def scored_in_chips(cfg: Config) -> bool:
    """The game is scored in chips (else in points); the registry says which."""
    return games.by_gym_id(cfg.env.id).result == "chips"


@dataclass
class EnvConfig:
    id: str  # a Gymnasium id registered by ``import envs``
    kwargs: dict[str, Any] = field(default_factory=dict)  # keyword arguments of gym.make


@dataclass
class SelfPlayConfig:
    enabled: bool = False
    snapshot_every: int = 50_000  # timesteps between snapshots added to the pool
    pool_size: int = 5  # newest snapshots kept as opponents
    heuristic_share: float = 0.5  # chance that an opponent seat plays the env's fixed opponent


@dataclass
class RunConfig:
    seed: int = 0
    n_envs: int = 4  # parallel envs feeding PPO
    vec_env: str = "dummy"  # "dummy" (one process) or "subproc" (one process per env)
    # "batched": one numpy engine steps all n_envs games (envs.vector; every id with an engine);
    # "scalar": one Gymnasium env per game under vec_env; "auto": batched where it exists,
    # except with self-play
    engine: str = "auto"
    torch_threads: int = 1  # small MLPs on 2 cores: more threads only add contention
    normalize_obs: bool = False  # scale observations by running mean/std (VecNormalize)
    # divide the rewards PPO learns from by the running std of the discounted return
    # (VecNormalize(norm_reward=True), its gamma the config's ppo.gamma); evaluations and
    # the metrics stay in the game's points
    normalize_reward: bool = False
    total_timesteps: int = 100_000
    eval_every: int = 20_000  # timesteps between evaluations
    eval_episodes: int = 500  # episodes per evaluation and per opponent
    eval_opponents: list[str] = field(default_factory=lambda: ["heuristic"])  # poker games
    final_eval_episodes: int = 2_000  # episodes of the evaluation after training
    record_games: int = 2  # evaluation games of the trained model saved as videos/game_k.gif
    checkpoint_every: int = 50_000  # timesteps between checkpoints (for --resume)
    out_dir: str = "runs"
    self_play: SelfPlayConfig = field(default_factory=SelfPlayConfig)


@dataclass
class Config(RunNamed):
    name: str
    env: EnvConfig
    ppo: dict[str, Any]
    run: RunConfig


# -- config loading ------------------------------------------------------------------------------
# The whole config is checked here, before anything is created; every problem is a ConfigError
# of one line naming the key, the value and what is allowed (exit status 2 from the command line).


# Range checks of the run: fields: field -> (test, what is allowed).
RUN_LIMITS: dict[str, tuple[Any, str]] = {
    "seed": (lambda v: is_int(v) and 0 <= v < 2**32, "a whole number 0 .. 2**32-1"),
    "n_envs": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "vec_env": (lambda v: v in ("dummy", "subproc"), "'dummy' or 'subproc'"),
    "torch_threads": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "normalize_obs": (lambda v: isinstance(v, bool), "true or false"),
    "normalize_reward": (lambda v: isinstance(v, bool), "true or false"),
    "total_timesteps": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "eval_every": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "eval_episodes": (
        lambda v: is_int(v) and v >= 2,
        "a whole number >= 2 (a confidence interval needs two episodes)",
    ),
    "eval_opponents": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "a list of agent specs",
    ),
    "final_eval_episodes": (
        lambda v: is_int(v) and v >= 2,
        "a whole number >= 2 (a confidence interval needs two episodes)",
    ),
    "checkpoint_every": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "out_dir": (lambda v: isinstance(v, str) and v.strip() != "", "a folder name"),
    "self_play.enabled": (lambda v: isinstance(v, bool), "true or false"),
    "self_play.snapshot_every": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "self_play.pool_size": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "self_play.heuristic_share": (
        lambda v: is_number(v) and 0 <= v <= 1,
        "a number from 0 to 1",
    ),
}


def check_run(run: RunConfig, where: str) -> None:
    """Every run: field within its range (RUN_LIMITS)."""
    fields = {**dataclasses.asdict(run)}
    sp = fields.pop("self_play")
    fields.update({f"self_play.{k}": v for k, v in sp.items()})
    for key, (ok, allowed) in RUN_LIMITS.items():
        if not ok(fields[key]):
            raise ConfigError(f"{where}.{key} must be {allowed}, got {fields[key]!r}")
    check_out_dir(run.out_dir, where)


ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")
# policy_kwargs.optimizer_class: name -> torch.optim class (rmsprop: what SB3's A2C uses)
OPTIMIZERS = ("adam", "rmsprop")


def _positive(v: Any) -> bool:
    return is_number(v) and v > 0


def _unit(v: Any) -> bool:
    return is_number(v) and 0 <= v <= 1


def _schedule_ok(v: Any, value_ok) -> bool:
    if isinstance(v, dict):
        ends = v.get("linear")
        return (
            set(v) == {"linear"}
            and isinstance(ends, list)
            and len(ends) == 2
            and all(is_number(e) and e >= 0 for e in ends)
        )
    return value_ok(v)


def _net_arch_ok(v: Any) -> bool:
    def layers(x: Any) -> bool:
        return isinstance(x, list) and all(is_int(n) and n >= 1 for n in x)

    if isinstance(v, dict):
        return set(v) <= {"pi", "vf"} and bool(v) and all(layers(x) for x in v.values())
    return layers(v)


# The ``ppo:`` values a YAML file may hold: key -> (test, what is allowed). Other keys of
# MaskablePPO's constructor are passed through; the constructor itself checks them before
# the run folder is made.
PPO_LIMITS: dict[str, tuple[Any, str]] = {
    "learning_rate": (
        lambda v: _schedule_ok(v, _positive),
        "a number > 0 or {linear: [start, end]} (numbers >= 0)",
    ),
    "n_steps": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "batch_size": (lambda v: is_int(v) and v >= 2, "a whole number >= 2"),
    "n_epochs": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "gamma": (_unit, "a number from 0 to 1"),
    "gae_lambda": (_unit, "a number from 0 to 1"),
    "clip_range": (
        lambda v: _schedule_ok(v, _positive),
        "a number > 0 or {linear: [start, end]} (numbers >= 0)",
    ),
    "clip_range_vf": (
        lambda v: v is None or _schedule_ok(v, _positive),
        "null, a number > 0 or {linear: [start, end]}",
    ),
    "normalize_advantage": (lambda v: isinstance(v, bool), "true or false"),
    "ent_coef": (
        lambda v: _schedule_ok(v, lambda x: is_number(x) and x >= 0),
        "a number >= 0 or {linear: [start, end]} (numbers >= 0)",
    ),
    "vf_coef": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
    "max_grad_norm": (_positive, "a number > 0"),
    "target_kl": (lambda v: v is None or _positive(v), "null or a number > 0"),
    "stats_window_size": (lambda v: is_int(v) and v >= 1, "a whole number >= 1"),
    "policy_kwargs": (lambda v: v is None or isinstance(v, dict), "a mapping"),
    "policy_kwargs.net_arch": (
        _net_arch_ok,
        "a list of layer sizes (whole numbers >= 1) or {pi: [...], vf: [...]}",
    ),
    "policy_kwargs.activation_fn": (lambda v: v in ACTIVATIONS, f"one of {list(ACTIVATIONS)}"),
    "policy_kwargs.ortho_init": (lambda v: isinstance(v, bool), "true or false"),
    "policy_kwargs.optimizer_class": (lambda v: v in OPTIMIZERS, f"one of {list(OPTIMIZERS)}"),
    "policy_kwargs.optimizer_kwargs": (
        lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(k, str) and (is_number(x) or isinstance(x, bool)) for k, x in v.items()
            )
        ),
        "a mapping of the optimiser's arguments to numbers (e.g. {alpha: 0.99, eps: 1.0e-5})",
    ),
}


def _schedule(spec: dict):
    """``{linear: [start, end]}`` -> an SB3 schedule of the remaining progress."""
    start, end = (float(v) for v in spec["linear"])
    return lambda progress_remaining: end + (start - end) * progress_remaining


def ppo_arguments(ppo: dict[str, Any]) -> dict[str, Any]:
    """Check the ``ppo:`` keys and values (PPO_LIMITS) against MaskablePPO's constructor
    and turn YAML into objects."""
    from sb3_contrib import MaskablePPO

    if not isinstance(ppo, dict):
        raise ConfigError(f"ppo: must be a mapping of MaskablePPO's arguments, got {ppo!r}")
    allowed = set(inspect.signature(MaskablePPO.__init__).parameters) - {"self", "env"}
    allowed -= {"tensorboard_log", "seed", "verbose", "_init_setup_model", "device"}
    unknown = sorted(set(ppo) - allowed, key=str)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in ppo:; MaskablePPO takes {sorted(allowed)}")
    flat = dict(ppo)
    if isinstance(ppo.get("policy_kwargs"), dict):
        flat.update({f"policy_kwargs.{k}": v for k, v in ppo["policy_kwargs"].items()})
    for key, (ok, what) in PPO_LIMITS.items():
        if key in flat and not ok(flat[key]):
            raise ConfigError(f"ppo.{key} must be {what}, got {flat[key]!r}")
    args = dict(ppo)
    from agents.policies import KEEP_HEADS, POLICIES

    policy = args.setdefault("policy", "MlpPolicy")
    if policy not in POLICIES:
        raise ConfigError(f"ppo.policy must be one of {sorted(POLICIES)}, got {policy!r}")
    if "policy_kwargs.keep_head" in flat:
        head = flat["policy_kwargs.keep_head"]
        if head not in KEEP_HEADS:
            raise ConfigError(
                f"ppo.policy_kwargs.keep_head must be one of {list(KEEP_HEADS)}, got {head!r}"
            )
        if policy != "ScorecardPolicy":
            raise ConfigError(
                f"ppo.policy_kwargs.keep_head needs ppo.policy: ScorecardPolicy, got {policy!r}"
            )
    args["policy"] = POLICIES[policy]
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if isinstance(args.get(key), dict):
            args[key] = _schedule(args[key])
    if isinstance(args.get("ent_coef"), dict):  # MaskablePPO takes a number: the start
        args["ent_coef"] = float(args["ent_coef"]["linear"][0])  # (build_model: the rest)
    kwargs = dict(args.get("policy_kwargs") or {})
    if "activation_fn" in kwargs:
        import torch.nn as nn

        kwargs["activation_fn"] = {
            "tanh": nn.Tanh,
            "relu": nn.ReLU,
            "elu": nn.ELU,
            "leaky_relu": nn.LeakyReLU,
        }[kwargs["activation_fn"]]
    if "optimizer_class" in kwargs:
        import torch

        classes = {"adam": torch.optim.Adam, "rmsprop": torch.optim.RMSprop}
        kwargs["optimizer_class"] = classes[kwargs["optimizer_class"]]
    if kwargs:
        args["policy_kwargs"] = kwargs
    return args


SECTIONS = ("env", "ppo", "run", "rllib")  # rllib: is read by train/rllib.py
# the trainers whose configs are of this schema (each script itself accepts its own only)
PPO_SCHEMA = ("ppo", "best_response", "rllib")


def load_env_run(
    name: str,
    overrides: dict[str, Any] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trainers: tuple[str, ...] = PPO_SCHEMA,
    reader: str = "ppo",
) -> tuple[Path, dict[str, Any], EnvConfig, RunConfig]:
    """The ``env:`` and ``run:`` sections of config ``name``, checked (``overrides`` replace
    ``run:`` fields, the command line's; ``env_kwargs`` env kwargs, ``--rule``), with the
    file's path and its raw sections (train/rllib.py reads the same two sections).
    ``trainers``: the scripts that may read it (its ``trainer:``); ``reader``: the one
    reading it now, stopped at a key it does not honour (:func:`honoured`)."""
    path, data = read_sections(name, SECTIONS, trainers)
    if data.get("env") is None:
        raise ConfigError(f"{path.name}: env: is missing; it needs id: (a Gymnasium id)")
    env = build(EnvConfig, data["env"], f"{path.name}: env")
    env.kwargs = {**env.kwargs, **(env_kwargs or {})}
    try:
        games.by_gym_id(env.id)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{path.name}: env.id: {err}") from None
    run_data = data.get("run") or {}
    if not isinstance(run_data, dict):
        raise ConfigError(f"{path.name}: run: must be a mapping, got {run_data!r}")
    run = build(RunConfig, run_data, f"{path.name}: run", overrides)
    check_run(run, f"{path.name}: run")
    if run.engine not in ("auto", "batched", "scalar"):
        raise ConfigError(f"run.engine must be 'auto', 'batched' or 'scalar', got {run.engine!r}")
    if run.engine == "batched" and not games.by_gym_id(env.id).batched_engine:
        raise ConfigError(f"run.engine: no batched engine for {env.id}; batched: {BATCHED_IDS}")
    if run.record_games < 0:
        raise ConfigError(f"run.record_games must be >= 0, got {run.record_games}")
    check_honoured(path, reader, honoured(run, data.get("ppo")))
    return path, data, env, run


def honoured(run: RunConfig, ppo: Any) -> dict[str, tuple[Any, Any]]:
    """The keys of :data:`train.common.config.HONOURED_BY` as ``(value, default)``: the
    run's fields and ``ppo.policy_kwargs.keep_head`` (ScorecardPolicy's default if unset)."""
    from agents.policies import ScorecardPolicy

    defaults = {f.name: f.default for f in dataclasses.fields(RunConfig)}
    out = {}
    for key in HONOURED_BY:
        section, _, name = key.partition(".")
        if section == "run":
            out[key] = (getattr(run, name), defaults[name])
    keep = inspect.signature(ScorecardPolicy.__init__).parameters["keep_head"].default
    kwargs = ppo.get("policy_kwargs") if isinstance(ppo, dict) else None
    head = kwargs.get("keep_head", keep) if isinstance(kwargs, dict) else keep
    out["ppo.policy_kwargs.keep_head"] = (head, keep)
    return out


def check_env_and_opponents(cfg: Config, path: Path) -> None:
    """Every ``run.eval_opponents`` entry exists for the game, and the env takes its kwargs."""
    for spec in baselines(cfg):
        try:
            make_agent(spec, cfg.game)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"{path.name}: run.eval_opponents: {err}") from None
    if games.by_gym_id(cfg.env.id).result == "chips" and not cfg.run.eval_opponents:
        raise ConfigError(f"{path.name}: run.eval_opponents is empty; name at least one agent")
    try:  # the env's own checks: unknown or bad keyword arguments
        gym.make(cfg.env.id, **cfg.env.kwargs).close()
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{path.name}: env.kwargs {cfg.env.kwargs!r}: {err}") from None


def load_config(
    name: str,
    overrides: dict[str, Any] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    trainers: tuple[str, ...] = PPO_SCHEMA,
) -> Config:
    """Read and check a whole config ``name``: ``overrides`` replace ``run:`` fields (the
    command line's), ``env_kwargs`` env kwargs (``--rule``)."""
    path, data, env, run = load_env_run(name, overrides, env_kwargs, trainers)
    ppo = data.get("ppo") or {}
    ppo_arguments(ppo)  # validate now, before any work
    cfg = Config(path.stem, env, ppo, run)
    check_env_and_opponents(cfg, path)
    return cfg


# -- evaluation ----------------------------------------------------------------------------------


def evaluate(
    agent: Agent, cfg: Config, n_episodes: int, seed: int, opponents: str | None = None
) -> dict[str, float]:
    """Play ``agent`` in the config's env; mean result with a 95% CI.

    For the poker games the win rate is the share of episodes with a positive
    net result (a split pot counts only if it gains chips); for the scorecard games the
    card-bonus figures (:func:`train.common.results.bonus_figures`).
    """
    kwargs = dict(cfg.env.kwargs)
    if opponents is not None:
        kwargs["opponents"] = opponents
    kwargs.pop("reward_scale", None)  # report scores in points
    cards: dict = {}  # scorecard games: the final cards' bonus points
    if batched(cfg):  # every episode at once on the batched engine
        totals = play_games(agent.act_batch, cfg.env.id, n_episodes, seed, cards, **kwargs)
    else:
        env = gym.make(cfg.env.id, **kwargs)
        results, bonuses = [], []
        agent.seed(seed)
        try:
            for episode in range(n_episodes):
                obs, info = env.reset(seed=seed + episode)
                total, done = 0.0, False
                while not done:
                    action = agent.act(obs, info["action_mask"])
                    obs, reward, terminated, truncated, info = env.step(action)
                    total += reward
                    done = terminated or truncated
                results.append(total)
                if not scored_in_chips(cfg):
                    card = env.unwrapped.game.card
                    bonuses.append((card.bonus, card.yahtzee_bonus))
        finally:
            env.close()
        totals = np.array(results)
        if bonuses:
            cards["card_bonus"], cards["yahtzee_bonus"] = np.array(bonuses).T
    mean, ci95 = mean_ci(totals)
    out = {"mean": mean, "ci95": ci95}
    if scored_in_chips(cfg):
        out["win_rate"] = float((totals > 0).mean())
    else:
        rules = scorecard_rules(cfg)
        out.update(bonus_figures(rules, cards["card_bonus"], cards["yahtzee_bonus"]))
    return out


def scorecard_rules(cfg: Config):
    """The ``ScorecardRules`` of a scorecard config."""
    rules, _ = games.get(cfg.game).split_options(cfg.env.kwargs)
    return games.get(cfg.game).make_rules(**rules)


def optimal_score(cfg: Config) -> float:
    """The exact optimal expected score of a scorecard game (solved once, then cached)."""
    from agents.optimal.scorecard import solve

    return solve(scorecard_rules(cfg)).expected_score


def baselines(cfg: Config) -> list[str]:
    """The opponents a poker model is measured against (none for the scorecard games)."""
    return list(cfg.run.eval_opponents) if scored_in_chips(cfg) else []


# -- training ------------------------------------------------------------------------------------


def batched(cfg: Config) -> bool:
    """Whether the run steps a batched engine (``run.engine``). ``auto`` keeps self-play
    runs scalar: a batched table seats one opponent object for all its games, so a
    snapshot pool would not change snapshots from one episode to the next."""
    if cfg.run.engine == "auto":
        # by the record: an alias id (Yahtzee-v0) has the engine of its game
        return bool(games.by_gym_id(cfg.env.id).batched_engine) and not cfg.run.self_play.enabled
    return cfg.run.engine == "batched"


def make_vec_env(cfg: Config, n_envs: int, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    kwargs = dict(cfg.env.kwargs)
    if cfg.run.self_play.enabled:
        sp = cfg.run.self_play
        rules, _ = games.get(cfg.game).split_options(kwargs)
        fixed = kwargs.get("opponents", "heuristic")
        kwargs["opponents"] = [
            SnapshotPool(
                cfg.run_dir / "pool", cfg.game, fixed, sp.heuristic_share, sp.pool_size, rules
            )
            for _ in range(kwargs.get("n_players", games.get(cfg.game).default_players) - 1)
        ]
    if batched(cfg):
        vec = BatchedVecEnv(cfg.env.id, n_envs, **kwargs)
    else:
        cls = SubprocVecEnv if cfg.run.vec_env == "subproc" and n_envs > 1 else DummyVecEnv
        vec = cls([functools.partial(_monitored, cfg.env.id, kwargs) for _ in range(n_envs)])
    vec.seed(seed)
    if normalized(cfg.run):
        from stable_baselines3.common.vec_env import VecNormalize

        vec = VecNormalize(
            vec,
            norm_obs=cfg.run.normalize_obs,
            norm_reward=cfg.run.normalize_reward,
            gamma=ppo_gamma(cfg.ppo),
        )
    return vec


def normalized(run: RunConfig) -> bool:
    """Whether the run's envs are wrapped in a VecNormalize (observations or rewards), whose
    statistics then travel with every checkpoint and the model."""
    return run.normalize_obs or run.normalize_reward


def ppo_gamma(ppo: dict[str, Any]) -> float:
    """The discount of a ``ppo:`` section: its ``gamma``, else MaskablePPO's default."""
    from sb3_contrib import MaskablePPO

    default = inspect.signature(MaskablePPO.__init__).parameters["gamma"].default
    return float(ppo.get("gamma", default))


def _monitored(env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    from stable_baselines3.common.monitor import Monitor

    return Monitor(gym.make(env_id, **kwargs))


class SnapshotPool(Agent):
    """Self-play opponent: at each episode (``seed``) it becomes one of the newest
    snapshots of the learner, or the fixed opponent with probability ``fixed_share``.

    Only the snapshots still among the newest ``pool_size`` stay loaded; one that does
    not load (damaged) is skipped with a warning, and the fixed opponent plays instead.
    """

    name = "pool"

    def __init__(self, folder, game, fixed, fixed_share, pool_size, rules) -> None:
        super().__init__()
        self.folder, self.game, self.rules = Path(folder), game, rules
        self.fixed = make_agent(fixed, game, **rules)
        self.fixed_share, self.pool_size = fixed_share, pool_size
        self._loaded: dict[Path, Agent] = {}
        self._damaged: set[Path] = set()
        self.current: Agent = self.fixed

    def seed(self, seed: int | None = None) -> None:
        super().seed(seed)
        snaps = [p for p in sorted(self.folder.glob("*.zip")) if p not in self._damaged]
        snaps = snaps[-self.pool_size :]
        for old in set(self._loaded) - set(snaps):  # evicted: about 1 MB each
            del self._loaded[old]
        self.current = self.fixed
        if snaps and self.rng.random() >= self.fixed_share:
            pick = snaps[int(self.rng.integers(len(snaps)))]
            if pick not in self._loaded:
                try:
                    self._loaded[pick] = make_agent(f"ppo:{pick}", self.game, **self.rules)
                except (ValueError, FileNotFoundError) as err:
                    self._damaged.add(pick)
                    print(f"warning: skipping self-play snapshot: {err}", file=sys.stderr)
            self.current = self._loaded.get(pick, self.fixed)
        self.current.seed(int(self.rng.integers(2**63)))

    def act(self, observation, action_mask) -> int:
        return self.current.act(observation, action_mask)


def rule_keys(name: str) -> tuple[str, ...] | None:
    """The keys ``--rule`` may set in env.kwargs: the rule and table options the registry
    gives the config's game; None where the config cannot say (load_config names why)."""
    try:
        record = games.by_gym_id(yaml.safe_load(find_config(name).read_text())["env"]["id"])
    except (OSError, yaml.YAMLError, LookupError, TypeError, ValueError):
        return None
    return (*record.rule_options, *record.table_options)


def build_model(ppo: dict[str, Any], vec, seed: int, **kwargs):
    """MaskablePPO of a config's ``ppo:`` section on ``vec``, seeded, on the CPU (``kwargs``:
    more constructor arguments); what the constructor rejects is one ConfigError line
    (``vec`` is closed then)."""
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO(
            env=vec, seed=seed, device="cpu", verbose=0, **kwargs, **ppo_arguments(ppo)
        )
    except (ValueError, TypeError, AssertionError) as err:
        vec.close()
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ConfigError(f"ppo: MaskablePPO rejects these arguments: {first}") from None
    if isinstance(ppo.get("ent_coef"), dict):
        # saved with the model, so a resumed run goes on with it (learn_rest applies it)
        model.ent_coef_schedule = _schedule(ppo["ent_coef"])
    return model


def setup_torch(threads: int) -> None:
    """``threads`` torch threads, and no argument checks of the masked distributions: they
    are built from the policy's own logits, valid by construction, and checking every
    batch costs about a tenth of PPO's update."""
    import torch

    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)


def load_checkpoint(checkpoints: list[Path], normalize: bool, load=load_model):
    """The newest checkpoint that loads (by ``load(path)``; a ``ValueError`` or
    ``FileNotFoundError`` marks it damaged), with its VecNormalize statistics
    (``normalize``: they must be there), stepping back over damaged ones (a warning line
    each); ``(path, model, normalizer or None)``."""
    for path in reversed(checkpoints):
        try:
            model = load(path)
            normalizer = load_normalizer(path)
            if normalize and normalizer is None:
                stats = normalizer_path(path).name
                raise ValueError(f"its VecNormalize statistics {stats} are missing")
            return path, model, normalizer
        except (ValueError, FileNotFoundError) as err:
            print(f"warning: skipping damaged checkpoint {path.name}: {err}", file=sys.stderr)
    raise ConfigError(f"--resume: none of the {len(checkpoints)} checkpoints loads")


def finish(
    cfg: Config, metrics_path: Path, final: dict[str, float], best_known: float | None
) -> dict[str, dict[str, float]]:
    """The end of a run of a ppo config (train/ppo.py, train/rllib.py): ``curve.png``, the
    yardsticks measured in the learner's place on the same episodes (returned by name: the
    heuristic player, and for the scorecard games the optimal one, whose card-bonus rates the
    learner's are read against), and ``final.json`` with the learner's ``final`` row beside
    them."""
    plot_curve(metrics_path, cfg.run_dir / "curve.png", cfg, best_known)
    rules, _ = games.get(cfg.game).split_options(cfg.env.kwargs)
    names = ["heuristic"] if scored_in_chips(cfg) else ["heuristic", "optimal"]
    yardsticks = {
        name: measure(
            make_agent(name, cfg.game, **rules), cfg, cfg.run.final_eval_episodes, best_known
        )
        for name in names
    }
    write_final(cfg.run_dir, "ppo", final, yardsticks, optimal=best_known)
    return yardsticks


def measure(
    agent: Agent, cfg: Config, n_episodes: int, best_known: float | None
) -> dict[str, float]:
    """Mean score (and % of optimal), or chips and win rate against each baseline opponent.

    Every agent measured in a run plays the same episodes (same seeds).
    """
    seed = EVAL_SEED + cfg.run.seed
    if not scored_in_chips(cfg):
        res = evaluate(agent, cfg, n_episodes, seed)
        row = {"score": res.pop("mean"), "score_ci95": res.pop("ci95")}
        if best_known:
            row["pct_optimal"] = 100 * row["score"] / best_known
        row.update(res)  # the card-bonus figures
        return row
    row = {}
    for opp in baselines(cfg):
        res = evaluate(agent, cfg, n_episodes, seed, opponents=opp)
        row[f"{opp}_chips"] = res["mean"]
        row[f"{opp}_chips_ci95"] = res["ci95"]
        row[f"{opp}_win_rate"] = res["win_rate"]
    return row


def format_result(row: dict[str, float], cfg: Config, best_known: float | None) -> str:
    if "score" in row:
        text = f"final evaluation: mean score {row['score']:.2f} ± {row['score_ci95']:.2f}"
        if best_known:
            text += f" = {row['pct_optimal']:.1f}% of the optimal {best_known:.2f}"
        if bonus_text(row):
            text += f"; {bonus_text(row)}"
        return text
    return "\n".join(
        f"vs {opp}: chips/game {row[f'{opp}_chips']:+.3f} ± {row[f'{opp}_chips_ci95']:.3f}, "
        f"win rate {row[f'{opp}_win_rate']:.3f}"
        for opp in baselines(cfg)
    )


def plot_curve(metrics_path: Path, out: Path, cfg: Config, best_known: float | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with metrics_path.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4))

    def series(column: str, label: str) -> None:
        # a resumed run may have added a column: plot the rows that have it
        have = [r for r in rows if r.get(column)]
        ax.errorbar(
            [int(float(r["timesteps"])) for r in have],
            [float(r[column]) for r in have],
            yerr=[float(r[f"{column}_ci95"]) for r in have],
            marker="o",
            label=label,
        )

    if "score" in rows[0]:
        series("score", "PPO")
        if best_known:
            ax.axhline(best_known, color="k", ls="--", label=f"optimal {best_known:.1f}")
        ax.set_ylabel("mean score")
    else:
        for opp in baselines(cfg):
            series(f"{opp}_chips", f"vs {opp}")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_ylabel("chips per game")
    ax.set_xlabel("timesteps")
    ax.set_title(cfg.run_dir.name)
    ax.legend()
    fig.tight_layout()
    with atomic_write(out) as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)


def learn_rest(model, total_timesteps: int, callback, progress_bar: bool, resume: bool) -> None:
    """Train ``model`` on up to ``total_timesteps`` steps in all: a resumed run (``resume``)
    goes on counting from its checkpoint; with a progress bar where ``progress_bar``. The
    TensorBoard logs (where the model keeps them) are named ``ppo``. A model with an
    entropy schedule (``ppo.ent_coef: {linear: [start, end]}``) has its coefficient set
    before every update, at the progress SB3 gives the learning rate's schedule."""
    remaining = total_timesteps - model.num_timesteps
    schedule = getattr(model, "ent_coef_schedule", None)
    if schedule is not None:
        callback = [*(callback if isinstance(callback, list) else [callback])]
        callback.append(_entropy_schedule(schedule))
    if remaining > 0:
        model.learn(
            remaining,
            callback=callback,
            progress_bar=progress_bar,
            reset_num_timesteps=not resume,
            tb_log_name="ppo",
        )


def _entropy_schedule(schedule):
    """An SB3 callback that sets ``model.ent_coef = schedule(progress remaining)`` after
    each rollout: the progress SB3 computes next for the learning rate (the run's steps so
    far against its total, a resumed run's included)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class EntropySchedule(BaseCallback):
        def _on_rollout_end(self) -> None:
            m = self.model
            m.ent_coef = float(schedule(1.0 - m.num_timesteps / m._total_timesteps))
            self.logger.record("train/ent_coef", m.ent_coef)

        def _on_step(self) -> bool:
            return True

    return EntropySchedule()


def next_multiple(step: int, every: int) -> int:
    """The first multiple of ``every`` after ``step`` (when the next evaluation or
    checkpoint falls due)."""
    return (step // every + 1) * every


def _evaluation_missing(path: Path, step: int, every: int) -> bool:
    """Whether the last evaluation due by ``step`` (a checkpoint's) has no row: the run was
    killed between saving that checkpoint and measuring it."""
    due = step // every * every
    if due == 0:
        return False
    if not path.exists():
        return True
    with path.open(newline="") as f:
        done = [int(float(r["timesteps"])) for r in csv.DictReader(f)]
    return not any(due <= t <= step for t in done)


def open_run(cfg: Config, trainer: str, resume: bool, model, last: Path | None):
    """Ready the run folder of an SB3 run of ``trainer`` (``pool/`` in it, of self-play
    snapshots; a fresh start removes an earlier attempt's) with ``config.yaml`` of the whole
    config; returns
    ``(metrics.csv rows, Clock, callback class, Progress)`` and says how much is left
    (``last``: the checkpoint resumed from, None for a fresh run)."""
    sections = cfg.sections(trainer)
    total, done = cfg.run.total_timesteps, model.num_timesteps
    rows, progress = open_folder(
        cfg.run_dir,
        resume,
        last,
        sections,
        "timesteps",
        total,
        done,
        None,
        ("pool",),
        ("pool/snap_*",),
    )
    clock, callback = clock_callback(rows.path, resume, model)
    return rows, clock, callback, progress


def save_model(model, path: Path, normalizer=None) -> None:
    """The model, and beside it (written first) the observation statistics where they are
    used (``make_agent("ppo:PATH")`` loads them); each file atomically, so a checkpoint's zip
    is there only when it is whole."""
    import pickle

    if normalizer is not None:
        with atomic_write(normalizer_path(path)) as f:
            pickle.dump(normalizer, f)
    with atomic_write(path) as f:
        model.save(f)


def resume_model(checkpoints: list[Path], normalize: bool, make_vec, load=load_model):
    """The newest checkpoint that loads, on the envs ``make_vec(step)`` builds (seeded afresh
    from the checkpoint's step, so a resumed run does not replay the episodes it began with);
    ``(checkpoint, model, vec)``, ``vec`` wrapped in its saved VecNormalize statistics where
    they are used (``normalize``). A checkpoint of another network or env is one line naming
    what differs."""
    from train.common.rundir import checkpoint_step

    last, model, normalizer = load_checkpoint(checkpoints, normalize, load)
    vec = make_vec(checkpoint_step(last))
    if normalize:
        normalizer.set_venv(getattr(vec, "venv", vec))
        vec = normalizer
    try:
        model.set_env(vec)
    except ValueError as err:
        raise ConfigError(f"--resume: {last.name} does not fit this config: {err}") from None
    return last, model, vec


def check_same_network(saved: Path, ppo: dict[str, Any]) -> None:
    """Refuse ``--resume`` when the config's network (``ppo.policy``, ``ppo.policy_kwargs``)
    is not the one the run was started with (its ``config.yaml``): the checkpoint would go
    on training the old one while the run's config describes the new one."""
    try:
        before = (yaml.safe_load(saved.read_text()) or {}).get("ppo") or {}
    except (OSError, yaml.YAMLError):
        return
    keys = ("policy", "policy_kwargs")
    flat = {}
    for name, section in (("before", before), ("now", ppo)):
        flat[name] = {k: section.get(k) for k in keys}
        flat[name].update(
            {f"policy_kwargs.{k}": v for k, v in (section.get("policy_kwargs") or {}).items()}
        )
        del flat[name]["policy_kwargs"]
    differ = sorted(
        k
        for k in set(flat["before"]) | set(flat["now"])
        if flat["before"].get(k) != flat["now"].get(k)
    )
    if differ:
        what = ", ".join(
            f"ppo.{k}: {flat['before'].get(k)!r} -> {flat['now'].get(k)!r}" for k in differ
        )
        raise ConfigError(
            f"--resume: the network differs from the run's config.yaml ({what}); "
            "resume with the config it was started with, or start a fresh run"
        )


class Clock(dict):
    """Where a PPO run's wall time goes (seconds, summed over the run, resumed runs
    included): stepping the envs with the policy (``rollout_s``), PPO's gradient epochs
    (``update_s``), evaluations (``eval_s``); carried on from the last metrics row."""

    def __init__(self, last: dict[str, str], step: int) -> None:
        super().__init__(
            {k: float(last.get(k, 0.0) or 0.0) for k in ("rollout_s", "update_s", "eval_s")}
        )
        self.wall_before = float(last.get("wall_s", 0.0) or 0.0)
        self.since = {"step": step, "train_s": self["rollout_s"] + self["update_s"]}

    def account(self, step: int, eval_seconds: float) -> dict[str, float | str]:
        """An evaluation of ``eval_seconds`` at ``step``: the clock columns of its row and
        ``steps_per_s``, env steps per training second in this process so far."""
        self["eval_s"] += eval_seconds
        train_s = self["rollout_s"] + self["update_s"]
        row: dict[str, float | str] = dict(self)
        row["steps_per_s"] = ""
        if step > self.since["step"] and train_s > self.since["train_s"]:
            row["steps_per_s"] = (step - self.since["step"]) / (train_s - self.since["train_s"])
        return row


def clock_callback(metrics: Path, resume: bool, model):
    """The run's :class:`Clock` and ``callback(events)``: an SB3 callback that keeps the
    clock and calls ``fn(step)`` of each ``(every, fn)`` of ``events`` when its next
    multiple falls due, in the order given (an evaluation before the checkpoint of the same
    step, so the checkpoint knows its row)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from train.common.config import last_row

    clock = Clock(last_row(metrics) if resume else {}, model.num_timesteps)

    class Periodic(BaseCallback):
        def __init__(self, events) -> None:
            super().__init__()
            self.events = events
            self.due = [next_multiple(model.num_timesteps, every) for every, _ in events]
            self.rollout_start = self.rollout_end = None
            self.eval_before = 0.0

        def _on_rollout_start(self) -> None:
            now = time.perf_counter()
            if self.rollout_end is not None:  # the update between two rollouts
                clock["update_s"] += now - self.rollout_end
            self.rollout_start, self.eval_before = now, clock["eval_s"]

        def _on_rollout_end(self) -> None:
            self.rollout_end = time.perf_counter()
            evaluating = clock["eval_s"] - self.eval_before  # evaluations run inside rollouts
            clock["rollout_s"] += self.rollout_end - self.rollout_start - evaluating
            self.logger.record("time/rollout_s", clock["rollout_s"])
            self.logger.record("time/update_s", clock["update_s"])

        def _on_training_end(self) -> None:
            if self.rollout_end is not None:  # the last update
                clock["update_s"] += time.perf_counter() - self.rollout_end
                self.rollout_end = None

        def _on_step(self) -> bool:
            step = self.num_timesteps
            for i, (every, fn) in enumerate(self.events):
                if step >= self.due[i]:
                    out = fn(step)
                    if isinstance(out, dict):  # an evaluation's row: to TensorBoard too
                        for key, value in out.items():
                            if key not in ("timesteps", *clock) and value != "":
                                self.logger.record(f"eval/{key}", value)
                    self.due[i] += every
            return True

    return clock, Periodic
