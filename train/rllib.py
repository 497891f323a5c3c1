"""Train with Ray RLlib's PPO (new API stack) from the same YAML configs as train/ppo.py.

    pip install -e ".[rllib]"          # in its own venv: ray pins its own gymnasium
    python train/rllib.py --config yahtzee_classic_ppo.yaml --total-timesteps 200000
    python train/rllib.py --config dice_poker.yaml --num-env-runners 2
    python train/rllib.py --config dice_poker.yaml --address auto    # on a running cluster
    python train/rllib.py --config dice_poker.yaml --resume

The ``env:`` and ``run:`` sections are read by train/ppo.py's own loader (the same keys,
the same checks); ``ppo:`` is ignored; ``rllib:`` holds RLlib's settings in RLlib's own
names: the keyword arguments of ``PPOConfig.training``, ``.env_runners`` and ``.learners``
(``lambda`` may be written for ``lambda_``), and ``model:`` with the fields of
``DefaultModelConfig`` (``fcnet_hiddens``, ``fcnet_activation``, ...). An unknown key is
an error that names it.

What is trained:

- **Scorecard games** (and a poker game with ``run.self_play.enabled: false``): one masked
  policy (``agents.rllib.MaskedPPOModule``) on the batched engine as a vector env with
  ``gym_env_vectorize_mode="vector_entry_point"`` (``envs.rllib.NextStepVectorEnv``;
  ``run.engine: scalar``, or an id without a batched engine, vectorises single envs),
  ``num_envs_per_env_runner`` games per env runner (default ``run.n_envs``).
- **Poker games with self-play**: every seat of the PettingZoo table
  (``envs.rllib.TurnTable``) is an agent. One shared policy ``main`` learns from every
  seat it holds; a league as in RLlib's league example: each episode one random seat is
  ``main`` and every other seat is a fixed player (the env's ``opponents``, e.g.
  ``heuristic``, as ``agents.rllib.FixedAgentModule``) with probability
  ``run.self_play.heuristic_share``, else ``main`` itself or one of ``pool_size`` frozen
  snapshots of it (``snap_0`` ..), refreshed round-robin every ``snapshot_every`` steps.

Everything lands in ``runs/{game}__{config}-rllib__{seed}/`` as train/ppo.py lays it out:
``config.yaml`` (resolved), ``metrics.csv``, ``curve.png``, ``final.json``,
``checkpoints/step_N/`` (RLlib algorithm checkpoints, for ``--resume``) and ``model/``
(the trained policy: ``make_agent("rllib:runs/.../model", game=...)``, the arena,
``train/play.py --opponents rllib:...``). Evaluations are train/ppo.py's own
(``measure``): the policy plays the single-agent env, most likely legal action.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import contextlib
import dataclasses
import functools
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
from envs.cli import add_rule_argument, rule_options
from train.common.config import ConfigError, command_line
from train.common.results import model_line
from train.common.rundir import due, open_folder, resuming, tracked_files
from train.common.sb3 import (
    Config,
    batched,
    check_env_and_opponents,
    finish,
    format_result,
    load_env_run,
    measure,
    optimal_score,
    scored_in_chips,
)

# RLlib's settings that this script sets itself (from env:, run: and the command line).
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
    path, data, env, run = load_env_run(name, overrides, env_kwargs, ("ppo", "rllib"))
    section = data.get("rllib") or {}
    rllib_arguments(section, f"{path.name}: rllib")
    cfg = RLlibConfig(path.stem, env, {}, run, dict(section))
    if run.normalize_obs:
        raise ConfigError(
            f"{path.name}: run.normalize_obs is not supported by train/rllib.py "
            "(use a reward_scale and the observation's own bounds)"
        )
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


def _steps(path: Path) -> int:
    return int(path.name.split("_")[1])


def init_ray(address: str | None, num_env_runners: int, num_learners: int) -> None:
    import ray

    if address:
        ray.init(address=address)
    else:
        # One logical CPU per actor even on a small machine: they share the cores.
        cpus = max(os.cpu_count() or 1, 1 + num_env_runners + num_learners)
        ray.init(num_cpus=cpus, include_dashboard=False)


def _at_least_zero(text: str) -> int:
    """A whole number >= 0 (an option's value; argparse names the option)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Train with Ray RLlib's PPO from a YAML config.")
    parser.add_argument("--config", required=True, help="a YAML file, or a name in configs/")
    parser.add_argument("--total-timesteps", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--out", dest="out_dir")
    parser.add_argument("--n-envs", type=int, help="games per env runner (run.n_envs)")
    count = _at_least_zero
    parser.add_argument("--num-env-runners", type=count, default=0, help="0: sample on the driver")
    parser.add_argument("--num-learners", type=count, default=0, help="0: learn on the driver")
    parser.add_argument("--address", help="a Ray cluster to join ('auto': the local one)")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    add_rule_argument(parser, example="lock_kept_dice=false")
    return parser


def run_folder(cfg: RLlibConfig, resume: bool) -> tuple[Path, Path | None]:
    """The run folder (``{game}__{config}-rllib__{seed}``) and, with ``resume``, its newest
    checkpoint (a ``step_N`` folder): a fresh run refuses a finished one, ``--resume`` needs
    a checkpoint, and no run writes over files that git tracks."""
    run_dir = cfg.run_dir
    ckpt_dir = run_dir / "checkpoints"
    checkpoints = sorted(
        (p for p in ckpt_dir.glob("step_*") if p.is_dir() and p.name[5:].isdigit()), key=_steps
    )
    if (run_dir / "model").exists() and not resume:
        raise FileExistsError(f"{run_dir} already holds a finished run; use --out or --seed")
    if resume and not checkpoints:
        raise FileNotFoundError(f"--resume: no checkpoint in {ckpt_dir}")
    if tracked_files(run_dir):
        raise ConfigError(
            f"{run_dir} holds files tracked by git; a run never writes over them: "
            "choose --out or --seed"
        )
    if not resume:
        return run_dir, None
    resuming(
        run_dir, checkpoints[-1], _steps(checkpoints[-1]), cfg.run.total_timesteps, "timesteps"
    )
    return run_dir, checkpoints[-1]


@contextlib.contextmanager
def ray_running(address: str | None, num_env_runners: int, num_learners: int):
    """Ray, started (:func:`init_ray`) for the block and shut down after it, whatever
    happens in it."""
    import ray

    init_ray(address, num_env_runners, num_learners)
    try:
        yield
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> Path:
    parser = build_parser()
    args = parser.parse_args(argv)
    overrides = {k: getattr(args, k) for k in ("total_timesteps", "seed", "out_dir", "n_envs")}
    cfg = load_config(args.config, overrides, rule_options(parser, args))
    import torch

    from agents.rllib import RLlibAgent

    torch.set_num_threads(cfg.run.torch_threads)
    run_dir, last = run_folder(cfg, args.resume)
    steps, total = _steps(last) if last else 0, cfg.run.total_timesteps
    sections = {"trainer": "rllib", "env": cfg.env, "rllib": cfg.rllib, "run": cfg.run}
    sections["ray"] = {"num_env_runners": args.num_env_runners, "num_learners": args.num_learners}
    rows, progress = open_folder(run_dir, args.resume, last, sections, "timesteps", total, steps)
    with ray_running(args.address, args.num_env_runners, args.num_learners):
        algo = build_algorithm_config(cfg, args.num_env_runners, args.num_learners).build_algo()
        say_nodes(algo, args.num_env_runners)
        mid, sp = module_id(cfg), cfg.run.self_play
        best_known = None if scored_in_chips(cfg) else optimal_score(cfg)
        snaps = [f"snap_{i}" for i in range(sp.pool_size)] if cfg.self_play else []
        if last is not None:
            algo.restore_from_path(str(last.resolve()))
        else:
            for slot in snaps:  # the pool starts as copies of the untrained policy
                take_snapshot(algo, slot)

        def record(step: int, n_episodes: int, label: str = "") -> dict[str, float]:
            row = {"timesteps": step, "wall_s": progress.elapsed()}
            agent = RLlibAgent.from_module(algo.get_module(mid))
            row.update(measure(agent, cfg, n_episodes, best_known))
            rows.add(row)
            progress.line(step, row, label)
            return row

        def checkpoint(step: int) -> None:
            rows.checkpoint(f"step_{step}", lambda path: save_algorithm(algo, path))

        if last is None:
            record(0, cfg.run.eval_episodes)
        while steps < total:
            sampled = int(algo.train()["env_runners"]["num_env_steps_sampled"])
            steps += sampled
            if snaps and due(steps, sampled, sp.snapshot_every):
                take_snapshot(algo, snaps[(steps // sp.snapshot_every - 1) % len(snaps)])
            if due(steps, sampled, cfg.run.eval_every):  # before the checkpoint: it knows its row
                record(steps, cfg.run.eval_episodes)
            if due(steps, sampled, cfg.run.checkpoint_every):
                checkpoint(steps)
        if not (run_dir / "checkpoints" / f"step_{steps}").exists():
            checkpoint(steps)  # a kill from here on resumes to the final evaluation
        export_model(run_dir / "checkpoints" / f"step_{steps}", mid, run_dir / "model")
        final = record(steps, cfg.run.final_eval_episodes, "final: ")
        algo.stop()
    reference = finish(cfg, rows.path, final, best_known)
    print(report(cfg, run_dir, steps, final, reference, best_known))
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "rllib.py")


def say_nodes(algo, num_env_runners: int) -> None:
    """Where the env runners run (one line), when there are any."""
    import ray

    if num_env_runners:
        nodes = algo.env_runner_group.foreach_env_runner(
            lambda _: ray.get_runtime_context().get_node_id(), local_env_runner=False
        )
        print("env runners on nodes: " + " ".join(nodes))


def report(cfg: RLlibConfig, run_dir: Path, steps: int, final, reference, best_known) -> str:
    """The closing lines: steps and time, the learner beside the heuristic, the model."""
    return "\n".join(
        [
            f"\n{cfg.run_name}: {steps} steps in {final['wall_s']:.0f} s",
            "RLlib     " + format_result(final, cfg, best_known).replace("\n", "\n          "),
            "heuristic " + format_result(reference, cfg, best_known).replace("\n", "\n          "),
            model_line("rllib", run_dir / "model", cfg.game),
        ]
    )


if __name__ == "__main__":
    cli()
