"""The differential tests at a larger scale: the scalar rules == the batched engines.

    python benchmarks/differential.py --scale 5
    python benchmarks/differential.py --only dice_poker --scale 10 --seed 2

Runs the variant groups of the differential tests (``envs.batched.differential``, which
``tests/batched/test_*_differential.py`` run: scorecard, prison dice poker, card poker)
with ``--scale`` times as many games, on other seeds: both engines get the same chance
and the same actions, and every observation, mask, reward, end and payoff is compared
bit for bit at every step (the suite runs scale 1: at least 10,000
games per game and variant group). Prints the games compared per group; any difference
fails with the test's assertion, naming the game.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import sys
import time
from collections.abc import Callable, Iterator

from envs.batched import differential

Case = tuple[str, Callable[[float, int], int]]  # (group, run(scale, seed) -> games compared)


def _count(n: int, scale: float) -> int:
    """The suite's ``n`` games times ``scale`` (at least one)."""
    return max(1, round(n * scale))


def _scorecard() -> Iterator[Case]:
    for i, (rules, options, n_games) in enumerate(differential.SCORECARD_VARIANTS):

        def run(scale, seed, r=rules, o=options, n=n_games, i=i):
            return differential.run_scorecard(r, o, _count(n, scale), seed=1_000_003 * seed + i)[1]

        yield f"scorecard {rules}", run


def _dice_poker() -> Iterator[Case]:
    for n_dice, group in ((5, differential.DICE_FIVE), (6, differential.DICE_SIX)):
        for i, (options, players, episode, first, n_games) in enumerate(group):

            def run(
                scale, seed, d=n_dice, o=options, p=players, e=episode, f=first, n=n_games, i=i
            ):
                games = _count(n, scale)
                return differential.run_dice_poker(d, o, p, e, f, games, 1_000_003 * seed + i)[0]

            yield f"dice poker, {n_dice} dice", run


def _card() -> Iterator[Case]:
    card_run = differential.run_card_poker
    for group, cases in differential.CARD_GROUPS.items():
        for i, (rules, players, episode, max_deals, n_deals) in enumerate(cases):

            def run(scale, seed, r=rules, p=players, e=episode, m=max_deals, n=n_deals, i=i):
                return card_run(r, p, e, m, _count(n, scale), 1_000_003 * seed + 100 * i + p)

            yield f"card poker, {group} (deals)", run


SECTIONS = {"scorecard": _scorecard, "dice_poker": _dice_poker, "card": _card}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=5, help="times the suite's games")
    parser.add_argument("--seed", type=int, default=1, help="offset of the suite's seeds")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), default=list(SECTIONS))
    args = parser.parse_args(argv)
    if args.scale < 1 or args.seed < 1:
        parser.error(f"--scale and --seed must be >= 1, got {args.scale} and {args.seed}")
    print("| group | games compared, bit for bit | s |\n|---|---|---|")
    for name in args.only:
        totals: dict[str, list[float]] = {}
        for group, run in SECTIONS[name]():
            start = time.perf_counter()
            games = run(args.scale, args.seed)
            total = totals.setdefault(group, [0, 0.0])
            total[0] += games
            total[1] += time.perf_counter() - start
            print(f"  {group}: {total[0]:,} so far", file=sys.stderr, flush=True)
        for group, (games, seconds) in totals.items():
            print(f"| {group} | {games:,} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
