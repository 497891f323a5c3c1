"""The card poker differential test at a larger scale: scalar match == batched engine.

    python benchmarks/card_poker_differential.py --scale 5

Runs the variant groups of ``tests/batched/test_card_poker_differential.py`` with
``--scale`` times as many deals (the suite runs scale 1: at least 10,000 deals per
group), other seeds, and prints the deals compared per group; any difference fails
with the test's assertion.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=5, help="times the suite's deals")
    parser.add_argument("--seed", type=int, default=1, help="offset of the suite's seeds")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "batched"))
    from test_card_poker_differential import GROUPS, run

    print("| group | deals compared, bit for bit | s |\n|---|---|---|")
    for group, cases in GROUPS.items():
        start, total = time.perf_counter(), 0
        for i, (rules, players, episode, max_deals, n_deals) in enumerate(cases):
            seed = 1_000_003 * args.seed + 100 * i + players
            total += run(rules, players, episode, max_deals, n_deals * args.scale, seed)
        print(f"| {group} | {total:,} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
