"""Exact exploitability on mini card poker (docs/card_poker_research.md): CFR+, CFR and
fictitious play side by side, the exploitability of each one's average policy per
iteration, and of a few fixed policies.

    python benchmarks/exact_card_poker.py                      # the research variant
    python benchmarks/exact_card_poker.py --iterations 300 --rule max_draw=0

Exploitability is in chips per deal (ante 1: the pot starts at 2 chips, the pot-size
scale), the mean of both seats' best-response gains; 0 at a Nash equilibrium.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import time

from agents.exact.fixed import fixed_policies
from agents.exact.games import MiniCardPoker
from agents.exact.solve import cfr, fictitious_play
from agents.exact.tree import GameTree
from envs.rules.card_poker_mini import MiniCardPokerRules


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--xfp-iterations", type=int, default=300)
    parser.add_argument("--rule", action="append", default=[], help="an option, e.g. ranks=3")
    args = parser.parse_args(argv)
    options = {k: int(v) for k, v in (r.split("=") for r in args.rule)}
    rules = MiniCardPokerRules(**options)
    start = time.perf_counter()
    tree = GameTree(MiniCardPoker(rules))
    print(
        f"{rules}\n{tree.n_nodes:,} nodes, {tree.n_infosets:,} information sets, "
        f"built in {time.perf_counter() - start:.1f} s"
    )
    scale = 2 * rules.ante
    for name, policy in fixed_policies(tree, rules).items():
        gains = tree.best_response_gains(policy)
        print(f"{name}: exploitability {gains.mean():.4f} chips (seat gains {gains.round(4)})")
    eval_at = sorted(
        {1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 1000, 2000, 5000} | {args.iterations}
    )
    runs = [
        ("CFR+", lambda: cfr(tree, args.iterations, plus=True, eval_at=eval_at)),
        ("CFR", lambda: cfr(tree, args.iterations, plus=False, eval_at=eval_at)),
        ("XFP", lambda: fictitious_play(tree, args.xfp_iterations, eval_at=eval_at)),
    ]
    for name, run in runs:
        start = time.perf_counter()
        policy, curve = run()
        took = time.perf_counter() - start
        print(f"\n{name}: {took:.1f} s; value for seat 0 {tree.value(policy)[0]:+.5f} chips")
        print("| iteration | exploitability (chips per deal) | % of the 2-chip pot |")
        print("|---|---|---|")
        for t, e in curve:
            print(f"| {t} | {e:.6f} | {100 * e / scale:.4f}% |")


if __name__ == "__main__":
    main()
