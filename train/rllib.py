"""Train with Ray RLlib's PPO (new API stack) from the same YAML configs as train/ppo.py.

    pip install -e ".[rllib]"          # in its own venv: ray pins its own gymnasium
    python train/rllib.py --config yahtzee_classic_ppo.yaml --total-timesteps 200000
    python train/rllib.py --config dice_poker.yaml --num-env-runners 2
    python train/rllib.py --config dice_poker.yaml --address auto    # on a running cluster
    python train/rllib.py --config dice_poker.yaml --resume

The ``env:`` and ``run:`` sections are read by train/ppo.py's own loader (the same keys, the
same checks; a key only train/ppo.py honours, such as ``run.normalize_reward``, stops the
run at load: ``train.common.config.HONOURED_BY``); ``ppo:`` is ignored; ``rllib:`` holds
RLlib's settings in RLlib's own names: the keyword arguments of ``PPOConfig.training``,
``.env_runners`` and ``.learners`` (``lambda`` may be written for ``lambda_``), and
``model:`` with the fields of ``DefaultModelConfig`` (``fcnet_hiddens``,
``fcnet_activation``, ...). An unknown key is an error that names it.

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
``tools/play.py --opponents rllib:...``). Evaluations are train/ppo.py's own
(``measure``): the policy plays the single-agent env, most likely legal action.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import contextlib
import functools
from pathlib import Path

from envs.cli import add_rule_argument, rule_options
from train.common.config import ConfigError, command_line
from train.common.results import model_line
from train.common.rllib import (
    RLlibConfig,
    build_algorithm_config,
    export_model,
    init_ray,
    load_config,
    module_id,
    save_algorithm,
    take_snapshot,
)
from train.common.rundir import checkpoint_step, due, open_folder, resuming, tracked_files
from train.common.sb3 import (
    finish,
    format_result,
    measure,
    optimal_score,
    scored_in_chips,
)


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
        (p for p in ckpt_dir.glob("step_*") if p.is_dir() and p.name[5:].isdigit()),
        key=checkpoint_step,
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
        run_dir,
        checkpoints[-1],
        checkpoint_step(checkpoints[-1]),
        cfg.run.total_timesteps,
        "timesteps",
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
    steps, total = checkpoint_step(last) if last else 0, cfg.run.total_timesteps
    sections = {"trainer": "rllib", "env": cfg.env, "rllib": cfg.rllib, "run": cfg.run}
    sections["ray"] = {"num_env_runners": args.num_env_runners, "num_learners": args.num_learners}
    every = cfg.run.eval_every  # a resumed run's rows match the killed one's by evaluation
    rows, progress = open_folder(
        run_dir, args.resume, last, sections, "timesteps", total, steps, every=every
    )
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
    reference = finish(cfg, rows.path, final, best_known)["heuristic"]
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
