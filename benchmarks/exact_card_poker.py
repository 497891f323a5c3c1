"""Exact exploitability on mini card poker (docs/card_poker_research.md): CFR+, CFR and
fictitious play side by side, the exploitability of each one's average policy per
iteration, and of a few fixed policies.

    python benchmarks/exact_card_poker.py                      # the research variant
    python benchmarks/exact_card_poker.py --iterations 300 --rule max_draw=0

Exploitability is in chips per deal (ante 1: the pot starts at 2 chips, the pot-size
scale), the mean of both seats' best-response gains; 0 at a Nash equilibrium.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.exact.games import MiniCardPoker
from agents.exact.solve import cfr, fictitious_play
from agents.exact.tree import GameTree
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL
from envs.rules.card_poker_mini import MiniCardPokerRules, hand_key


def fixed_policies(tree: GameTree, rules: MiniCardPokerRules) -> dict[str, np.ndarray]:
    """A few hand-written players: uniform, always bid, and a 'careful' rule of thumb
    (exchange the low card of no pair, bid the most with a pair, reveal a high card
    facing a bid, pass the rest)."""

    def hand_now(key):
        hand = list(key[0])
        for event in key[1:]:
            if event[0] == "draw" and event[1]:
                out = [c for i, c in enumerate(hand) if event[1] >> i & 1]
                hand = sorted([c for c in hand if c not in out] + list(event[2]))
        return hand

    def careful(player, key, actions):
        hand = hand_now(key)
        counts, ranks = hand_key(hand, rules.suits)
        out = np.zeros(len(actions))
        if actions[0] == 0 and PASS not in actions:  # the draw
            pick = 0 if counts[0] > 1 or len(actions) == 1 else 1  # bit 0: the lowest card
            out[pick] = 1
            return out
        bids = [j for j, a in enumerate(actions) if a >= FIRST_BID]
        if counts[0] > 1 and bids:
            out[bids[-1]] = 1
        elif counts[0] > 1 or ranks[0] == rules.ranks - 1:
            out[actions.index(REVEAL)] = 1
        else:
            out[actions.index(PASS)] = 1
        return out

    def always_bid(player, key, actions):
        out = np.zeros(len(actions))
        bids = [j for j, a in enumerate(actions) if a >= FIRST_BID]
        out[bids[0] if bids else actions.index(REVEAL) if REVEAL in actions else 0] = 1
        return out

    return {
        "uniform": tree.uniform(),
        "always bid (the lowest bid, else reveal)": tree.policy_from(always_bid),
        "careful rule of thumb": tree.policy_from(careful),
    }


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
