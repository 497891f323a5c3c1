"""Env steps per second with random legal actions, for every registered id.

    python benchmarks/env_speed.py [--steps 20000] [--repeats 5]

Prints the median over repeats (the machines are shared and noisy). Opponent
agents act inside ``step``, so the figure is given with random opponents and
with the default ones where an env has opponents.
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import time

import gymnasium as gym
import numpy as np

import envs  # noqa: F401  (registers the ids)
from envs import games


def steps_per_second(env_id: str, steps: int, seed: int = 0, **kwargs) -> float:
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| env id | opponents | steps/s (median) |")
    print("|---|---|---|")
    for env_id in [games.get(name).gym_id for name in games.names()]:
        params = inspect.signature(gym.spec(env_id).make().unwrapped.__init__).parameters
        variants = [None, {"opponents": "random"}] if "opponents" in params else [None]
        for extra in variants:
            runs = [
                steps_per_second(env_id, args.steps, seed=r, **(extra or {}))
                for r in range(args.repeats)
            ]
            label = "random" if extra else ("default" if "opponents" in params else "-")
            print(f"| {env_id} | {label} | {statistics.median(runs):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
