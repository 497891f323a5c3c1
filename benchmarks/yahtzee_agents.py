"""Scorecard-game agents: mean final score with a 95% confidence interval.

    python benchmarks/yahtzee_agents.py --games 10000
    python benchmarks/yahtzee_agents.py --agents heuristic --rules classic --option joker=free
    python benchmarks/yahtzee_agents.py --calibrate --games 20000   # mean score of every row

Each game is one episode of ``Yahtzee-v0`` / ``YahtzeeClassic-v0`` (the env's
observation and mask); game ``i`` uses env seed ``seed + i`` for every agent, so
agents face the same first rolls.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from tqdm import tqdm

import envs  # noqa: F401  (registers the ids)
from agents import make_agent

ENV_IDS = {"russian": "Yahtzee-v0", "classic": "YahtzeeClassic-v0"}
GAME_NAMES = {"russian": "yahtzee", "classic": "yahtzee_classic"}


def parse_option(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    parsed = {"True": True, "False": False}.get(value, value)
    return key, parsed


def play(agent_spec: str, rules: str, games: int, seed: int, options: dict, progress: bool):
    """Final totals, per-row scores and bonuses of ``games`` games."""
    env = gym.make(ENV_IDS[rules], **options)
    agent = make_agent(agent_spec, game=GAME_NAMES[rules], **options)
    agent.seed(seed)
    totals = np.empty(games)
    rows = []
    bonus = np.empty(games)
    for i in tqdm(range(games), desc=f"{agent_spec} {rules}", disable=not progress):
        obs, info = env.reset(seed=seed + i)
        done = False
        while not done:
            obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))
        totals[i] = info["total"]
        rows.append(list(info["card"].values()))
        bonus[i] = info["bonus"] > 0
    return totals, np.array(rows, dtype=float), list(info["card"]), bonus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"])
    parser.add_argument("--rules", nargs="+", default=["russian", "classic"])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option", action="append", default=[], help="a rule option, e.g. joker=free"
    )
    parser.add_argument(
        "--calibrate", action="store_true", help="also print every row's mean final score"
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    options = dict(parse_option(o) for o in args.option)
    lines = [
        "| rules | agent | games | mean (95% CI) | sd | min | max | bonus rate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rules in args.rules:
        for spec in args.agents:
            start = time.perf_counter()
            totals, rows, names, bonus = play(
                spec, rules, args.games, args.seed, options, not args.no_progress
            )
            n = len(totals)
            half = 1.96 * totals.std(ddof=1) / np.sqrt(n)
            mean = totals.mean()
            lines.append(
                f"| {rules} | {spec} | {n} | {mean:.2f} ({mean - half:.2f}-{mean + half:.2f}) "
                f"| {totals.std(ddof=1):.1f} | {totals.min():.0f} | {totals.max():.0f} "
                f"| {bonus.mean():.3f} |"
            )
            print(f"{spec} {rules}: {time.perf_counter() - start:.0f} s", flush=True)
            if args.calibrate:
                means = ", ".join(
                    f'"{r}": {m:.1f}' for r, m in zip(names, rows.mean(axis=0), strict=True)
                )
                print(f"row means ({spec}, {rules}): {{{means}}}", flush=True)
    print(f"\noptions {options or 'default'}, seed {args.seed}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
