"""Scorecard-game agents: mean final score with a 95% confidence interval.

    python benchmarks/scorecard_agents.py --games 10000
    python benchmarks/scorecard_agents.py --agents heuristic --rules classic --rule joker=free
    python benchmarks/scorecard_agents.py --calibrate --games 20000   # mean score of every row

The games are played by the arena (:mod:`agents.arena`, which
``tools/benchmark.py --game yahtzee`` reports in full) from the env's observation
and mask; game ``i`` rolls the same dice stream for every agent (common random
numbers), so agents face the same first rolls.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import sys
import time

import numpy as np

from agents.arena import default_workers, run_arena
from envs import games as registry
from envs.cli import add_rule_argument, rule_options
from envs.rules.scorecard import rows_of

# the scorecard games of the registry by their rule set (the id fixes ``rules``)
GAME_NAMES = {
    g.gym_kwargs["rules"]: g.name
    for g in map(registry.get, registry.of_kind("points"))
    if "rules" in g.gym_kwargs
}


def play(
    agent_spec: str,
    rules: str,
    games: int,
    seed: int,
    options: dict,
    progress: bool,
    workers: int = 1,
):
    """Final totals, per-row scores, row names and bonus flags of ``games`` games."""
    result = run_arena(
        GAME_NAMES[rules],
        [agent_spec],
        games,
        players=1,
        seed=seed,
        workers=workers,
        progress=progress,
        **options,
    )
    rec = result.records
    bonus = rec.bonus[:, 0] > 0
    return rec.value[:, 0], rec.rows[:, 0].astype(float), list(rows_of(rules)), bonus


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.options`` holds the parsed ``--rule`` options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"])
    parser.add_argument(
        "--rules", nargs="+", choices=sorted(GAME_NAMES), default=["russian", "classic"]
    )
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    add_rule_argument(parser, example="joker=free")
    parser.add_argument(
        "--calibrate", action="store_true", help="also print every row's mean final score"
    )
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args(argv)
    allowed = {k for rules in args.rules for k in registry.get(GAME_NAMES[rules]).rule_options}
    args.options = rule_options(parser, args, allowed)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    options = args.options
    for rules in args.rules:  # every rule set takes the options, or one line says why
        try:
            registry.get(GAME_NAMES[rules]).make_rules(**options)
        except (ValueError, TypeError) as err:
            print(f"scorecard_agents.py: error: --rules {rules}: {err}", file=sys.stderr)
            sys.exit(2)
    lines = [
        "| rules | agent | games | mean (95% CI) | sd | min | max | bonus rate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rules in args.rules:
        for spec in args.agents:
            start = time.perf_counter()
            totals, rows, names, bonus = play(
                spec, rules, args.games, args.seed, options, not args.no_progress, args.workers
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
