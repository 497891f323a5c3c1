"""A slow, obviously-correct card-hand evaluator written straight from docs/rules.md
section 3: the yardstick of the fast evaluator (:mod:`envs.rules.card_hands`), which
``tests/rules/test_card_hands.py`` checks against it hand by hand and
``benchmarks/card_eval.py`` times beside it.

A jokerless hand is tested for every category; a hand with jokers tries every card of every
rank and suit for each joker. Values are ``(place, tiebreak, name)`` tuples, ordered as the
hands are.
"""

from __future__ import annotations

from functools import cache
from itertools import product

from envs.rules.cards import make_deck

FULL_ORDER = [
    "high_card",
    "pair",
    "two_pairs",
    "three",
    "full_house",
    "colour",
    "suit",
    "straight",
    "straight_colour",
    "straight_suit",
    "four",
    "poker",
]


def ref_order(categories="full", swap=False):
    order = list(FULL_ORDER)
    if categories == "short":
        for name in ("colour", "suit", "straight", "straight_colour"):
            order.remove(name)
    if swap:
        i, j = order.index("four"), order.index("straight_suit")
        order[i], order[j] = order[j], order[i]
    return order


BLACK, RED = {0, 3}, {1, 2}


def ref_natural(cards, rules):
    """Best (place, tiebreak, name) of five jokerless (rank, suit) cards."""
    ranks = tuple(sorted([r for r, _ in cards], reverse=True))
    suits = {s for _, s in cards}
    return _ref_value(ranks, len(suits) == 1, suits <= BLACK or suits <= RED, rules)


@cache
def _ref_value(ranks, one_suit, one_colour, rules):
    # Cached because it depends on nothing but its arguments; tests on
    # hundreds of thousands of hands repeat the same ranks and flags.
    low, ace_low, categories, swap = rules
    ranks = list(ranks)
    place = {n: i for i, n in enumerate(ref_order(categories, swap))}
    count = {r: ranks.count(r) for r in ranks}
    # ranks grouped: biggest group first, then higher rank
    groups = sorted(count, key=lambda r: (count[r], r), reverse=True)
    sizes = [count[r] for r in groups]
    top = None
    if len(count) == 5 and ranks[0] - ranks[4] == 4:
        top = ranks[0]
    if ace_low and ranks == [14, low + 3, low + 2, low + 1, low]:
        top = low + 3
    rest = lambda *used: [r for r in ranks if r not in used]  # noqa: E731
    held = [("high_card", ranks)]
    if sizes[0] == 2:
        held.append(("pair", [groups[0], *rest(groups[0])]))
    if sizes[:2] == [2, 2]:
        held.append(("two_pairs", [groups[0], groups[1], *rest(groups[0], groups[1])]))
    if sizes[0] == 3:
        held.append(("three", [groups[0], *rest(groups[0])]))
    if sizes == [3, 2]:
        held.append(("full_house", [groups[0], groups[1]]))
    if one_colour:
        held.append(("colour", ranks))
    if one_suit:
        held.append(("suit", ranks))
    if top is not None:
        held.append(("straight", [top]))
        if one_colour:
            held.append(("straight_colour", [top]))
        if one_suit:
            held.append(("straight_suit", [top]))
    if sizes[0] == 4:
        held.append(("four", [groups[0], *rest(groups[0])]))
    if sizes[0] == 5:
        held.append(("poker", [groups[0]]))
    return max((place[n], tuple(tb), n) for n, tb in held if n in place)


def ref_evaluate(cards, deck=36, joker_card="6S", categories="full", swap=False, ace_low=False):
    """(place, tiebreak, name) of five cards given as deck indices, jokers tried every way."""
    d = make_deck(deck, joker_card)
    rules = (d.low_rank, ace_low, categories, swap)
    naturals = [(d.cards[i].rank, d.cards[i].suit) for i in cards if not d.is_joker(i)]
    if len(naturals) == 5:
        return ref_natural(naturals, rules)
    # Every joker becomes every card of the deck's ranks and suits in turn
    # (a card already in the hand included); the best hand counts. Ranks
    # are sorted once per choice of the jokers' ranks, then every choice of
    # their suits is tried.
    ranks = [r for r, _ in naturals]
    suits = {s for _, s in naturals}
    n_jokers = 5 - len(naturals)
    best = None
    for sub_ranks in product(d.ranks, repeat=n_jokers):
        all_ranks = tuple(sorted(ranks + list(sub_ranks), reverse=True))
        for sub_suits in product(range(4), repeat=n_jokers):
            all_suits = suits.union(sub_suits)
            one_colour = all_suits <= BLACK or all_suits <= RED
            value = _ref_value(all_ranks, len(all_suits) == 1, one_colour, rules)
            if best is None or value > best:
                best = value
    return best


__all__ = ["FULL_ORDER", "ref_evaluate", "ref_natural", "ref_order"]
