"""How long the exact scorecard solvers take: one function per game, each solve from scratch.

    python benchmarks/solve_times.py                      # every game below
    python benchmarks/solve_times.py --games yahtzee yahtzee_classic
    python benchmarks/solve_times.py --games yahtzee_classic --rule joker=free

Each solve ignores the on-disk cache (the time to load a cached solution is
printed separately), and prints the wall time, the CPU time of this process
(the honest figure on a machine shared with other work) and the solution's
headline number (agents/optimal/scorecard.py). The dice-poker solve times are
printed by benchmarks/dice_poker_solver.py.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import os
import tempfile
import time
from collections.abc import Callable

from envs.cli import add_rule_argument, rule_options
from envs.rules.scorecard import OPTION_NAMES

# -- scorecard games (agents/optimal/scorecard.py) -----------------------------------------


def _time_scorecard(rules: str, **options) -> dict[str, float]:
    from agents.optimal import scorecard as yz

    wall, cpu = time.perf_counter(), time.process_time()
    solution = yz.solve(rules, cache=False, **options)
    out = {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "expected_score": solution.expected_score,
    }
    # the cache: write once into a scratch folder, then time a cold load from disk
    with tempfile.TemporaryDirectory() as folder:
        old = os.environ.get("DICEPOKER_GYM_CACHE")
        os.environ["DICEPOKER_GYM_CACHE"] = folder
        try:
            yz._save(yz.cache_path(solution.rules), solution)
            start = time.perf_counter()
            loaded = yz._load(yz.cache_path(solution.rules), solution.rules)
            out["cache_load_s"] = time.perf_counter() - start
            assert loaded is not None and loaded.expected_score == solution.expected_score
        finally:
            if old is None:
                del os.environ["DICEPOKER_GYM_CACHE"]
            else:
                os.environ["DICEPOKER_GYM_CACHE"] = old
    return out


def yahtzee(**options) -> dict[str, float]:
    """The russian scorecard game, ``PokerNaKostyah-v0`` (target: under 20 s)."""
    return _time_scorecard("russian", **options)


def yahtzee_classic(**options) -> dict[str, float]:
    """Classic Yahtzee, ``YahtzeeClassic-v0`` (target: under 60 s)."""
    return _time_scorecard("classic", **options)


GAMES: dict[str, Callable[..., dict[str, float]]] = {
    "yahtzee": yahtzee,
    "yahtzee_classic": yahtzee_classic,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.options`` holds the parsed ``--rule`` options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    add_rule_argument(parser, example="joker=free")
    args = parser.parse_args(argv)
    args.options = rule_options(parser, args, OPTION_NAMES)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    options = args.options
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} at start")
    for name in args.games:
        result = GAMES[name](**options)
        parts = ", ".join(
            f"{k} {v:.6f}" if k == "expected_score" else f"{k} {v:.2f}" for k, v in result.items()
        )
        print(f"{name} {options or ''}: {parts}", flush=True)


if __name__ == "__main__":
    main()
