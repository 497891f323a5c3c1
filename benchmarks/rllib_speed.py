"""Training throughput (env steps per second, sampling and learning together) of
train/rllib.py with 1, 2 and 4 env runners beside train/ppo.py, on the same config.

    python benchmarks/rllib_speed.py --config yahtzee_classic_ppo.yaml --iterations 3

Needs the ``[rllib]`` extra. Each RLlib setting starts a local Ray instance, builds the
algorithm, runs one warm-up iteration, then times ``--iterations`` calls of ``train()``;
train/ppo.py is timed on one warm-up rollout, then ``--iterations`` rollouts and updates
of MaskablePPO (``n_steps * n_envs`` steps each) on its own engine (``run.engine``).
Each RLlib iteration samples ``train_batch_size_per_learner`` steps. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

from train.common import rllib as train_rllib  # noqa: E402
from train.common import sb3 as train_ppo  # noqa: E402


def rllib_speed(config: str, runners: int, iterations: int) -> float:
    import ray

    cfg = train_rllib.load_config(config)
    train_rllib.init_ray(None, runners, 0)
    try:
        algo = train_rllib.build_algorithm_config(cfg, runners, 0).build_algo()
        algo.train()  # warm-up: first forward passes, actor start-up
        steps, start = 0, time.perf_counter()
        for _ in range(iterations):
            steps += int(algo.train()["env_runners"]["num_env_steps_sampled"])
        rate = steps / (time.perf_counter() - start)
        algo.stop()
    finally:
        ray.shutdown()
    return rate


def ppo_speed(config: str, iterations: int) -> float:
    import torch
    from sb3_contrib import MaskablePPO

    cfg = train_ppo.load_config(config)
    torch.set_num_threads(cfg.run.torch_threads)
    vec = train_ppo.make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed)
    model = MaskablePPO(
        env=vec, seed=cfg.run.seed, device="cpu", verbose=0, **train_ppo.ppo_arguments(cfg.ppo)
    )
    per_update = model.n_steps * cfg.run.n_envs
    model.learn(per_update)  # warm-up
    start = time.perf_counter()
    model.learn(per_update * iterations, reset_num_timesteps=False)
    return per_update * iterations / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="yahtzee_classic_ppo.yaml")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    rows = [("train/ppo.py (MaskablePPO)", ppo_speed(args.config, args.iterations))]
    for k in args.runners:
        label = f"train/rllib.py --num-env-runners {k}"
        rows.append((label, rllib_speed(args.config, k, args.iterations)))
        print(f"{label}: {rows[-1][1]:,.0f} steps/s", file=sys.stderr)
    print(f"\n{args.config}, {args.iterations} timed iterations each\n")
    print("| trainer | env steps/s |\n|---|---|")
    for label, rate in rows:
        print(f"| {label} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
