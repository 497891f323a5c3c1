"""A few hand-written players of mini card poker as policies over its game tree, the yardsticks
of the exploitability tables (``benchmarks/exact_card_poker.py``,
``benchmarks/mini_best_response.py``)."""

from __future__ import annotations

import numpy as np

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


__all__ = ["fixed_policies"]
