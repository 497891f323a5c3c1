"""What rgb_array pictures cost, and proof that render_mode=None pays nothing for them.

    python benchmarks/render_speed.py [--frames 300] [--steps 5000] [--repeats 3] [--compare DIR]

Prints, for every registered id: frames/s of ``env.render()`` with
``render_mode="rgb_array"`` (drawing only, over random games), and env steps/s with
``render_mode=None`` (random legal actions, random opponents). With ``--compare DIR``
(another checkout, e.g. the main branch before this feature) the steps/s of both trees
are measured in the same run, in alternating subprocesses, medians over ``--repeats``.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from envs import games

ROOT = Path(__file__).resolve().parent.parent

# run in a subprocess inside a tree: steps/s of every id with render_mode=None
STEP_SPEED = """
import inspect, json, sys, time
import gymnasium as gym, numpy as np
import envs
try:
    from envs import games
    ids = [games.get(n).gym_id for n in games.names()]
except ImportError:  # a tree from before the game registry
    ids = list(envs._IDS)
steps = int(sys.argv[1])
out = {}
for env_id in ids:
    params = inspect.signature(gym.spec(env_id).make().unwrapped.__init__).parameters
    kwargs = {"opponents": "random"} if "opponents" in params else {}
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
    out[env_id] = steps / (time.perf_counter() - start)
print(json.dumps(out))
"""


def frames_per_second(env_id: str, n_frames: int, seed: int = 0) -> tuple[float, tuple]:
    env = gym.make(env_id, render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    env.render()  # fonts and card images are loaded once; not counted
    spent, shape = 0.0, None
    for _ in range(n_frames):
        start = time.perf_counter()
        frame = env.render()
        spent += time.perf_counter() - start
        shape = frame.shape
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
    return n_frames / spent, shape


def step_speeds(tree: Path, steps: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", STEP_SPEED, str(steps)],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare", type=Path, default=None, help="another checkout to compare")
    args = parser.parse_args()
    trees = {"this tree": ROOT}
    if args.compare is not None:
        trees[f"{args.compare}"] = args.compare.resolve()
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for r in range(args.repeats):
        # alternating, first one tree then the other first, so both see the same load
        for name, tree in list(trees.items())[:: 1 if r % 2 == 0 else -1]:
            runs[name].append(step_speeds(tree, args.steps))
    head = " | ".join(f"steps/s None ({name})" for name in trees)
    print(f"| env id | frame (H×W) | rgb_array frames/s | {head} |")
    print("|---|---|---|" + "---|" * len(trees))
    for env_id in [games.get(n).gym_id for n in games.names()]:
        fps, shape = frames_per_second(env_id, args.frames)
        speeds = " | ".join(
            f"{statistics.median(r[env_id] for r in runs[name]):,.0f}" for name in trees
        )
        print(f"| {env_id} | {shape[0]}×{shape[1]} | {fps:,.0f} | {speeds} |", flush=True)


if __name__ == "__main__":
    main()
