"""Card-poker agents head to head: chips per deal with 95% confidence intervals.

    python benchmarks/card_agents.py --deals 20000
    python benchmarks/card_agents.py --tables careful,random --deals 2000 --deck 54

Every table is played for ``--deals`` independent deals (fresh stacks of
``stack`` chips each deal); the agents' seats are rotated through every seat
order, so each agent plays each position equally often (when ``--deals`` is a
multiple of the number of orders). The interval is mean ± 1.96 standard errors
of the agent's net chips per deal. The deals are played by the arena
(:mod:`agents.arena`; ``tools/benchmark.py --game card_poker`` gives the full report).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import time

import numpy as np

from agents.arena import default_workers, run_arena
from envs import games
from envs.cli import add_rule_argument, rule_options

DEFAULT_TABLES = [
    "careful,bluffer,random",
    "careful,bluffer",
    "careful,random",
    "bluffer,random",
]


def play_table(
    names: list[str], deals: int, seed: int = 0, progress: bool = True, workers: int = 1, **rules
) -> dict[str, np.ndarray]:
    """Net chips of every deal for each agent (by name; names must differ)."""
    result = run_arena(
        "card_poker",
        names,
        deals,
        players=len(names),
        seed=seed,
        workers=workers,
        progress=progress,
        **rules,
    )
    chips = result.agent_values()
    return {name: chips[:, a] for a, name in enumerate(names)}


def ci95(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.rules`` holds the rule options (``--deck`` is ``--rule deck=``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=DEFAULT_TABLES)
    parser.add_argument("--deals", type=int, default=20000)
    parser.add_argument("--deck", type=int, choices=(36, 54), default=None, help="default 36")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=default_workers())
    add_rule_argument(parser, example="stack=50")
    args = parser.parse_args(argv)
    game = games.get("card_poker")
    args.rules = rule_options(parser, args, game.rule_options)
    if args.deck is not None:
        if "deck" in args.rules:
            parser.error("give the deck once: --deck or --rule deck=")
        args.rules["deck"] = args.deck
    args.rules.setdefault("deck", 36)
    try:
        game.make_rules(**args.rules)
    except (ValueError, TypeError) as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    rules = ", ".join(f"{k}={v}" for k, v in args.rules.items() if k != "deck")
    print(
        f"{args.rules['deck']} cards, {args.deals} deals per table, seats rotated, "
        f"{rules + ', ' if rules else ''}seed {args.seed}"
    )
    rows = ["| table | agent | chips per deal (95% CI) |", "|---|---|---|"]
    start = time.perf_counter()
    for table in args.tables:
        names = table.split(",")
        chips = play_table(names, args.deals, seed=args.seed, workers=args.workers, **args.rules)
        for name in names:
            mean, half = ci95(chips[name])
            rows.append(f"| {' v '.join(names)} | {name} | {mean:+.3f} ± {half:.3f} |")
    print("\n".join(rows))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
