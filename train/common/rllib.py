"""RLlib's side of the run protocol: the ``rllib:`` section of a config checked against
RLlib's own names (:func:`rllib_arguments`), the config (:func:`load_config`), the PPO
algorithm of the scorecard and poker tables (:func:`build_algorithm_config`, the league's
:func:`league_mapping`), ray started on this machine (:func:`init_ray`) and checkpoints
written whole. ``train/rllib.py`` trains with them; ``benchmarks/rllib_speed.py`` times them.
ray is imported only inside the functions that need it (the ``[rllib]`` extra)."""

from __future__ import annotations

import dataclasses
import inspect
import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.atomic import fsync_dir
from envs import games
from train.common.config import ConfigError
from train.common.sb3 import (
    Config,
    batched,
    check_env_and_opponents,
    load_env_run,
    scored_in_chips,
)

# RLlib's settings that train/rllib.py sets itself (from env:, run: and the command line).
SET_HERE = {
    "env",
    "env_config",
    "num_env_runners",
    "num_learners",
    "gym_env_vectorize_mode",
    "rl_module_spec",
    "policies",
    "policy_mapping_fn",
    "policies_to_train",
    "seed",
}
GROUPS = ("training", "env_runners", "learners")
ENV_NAME = "dicepoker"


@dataclass
class RLlibConfig(Config):
    """A train/ppo.py config with the checked ``rllib:`` section."""

    rllib: dict[str, Any] = field(default_factory=dict)

    @property
    def run_name(self) -> str:
        return f"{self.game}__{self.name}-rllib__{self.run.seed}"

    @property
    def self_play(self) -> bool:
        return scored_in_chips(self) and self.run.self_play.enabled


def _group_keys() -> dict[str, str]:
    """RLlib setting name -> the PPOConfig method that takes it."""
    from ray.rllib.algorithms.ppo import PPOConfig

    keys = {}
    for group in GROUPS:
        for cls in PPOConfig.__mro__:  # PPOConfig.training passes **kwargs to its base
            if group in vars(cls):
                for name in inspect.signature(vars(cls)[group]).parameters:
                    if name not in ("self", "kwargs") and name not in SET_HERE:
                        keys.setdefault(name, group)
    return keys


def rllib_arguments(section: dict[str, Any], where: str = "rllib") -> dict[str, dict[str, Any]]:
    """The ``rllib:`` section as ``{method: kwargs}`` plus ``"model"``; unknown keys raise."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    if not isinstance(section, dict):
        raise ConfigError(f"{where}: must be a mapping, got {section!r}")
    keys = _group_keys()
    out: dict[str, dict[str, Any]] = {g: {} for g in (*GROUPS, "model")}
    for key, value in section.items():
        name = "lambda_" if key == "lambda" else key
        if name == "model":
            fields = {f.name for f in dataclasses.fields(DefaultModelConfig)}
            if not isinstance(value, dict):
                raise ConfigError(f"{where}.model must be a mapping, got {value!r}")
            unknown = sorted(set(value) - fields)
            if unknown:
                raise ConfigError(
                    f"unknown key(s) {unknown} in {where}.model; DefaultModelConfig takes "
                    f"{sorted(fields)}"
                )
            out["model"] = dict(value)
        elif name in keys:
            out[keys[name]][name] = value
        elif name in SET_HERE:
            raise ConfigError(
                f"{where}.{key} is set by train/rllib.py (from env:, run: or the command line)"
            )
        else:
            raise ConfigError(
                f"unknown key {key!r} in {where}; RLlib's PPOConfig.training, .env_runners "
                f"and .learners take {sorted(keys)}, and model takes DefaultModelConfig's fields"
            )
    return out


def load_config(
    name: str, overrides: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None
) -> RLlibConfig:
    """The config ``name`` (env:, run: as train/ppo.py reads them; rllib: checked)."""
    path, data, env, run = load_env_run(name, overrides, env_kwargs, ("ppo", "rllib"), "rllib")
    section = data.get("rllib") or {}
    rllib_arguments(section, f"{path.name}: rllib")
    cfg = RLlibConfig(path.stem, env, {}, run, dict(section))
    check_env_and_opponents(cfg, path)
    for spec in fixed_players(cfg) if cfg.self_play else ():
        try:
            make_agent(spec, cfg.game)
        except (ValueError, TypeError) as err:
            raise ConfigError(f"{path.name}: env.kwargs.opponents: {err}") from None
    return cfg


# -- the RLlib algorithm ---------------------------------------------------------------------


def fixed_players(cfg: RLlibConfig) -> list[str]:
    """The league's fixed players: the env's ``opponents`` (a spec or a list of specs)."""
    opponents = cfg.env.kwargs.get("opponents", "heuristic")
    specs = [opponents] if isinstance(opponents, str) else list(opponents)
    if not specs or not all(isinstance(s, str) for s in specs):
        raise ConfigError(f"env.kwargs.opponents must be agent specs, got {opponents!r}")
    return list(dict.fromkeys(specs))


def league_mapping(n_players: int, fixed: list[str], snaps: list[str], fixed_share: float):
    """The ``agent -> module`` mapping of the league: the same draw for every seat of an
    episode (seeded by the episode's id), one random seat always ``main``."""

    def mapping(agent_id: str, episode, **kwargs) -> str:
        rng = random.Random(str(episode.id_))
        learner = rng.randrange(n_players)
        picks = []
        for seat in range(n_players):
            if seat == learner:
                picks.append("main")
            elif fixed and rng.random() < fixed_share:
                picks.append(fixed[rng.randrange(len(fixed))])
            else:
                pool = ["main", *snaps]
                picks.append(pool[rng.randrange(len(pool))])
        return picks[int(agent_id.rsplit("_", 1)[1])]

    return mapping


def build_algorithm_config(cfg: RLlibConfig, num_env_runners: int, num_learners: int):
    import gymnasium as gym
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.rllib import FixedAgentModule, MaskedPPOModule
    from envs.rllib import make_env

    register_env(ENV_NAME, make_env)
    args = rllib_arguments(cfg.rllib)
    kwargs = dict(cfg.env.kwargs)
    env_runners = {"num_envs_per_env_runner": cfg.run.n_envs, **args["env_runners"]}
    model = DefaultModelConfig(**args["model"])
    masked = RLModuleSpec(module_class=MaskedPPOModule, model_config=model)
    config = PPOConfig().framework("torch").debugging(seed=cfg.run.seed)
    config = config.training(**args["training"]).learners(
        num_learners=num_learners, **args["learners"]
    )
    if cfg.self_play:
        game = games.get(cfg.game)
        fixed = fixed_players(cfg)
        rules, _ = game.split_options(kwargs)
        table = {k: v for k, v in kwargs.items() if k not in ("opponents", "agent_seat")}
        n_players = int(kwargs.get("n_players", game.default_players))
        snaps = [f"snap_{i}" for i in range(cfg.run.self_play.pool_size)]
        specs = {"main": masked, **dict.fromkeys(snaps, masked)}
        for i, spec in enumerate(fixed):
            specs[f"fixed_{spec}"] = RLModuleSpec(
                module_class=FixedAgentModule,
                model_config={"game": cfg.game, "spec": spec, "rules": rules, "seed": i},
            )
        env_config = {"kind": "table", "game": cfg.game, "kwargs": table}
        # One table per env runner: the AEC env steps one seat at a time anyway.
        env_runners["num_envs_per_env_runner"] = args["env_runners"].get(
            "num_envs_per_env_runner", 1
        )
        config = config.multi_agent(
            policies=set(specs),
            policy_mapping_fn=league_mapping(
                n_players, [f"fixed_{s}" for s in fixed], snaps, cfg.run.self_play.heuristic_share
            ),
            policies_to_train=["main"],
        ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        mode = gym.VectorizeMode.SYNC
    else:
        kind = "vector" if batched(cfg) else "single"
        env_config = {"kind": kind, "env_id": cfg.env.id, "game": cfg.game, "kwargs": kwargs}
        config = config.rl_module(rl_module_spec=masked)
        mode = gym.VectorizeMode.VECTOR_ENTRY_POINT if kind == "vector" else gym.VectorizeMode.SYNC
    # RLlib's multi-agent env check steps the table with unmasked random actions, which a
    # table rightly refuses (card poker's draw phase): the masked module is checked instead.
    config = config.environment(ENV_NAME, env_config=env_config, disable_env_checking=cfg.self_play)
    config = config.env_runners(
        num_env_runners=num_env_runners, gym_env_vectorize_mode=mode, **env_runners
    )
    return config


def module_id(cfg: RLlibConfig) -> str:
    return "main" if cfg.self_play else "default_policy"


def take_snapshot(algo, slot: str) -> None:
    """Copy ``main``'s weights into the frozen module ``slot``, on learners and env runners."""
    weights = algo.learner_group.get_weights(module_ids=["main"])["main"]
    algo.learner_group.set_weights({slot: weights})
    algo.env_runner_group.sync_weights(
        policies=[slot], from_worker_or_learner_group=algo.learner_group, inference_only=True
    )


def save_algorithm(algo, folder: Path) -> None:
    """An algorithm checkpoint written beside ``folder`` and renamed into place."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    os.replace(tmp, folder)
    fsync_dir(folder.parent)


def export_model(checkpoint: Path, mid: str, out: Path) -> None:
    """The trained module of ``checkpoint`` as ``out`` (an RLModule folder)."""
    src = checkpoint / "learner_group" / "learner" / "rl_module" / mid
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    fsync_dir(out.parent)


def init_ray(address: str | None, num_env_runners: int, num_learners: int) -> None:
    import ray

    if address:
        ray.init(address=address)
    else:
        # One logical CPU per actor even on a small machine: they share the cores.
        cpus = max(os.cpu_count() or 1, 1 + num_env_runners + num_learners)
        ray.init(num_cpus=cpus, include_dashboard=False)
