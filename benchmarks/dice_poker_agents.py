"""Dice-poker agents against each other: win rate by position, chips per game.

    python benchmarks/dice_poker_agents.py --agents heuristic random random --games 6000

A shortcut for ``tools/benchmark.py --game dice_poker`` (the arena in
:mod:`agents.arena`), printing only the table.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import time

from agents.arena import run_arena
from envs import games
from envs.cli import add_rule_argument, rule_options

# the dice games of the registry by their number of dice (the id fixes n_dice)
DICE_GAMES = {
    g.gym_kwargs["n_dice"]: g.name
    for g in map(games.get, games.names())
    if "n_dice" in g.gym_kwargs
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.game`` is the game of ``--dice``, ``.rules`` its parsed
    ``--rule`` options (the registry's rule options of that game)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random", "random"])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--dice", type=int, choices=sorted(DICE_GAMES), default=5)
    parser.add_argument("--seed", type=int, default=0)
    add_rule_argument(parser, example="lock_kept_dice=false")
    args = parser.parse_args(argv)
    args.game = DICE_GAMES[args.dice]
    game = games.get(args.game)
    args.rules = rule_options(parser, args, game.rule_options, game.make_rules)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    start = time.perf_counter()
    result = run_arena(args.game, args.agents, args.games, seed=args.seed, **args.rules)
    rules = ", ".join(f"{k}={v}" for k, v in args.rules.items()) or "default rules"
    print(f"\n{args.dice} dice, {args.games} games, seats rotated, {rules}, seed {args.seed}")
    print(result.markdown())
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
