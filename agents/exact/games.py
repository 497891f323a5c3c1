"""Games for the exact tree walk (:class:`agents.exact.tree.TreeGame`): Kuhn poker, the
hand-checkable toy, and mini card poker (``envs.rules.card_poker_mini``)."""

from __future__ import annotations

import itertools
from math import comb

from envs.rules import card_poker_mini as mini


class KuhnPoker:
    """Kuhn poker: three cards (0 = J, 1 = Q, 2 = K), one each, ante 1; player 0 passes
    (0) or bets 1 (1); facing a bet a player folds (0) or calls (1); after a pass, player
    1 may pass (showdown for 1) or bet. Player 0's value at equilibrium is -1/18."""

    n_players = 2
    PASS, BET = 0, 1
    TERMINALS = ("pp", "bp", "bb", "pbp", "pbb")

    def root(self):
        return None, ""

    def is_terminal(self, state) -> bool:
        return state[1] in self.TERMINALS

    def returns(self, state):
        cards, h = state
        if h == "bp":
            return (1.0, -1.0)
        if h == "pbp":
            return (-1.0, 1.0)
        stake = 2.0 if h.endswith("bb") else 1.0
        win = stake if cards[0] > cards[1] else -stake
        return (win, -win)

    def is_chance(self, state) -> bool:
        return state[0] is None

    def chance_outcomes(self, state):
        return [((deal, ""), 1 / 6) for deal in itertools.permutations(range(3), 2)]

    def player(self, state) -> int:
        return len(state[1]) % 2

    def actions(self, state):
        return (self.PASS, self.BET)

    def child(self, state, action: int):
        return state[0], state[1] + "pb"[action]

    def infoset(self, state):
        return state[0][self.player(state)], state[1]


class MiniCardPoker:
    """Mini card poker as a tree: a chance node deals every hand alike, each draw that
    exchanges ``k`` cards is followed by a chance node over the ``k``-card sets of the
    stock (alike: the stock is in random order), then the betting. What a player knows
    (its information set) is its dealt hand, its own exchange and new cards, how many
    cards the others exchanged, and every bet, in order (perfect recall; the card poker
    observation shows the same facts, less the history's order and the dealt hand)."""

    def __init__(self, rules: mini.MiniCardPokerRules | None = None, n_players: int = 2):
        self.rules = rules or mini.MiniCardPokerRules()
        self.rules.check_players(n_players)
        self.n_players = n_players

    # a tree state: (state, views, pending draw or None); None is the deal
    def root(self):
        return None

    def is_terminal(self, node) -> bool:
        return node is not None and node[2] is None and node[0].done

    def returns(self, node):
        return mini.returns(node[0])

    def is_chance(self, node) -> bool:
        return node is None or node[2] is not None

    def chance_outcomes(self, node):
        if node is None:
            out = []
            for hands, p in mini.deals(self.rules, self.n_players):
                state = mini.state_of(self.rules, hands)
                out.append(((state, tuple((h,) for h in hands), None), p))
            return out
        state, views, action = node
        k = action.bit_count()
        sets = list(itertools.combinations(sorted(state.stock), k))
        p = 1 / comb(len(state.stock), k)
        seat = state.turn
        out = []
        for new in sets:
            after = mini.step(state, action, new)
            seen = tuple(
                v + ((("draw", action, new) if s == seat else ("drew", seat, k)),)
                for s, v in enumerate(views)
            )
            out.append(((after, seen, None), p))
        return out

    def player(self, node) -> int:
        return node[0].turn

    def actions(self, node):
        return tuple(mini.legal_actions(node[0]))

    def child(self, node, action: int):
        state, views, _ = node
        if state.phase == mini.DRAW:
            if action:  # exchanges cards: chance deals the new ones
                return state, views, action
            seat = state.turn
            seen = tuple(
                v + ((("draw", 0, ()) if s == seat else ("drew", seat, 0)),)
                for s, v in enumerate(views)
            )
            return mini.step(state, 0), seen, None
        seat = state.turn
        return mini.step(state, action), tuple(v + ((seat, action),) for v in views), None

    def infoset(self, node):
        state, views, _ = node
        return views[state.turn]


__all__ = ["KuhnPoker", "MiniCardPoker"]
