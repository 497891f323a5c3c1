"""Train a MaskablePPO agent on any dicepoker-gym env from one YAML config.

    python train/ppo.py --config quickstart.yaml
    python train/ppo.py --config yahtzee.yaml --total-timesteps 2000000 --seed 1
    python train/ppo.py --config dice_poker.yaml --resume
    python train/ppo.py --config dice_poker.yaml --rule lock_kept_dice=false --out runs/free

A bare file name is looked up in ``configs/``. The config names its trainer
(``trainer: ppo``) and has three sections: ``env:`` (``id`` and ``kwargs``), ``ppo:``
(exactly MaskablePPO's constructor arguments) and ``run:`` (the fields of
:class:`~train.common.sb3.RunConfig`). Everything lands in
``runs/{game}__{config}__{seed}/`` (numbered ``_2``, ``_3``... when that one is taken; see
:mod:`train.common.rundir`): ``model.zip``, ``config.yaml`` (resolved), ``metrics.csv``,
``progress.log``, ``curve.png``, ``final.json``, ``checkpoints/`` and TensorBoard logs.
``--rule KEY=VALUE`` (repeatable) sets ``env.kwargs[KEY]`` over the config's value.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import functools
import time
from pathlib import Path

from envs.cli import add_rule_argument, rule_options
from train.common.config import ConfigError, add_run_arguments, command_line, run_overrides
from train.common.results import model_line
from train.common.rundir import choose_run_dir, resuming
from train.common.sb3 import (
    Config,
    _evaluation_missing,
    build_model,
    check_same_network,
    finish,
    format_result,
    learn_rest,
    load_config,
    make_vec_env,
    measure,
    normalized,
    open_run,
    optimal_score,
    resume_model,
    rule_keys,
    save_model,
    scored_in_chips,
    setup_torch,
)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="Train MaskablePPO from a YAML config.")
    add_run_arguments(parser)
    add_rule_argument(parser, example="lock_kept_dice=false")
    args = parser.parse_args(argv)
    rules = rule_options(parser, args, rule_keys(args.config))
    cfg = load_config(args.config, run_overrides(args), rules, ("ppo",))
    setup_torch(cfg.run.torch_threads)
    run_dir, checkpoints = choose_run_dir(cfg.run_dir, args.resume, args.run, "step_*.zip")
    cfg.use_folder(run_dir)

    # Model and envs are built before any file is written: what MaskablePPO rejects leaves
    # nothing behind.
    last, model, vec = model_and_envs(cfg, args.resume, checkpoints)
    best_known = None if scored_in_chips(cfg) else optimal_score(cfg)
    rows, clock, callback, progress = open_run(cfg, "ppo", args.resume, model, last)
    normalizer = vec if normalized(cfg.run) else None  # its statistics go with every save

    def record(step: int, n_episodes: int, label: str = "") -> dict[str, float]:
        from agents.ppo import PPOAgent

        tick = time.perf_counter()
        row = {"timesteps": step, "wall_s": progress.elapsed()}
        row.update(measure(PPOAgent.from_model(model, normalizer), cfg, n_episodes, best_known))
        row.update(clock.account(step, time.perf_counter() - tick))
        rows.add(row)
        progress.line(step, row, label)
        return row

    def save(path: Path) -> None:
        save_model(model, path, normalizer)

    def checkpoint(step: int) -> None:
        rows.checkpoint(f"step_{step}.zip", save)

    events = [(cfg.run.eval_every, lambda step: record(step, cfg.run.eval_episodes))]
    events.append((cfg.run.checkpoint_every, checkpoint))
    if cfg.run.self_play.enabled:  # the pool of snapshots the opponents are drawn from
        snapshot = lambda step: save(run_dir / "pool" / f"snap_{step:012d}.zip")  # noqa: E731
        events.insert(0, (cfg.run.self_play.snapshot_every, snapshot))
    if not args.resume:
        record(0, cfg.run.eval_episodes)  # the untrained policy: the curve's first point
    elif _evaluation_missing(rows.path, model.num_timesteps, cfg.run.eval_every):
        record(model.num_timesteps, cfg.run.eval_episodes)  # a row lost (older checkpoints)
    learn_rest(model, cfg.run.total_timesteps, callback(events), not args.no_progress, args.resume)
    if not (run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip").exists():
        checkpoint(model.num_timesteps)  # a kill from here on resumes to the final evaluation
    save(run_dir / "model.zip")
    final = record(model.num_timesteps, cfg.run.final_eval_episodes, "final: ")
    record_videos(cfg, model, normalizer)
    vec.close()
    yardsticks = finish(cfg, rows.path, final, best_known)
    report(cfg, model, final, yardsticks, clock, best_known)
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "ppo.py")


def model_and_envs(cfg: Config, resume: bool, checkpoints: list[Path]):
    """MaskablePPO and its envs, fresh from the config, or (``resume``) from the newest
    checkpoint that loads, on envs seeded afresh at its step; ``(checkpoint or None, model,
    envs)``. A resumed run must train further, with the network it was started with."""
    tensorboard = str(cfg.run_dir / "tb")
    if not resume:
        vec = make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed)
        return None, build_model(cfg.ppo, vec, cfg.run.seed, tensorboard_log=tensorboard), vec
    check_same_network(cfg.run_dir / "config.yaml", cfg.ppo)
    envs_at = lambda step: make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed + step)  # noqa: E731
    last, model, vec = resume_model(checkpoints, normalized(cfg.run), envs_at)
    check_same_normalization(cfg, last)
    model.tensorboard_log = tensorboard
    resuming(cfg.run_dir, last, model.num_timesteps, cfg.run.total_timesteps, "timesteps")
    return last, model, vec


def check_same_normalization(cfg: Config, last: Path) -> None:
    """Refuse ``--resume`` when ``run.normalize_obs`` / ``run.normalize_reward`` are not what
    checkpoint ``last`` was trained with (its saved VecNormalize, or none)."""
    from agents.ppo import load_normalizer

    stats = load_normalizer(last)
    saved = {"normalize_obs": False, "normalize_reward": False}
    if stats is not None:
        saved = {"normalize_obs": stats.norm_obs, "normalize_reward": stats.norm_reward}
    now = {key: getattr(cfg.run, key) for key in saved}
    if saved != now:
        what = ", ".join(f"run.{k}: {saved[k]} -> {now[k]}" for k in saved if saved[k] != now[k])
        raise ConfigError(
            f"--resume: {last.name} was trained otherwise ({what}); resume with the settings "
            "it was started with, or start a fresh run"
        )


def record_videos(cfg: Config, model, normalizer) -> None:
    """``run.record_games`` evaluation games of the trained model as ``videos/game_k.gif``."""
    import gymnasium as gym

    from agents.ppo import PPOAgent
    from envs.render.record import record_episode

    agent = PPOAgent.from_model(model, normalizer)
    for k in range(cfg.run.record_games):
        env = gym.make(cfg.env.id, render_mode="rgb_array", **cfg.env.kwargs)
        record_episode(env, agent, cfg.run_dir / "videos" / f"game_{k}.gif", seed=20_000_000 + k)


def report(cfg: Config, model, final: dict, yardsticks: dict, clock, best_known) -> None:
    """The closing lines: steps, time, throughput, the learner beside the yardsticks."""
    print(f"\n{cfg.run_dir.name}: {model.num_timesteps} steps in {final['wall_s']:.0f} s")
    train_s = clock["rollout_s"] + clock["update_s"]
    if train_s > 0:
        print(
            f"throughput: {model.num_timesteps / train_s:,.0f} env steps/s while training "
            f"(rollout {clock['rollout_s']:.0f} s, update {clock['update_s']:.0f} s, "
            f"evaluations {clock['eval_s']:.0f} s)"
        )
    for name, row in {"PPO": final, **yardsticks}.items():
        print(f"{name:<10}" + format_result(row, cfg, best_known).replace("\n", "\n" + " " * 10))
    print(model_line("ppo", cfg.run_dir / "model.zip", cfg.game))


if __name__ == "__main__":
    cli()
