"""What ``reset(seed=[...])`` (one stream per game, ``envs.batched.draws``) costs against
``reset(seed=int)`` (one Generator for the batch) on the batched vector envs.

    python benchmarks/per_game_seeds.py                       # the default cases
    python benchmarks/per_game_seeds.py --case CardPoker-v0:1024 --repeats 7

Random legal actions drawn in batch (``benchmarks.timing.random_actions``, part of the time),
``gym.make_vec(..., vectorization_mode="vector_entry_point")`` stepped for ``--seconds``;
the two seedings alternate in one process and each figure is the median of ``--repeats``
runs of CPU time (the machine is shared: the ratio is the figure to quote). Printed per
case: steps/s with an int seed, with a seed list, and their ratio (list / int).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import envs  # noqa: E402, F401  (registers the ids)
from benchmarks.timing import random_actions  # noqa: E402

CASES = ("YahtzeeClassic-v0:1024", "DicePoker-v0:1024", "CardPoker-v0:1024")


def steps_per_second(env_id: str, n: int, seed, seconds: float) -> float:
    vec = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    rng = np.random.default_rng(0)
    _, info = vec.reset(seed=seed)
    steps, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        _, _, _, _, info = vec.step(random_actions(rng, info["action_mask"]))
        steps += 1
    return steps * n / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="ENV_ID:N (repeatable)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    for case in args.case or CASES:
        env_id, n = case.rsplit(":", 1)
        n = int(n)
        by_int, by_list = [], []
        for _ in range(args.repeats):
            by_int.append(steps_per_second(env_id, n, 0, args.seconds))
            by_list.append(steps_per_second(env_id, n, list(range(n)), args.seconds))
        a, b = float(np.median(by_int)), float(np.median(by_list))
        print(f"{env_id} N={n}: int seed {a:,.0f} steps/s, seed list {b:,.0f} ({b / a:.2f}x)")


if __name__ == "__main__":
    main()
