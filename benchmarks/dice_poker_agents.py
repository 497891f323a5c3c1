"""Dice-poker agents against each other: win rate by position, chips per game.

    python benchmarks/dice_poker_agents.py --agents heuristic random random --games 6000

A shortcut for ``train/benchmark.py --game dice_poker`` (the arena in
:mod:`agents.arena`), printing only the table.
"""

from __future__ import annotations

import argparse
import time

from agents.arena import run_arena
from envs.cli import add_rule_argument, rule_options


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.rules`` holds the parsed ``--rule`` options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random", "random"])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--dice", type=int, choices=(5, 6), default=5)
    parser.add_argument("--seed", type=int, default=0)
    add_rule_argument(parser, example="lock_kept_dice=false")
    args = parser.parse_args(argv)
    args.rules = rule_options(parser, args)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    start = time.perf_counter()
    game = "dice_poker" if args.dice == 5 else "dice_poker6"
    result = run_arena(game, args.agents, args.games, seed=args.seed, **args.rules)
    rules = ", ".join(f"{k}={v}" for k, v in args.rules.items()) or "default rules"
    print(f"\n{args.dice} dice, {args.games} games, seats rotated, {rules}, seed {args.seed}")
    print(result.markdown())
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
