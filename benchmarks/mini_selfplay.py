"""Self-play methods side by side on mini card poker, with their exact exploitability
along the way (docs/card_poker_research.md, "Self-play methods side by side").

    python benchmarks/mini_selfplay.py                          # PSRO, MMD, CFR+ for scale
    python benchmarks/mini_selfplay.py --psro-iterations 10 --mmd-iterations 100

- PSRO (``agents.exact.selfplay.psro``): exact best responses as the oracle, the
  meta-strategy a Nash equilibrium of the empirical payoff matrix (regret matching+ over
  the matrix); the exploitability is that of the meta-strategy mixture.
- MMD (``agents.exact.selfplay.mmd``): magnetic mirror descent with softmax policies at
  every information set, the magnet following the policy; the exploitability is the
  last iterate's (no averaging: what a neural policy trained this way would play).
- CFR+ (``agents.exact.solve.cfr``) for scale: the tabular method with no path to the
  full game short of an abstraction.

Exploitability: chips per deal, ante 1 (the pot starts at 2 chips, the pot-size scale of
the percentages), the mean of both seats' exact best-response gains.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import time

from agents.exact.games import MiniCardPoker
from agents.exact.selfplay import mmd, psro
from agents.exact.solve import cfr
from agents.exact.tree import GameTree
from envs.rules.card_poker_mini import MiniCardPokerRules


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--psro-iterations", type=int, default=40)
    parser.add_argument("--mmd-iterations", type=int, default=1000)
    parser.add_argument("--cfr-iterations", type=int, default=300)
    parser.add_argument("--eta", type=float, default=0.1, help="MMD step size")
    parser.add_argument("--alpha", type=float, default=0.1, help="MMD magnet weight")
    parser.add_argument("--magnet-rate", type=float, default=0.01, help="MMD magnet step")
    parser.add_argument("--rule", action="append", default=[], help="an option, e.g. ranks=3")
    args = parser.parse_args(argv)
    rules = MiniCardPokerRules(**{k: int(v) for k, v in (r.split("=") for r in args.rule)})
    tree = GameTree(MiniCardPoker(rules))
    scale = 2 * rules.ante
    print(f"{rules}: {tree.n_nodes:,} histories, {tree.n_infosets:,} information sets")
    runs = {}
    start = time.perf_counter()
    _, curve = psro(tree, args.psro_iterations)
    runs["PSRO (exact BR, meta-Nash)"] = (curve, time.perf_counter() - start)
    start = time.perf_counter()
    _, curve = mmd(tree, args.mmd_iterations, args.eta, args.alpha, args.magnet_rate)
    runs[f"MMD (eta {args.eta}, alpha {args.alpha}, magnet {args.magnet_rate})"] = (
        curve,
        time.perf_counter() - start,
    )
    start = time.perf_counter()
    _, curve = cfr(tree, args.cfr_iterations)
    runs["CFR+ (average policy)"] = (curve, time.perf_counter() - start)
    for name, (curve, took) in runs.items():
        print(f"\n{name}: {took:.0f} s")
        print("| iteration | exploitability (chips per deal) | % of the 2-chip pot |")
        print("|---|---|---|")
        for t, e in curve:
            print(f"| {t} | {e:.6f} | {100 * e / scale:.4f}% |")
        first = next((t for t, e in curve if e <= 0.01 * scale), None)
        print(f"first at or under 1% of the pot: {first if first is not None else 'not reached'}")
    return runs


if __name__ == "__main__":
    main()
