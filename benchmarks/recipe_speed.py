"""Training speed of the recipe configs side by side, and their equal-wall-time budgets.

    python benchmarks/recipe_speed.py                      # every configs/recipe/*.yaml
    python benchmarks/recipe_speed.py --steps 100000 --rounds 3 --only recipe_base recipe_a2c

Each config's model and envs are built as ``train/ppo.py`` builds them (VecNormalize where
the config asks for it), then every round trains each config about ``--steps`` env steps
in turn (whole rollouts and updates, without train/ppo.py's evaluations), so a busy
machine slows them alike; the first round warms torch up and is not counted. Printed per
config: the median over ``--rounds`` rounds of its steps/s, the ratio to the base
(``recipe_base``), and the step budget that takes the base's wall time: the base's
``run.total_timesteps`` x that ratio, in whole 100,000s. Each config's own
``run.torch_threads`` (the recipe's: 1).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import math
import time

import numpy as np

from benchmarks.timing import time_rounds
from train.common.config import CONFIG_DIR
from train.common.sb3 import build_model, load_config, make_vec_env, setup_torch

BASE = "recipe_base"


class _Chunk:
    """A config's model (built as train/ppo.py builds it), trained ``steps`` env steps per
    round, rounded up to whole rollouts."""

    def __init__(self, cfg, steps: int) -> None:
        vec = make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed)
        self.model = build_model(cfg.ppo, vec, cfg.run.seed)
        per_rollout = self.model.n_steps * cfg.run.n_envs
        self.steps = max(1, math.ceil(steps / per_rollout)) * per_rollout

    def round(self) -> float:
        start = time.perf_counter()
        self.model.learn(self.steps, reset_num_timesteps=False)
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="env steps per round")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per config")
    parser.add_argument("--only", nargs="+", help="config names of configs/recipe/ (and base)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        parser.error(f"--rounds and --steps must be >= 1, got {args.rounds} and {args.steps}")
    names = sorted(p.stem for p in (CONFIG_DIR / "recipe").glob("*.yaml"))
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"--only: no configs/recipe/ config {unknown}; there are {names}")
        names = sorted({BASE, *args.only})
    configs = {name: load_config(f"recipe/{name}.yaml") for name in names}
    setup_torch(configs[BASE].run.torch_threads)
    threads = {c.run.torch_threads for c in configs.values()}
    if len(threads) > 1:
        parser.error(f"the configs ask for different run.torch_threads {sorted(threads)}")
    chunks = {name: _Chunk(cfg, args.steps) for name, cfg in configs.items()}
    times = time_rounds(chunks, args.rounds)
    rates = {name: float(np.median(chunks[name].steps / np.array(t))) for name, t in times.items()}
    base_total = configs[BASE].run.total_timesteps
    print(
        f"recipe configs, about {args.steps:,} env steps per round each, medians of "
        f"{args.rounds} rounds, torch threads {threads.pop()}; budget = {base_total:,} x ratio"
    )
    print("| config | steps/s | vs base | equal-wall-time budget | config's total_timesteps |")
    print("|---|---|---|---|---|")
    for name, rate in rates.items():
        ratio = rate / rates[BASE]
        budget = round(base_total * ratio / 100_000) * 100_000
        total = configs[name].run.total_timesteps
        print(f"| {name} | {rate:,.0f} | {ratio:.2f}x | {budget:,} | {total:,} |")


if __name__ == "__main__":
    main()
