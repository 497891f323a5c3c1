"""Mini card poker: a research variant of card poker small enough to solve exactly
(docs/rules.md section 3, its last part), as Kuhn and Leduc poker are for hold'em.

The betting is card poker's, rule for rule: every player antes, then in turn order a
player still in passes (folds), bids an amount from the previous bid (at least
``min_bid``) up to ``max_bid``, paid into the pot each turn, or reveals by paying the
previous bid (``min_bid`` while nobody has bid), which ends the betting with a showdown
of everyone still in; after ``max_bids`` bids nobody may bid any more; the last player
in takes the pot unseen; equal best hands split it, odd chips to the earliest of them in
turn order. The draw is card poker's too: in turn order each player exchanges once a set
of cards of the hand (bit ``i`` = the ``i``-th card in deck order), at most
``max_draw`` of them, from the top of the stock. What is smaller: the deck (``ranks``
ranks of ``suits`` suits, no joker), the hand (``hand_size`` cards), the bids, and
there are no stacks (a deal is the whole game, and every action is affordable).

Hands rank by their rank counts, then by ranks (suits never count): three of a kind
over a pair over no pair; among equal patterns, the ranks of the larger groups first,
then high card to low. With two cards: any pair beats any two different cards, higher
pairs beat lower ones, and two different cards compare by the high card, then the low.

Action numbers are card poker's (``envs.rules.card_poker``): ``0..2**hand_size - 1``
discard sets, ``PASS``, ``REVEAL``, then bids from ``FIRST_BID``.

A state is immutable (:class:`MiniState`); :func:`step` returns the next one. Chance is an
input: a deal takes its hands (:func:`deal`), and a draw takes its new cards from the
stock's top, or the cards given as ``new_cards`` (the exact tree walk enumerates them).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import comb

import numpy as np

from envs.rules.card_poker import PASS, REVEAL, CardPokerRules, bid_bounds, reveal_cost
from envs.rules.seats import split_pot

RANK_NAMES = "23456789TJQKA"
SUIT_NAMES = "SHDC"
DRAW, BET, OVER = 0, 1, 2


@dataclass(frozen=True)
class MiniCardPokerRules:
    """The options of mini card poker; the defaults are the research variant of
    docs/rules.md (6 cards, 2 in hand, one card exchanged at most, bids of 1 or 2)."""

    ranks: int = 3
    suits: int = 2
    hand_size: int = 2
    max_draw: int = 1
    ante: int = 1
    min_bid: int = 1
    max_bid: int = 2
    max_bids: int = 2

    def __post_init__(self) -> None:
        for name, low, high in (
            ("ranks", 1, len(RANK_NAMES)),
            ("suits", 1, len(SUIT_NAMES)),
            ("hand_size", 1, 5),
            ("max_draw", 0, 5),
            ("ante", 1, None),
            ("min_bid", 1, None),
            ("max_bid", 1, None),
            ("max_bids", 0, None),
        ):
            value = getattr(self, name)
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or value < low
                or (high is not None and value > high)
            ):
                bound = f"{low}..{high}" if high is not None else f">= {low}"
                raise ValueError(f"{name} must be a whole number {bound}, got {value!r}")
        if self.max_draw > self.hand_size:
            raise ValueError(f"max_draw ({self.max_draw}) must be <= hand_size ({self.hand_size})")
        if self.max_bid < self.min_bid:
            raise ValueError(f"max_bid ({self.max_bid}) must be >= min_bid ({self.min_bid})")

    @property
    def deck_size(self) -> int:
        return self.ranks * self.suits

    # the action numbers of card poker: the same methods
    n_actions = CardPokerRules.n_actions
    bid_action = CardPokerRules.bid_action
    bid_amount = CardPokerRules.bid_amount
    describe_action = CardPokerRules.describe_action

    def check_players(self, n_players: int) -> None:
        """A ``ValueError`` unless the deck holds every hand and every draw of ``n_players``
        (the stock never runs short, so no reshuffle rule is needed)."""
        need = n_players * (self.hand_size + self.max_draw)
        if not isinstance(n_players, int) or n_players < 2 or need > self.deck_size:
            raise ValueError(
                f"{n_players!r} players need 2+ players and {need} cards; the deck has "
                f"{self.deck_size}"
            )

    def card_name(self, card: int) -> str:
        rank, suit = divmod(card, self.suits)
        return RANK_NAMES[len(RANK_NAMES) - self.ranks + rank] + SUIT_NAMES[suit]


def hand_key(cards: Sequence[int], suits: int) -> tuple:
    """A key that orders hands (deck indices, rank = index // suits): larger is better,
    equal keys are equal hands."""
    ranks = [c // suits for c in cards]
    groups = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    return tuple(n for n, _ in groups), tuple(r for _, r in groups)


@dataclass(frozen=True)
class MiniState:
    """One deal of mini card poker (seat 0 draws and bids first)."""

    rules: MiniCardPokerRules
    hands: tuple[tuple[int, ...], ...]  # sorted deck indices per seat
    stock: tuple[int, ...]  # undealt cards, top first
    paid: tuple[int, ...]  # chips each seat put in the pot (ante included)
    in_play: tuple[bool, ...]
    drawn: tuple[int, ...]  # cards each seat exchanged, -1 before its draw
    bids_made: tuple[int, ...]
    phase: int = DRAW
    turn: int = 0  # the seat to move
    level: int = 0  # the previous bid, 0 while nobody has bid
    n_bids: int = 0

    @property
    def n_players(self) -> int:
        return len(self.hands)

    @property
    def done(self) -> bool:
        return self.phase == OVER

    @property
    def current_player(self) -> int | None:
        return None if self.done else self.turn

    @property
    def pot(self) -> int:
        return sum(self.paid)


def deal(
    rules: MiniCardPokerRules, n_players: int = 2, deck_order: Sequence[int] | None = None
) -> MiniState:
    """The state after the deal: ``deck_order`` (a permutation of the deck's indices; default
    the deck in order) gives ``hand_size`` cards to seat 0, the next to seat 1, and so on;
    the rest is the stock, top first."""
    rules.check_players(n_players)
    order = list(range(rules.deck_size)) if deck_order is None else [int(c) for c in deck_order]
    if sorted(order) != list(range(rules.deck_size)):
        raise ValueError(f"deck_order must be a permutation of 0..{rules.deck_size - 1}")
    k = rules.hand_size
    hands = tuple(tuple(sorted(order[s * k : (s + 1) * k])) for s in range(n_players))
    return MiniState(
        rules,
        hands,
        tuple(order[n_players * k :]),
        (rules.ante,) * n_players,
        (True,) * n_players,
        (-1,) * n_players,
        (0,) * n_players,
        phase=DRAW if rules.max_draw else BET,
    )


def legal_actions(state: MiniState) -> list[int]:
    rules = state.rules
    if state.done:
        return []
    if state.phase == DRAW:
        return [a for a in range(2**rules.hand_size) if a.bit_count() <= rules.max_draw]
    legal = [PASS, REVEAL]
    if state.n_bids < rules.max_bids:
        low, high = bid_bounds(state.level, rules.max_bid, rules.min_bid, rules.max_bid)
        legal.extend(rules.bid_action(b) for b in range(low, high + 1))
    return legal


def step(state: MiniState, action: int, new_cards: Sequence[int] | None = None) -> MiniState:
    """The state after the player to move plays ``action``. A draw takes its new cards
    from the top of the stock, or ``new_cards`` (cards of the stock, as many as the draw
    exchanges) when given. ``ValueError`` on an illegal action."""
    if action not in legal_actions(state):
        raise ValueError(
            f"illegal action {action!r} for seat {state.current_player}: legal actions now "
            f"are {legal_actions(state)}"
        )
    rules, seat, p = state.rules, state.turn, state.n_players
    if state.phase == DRAW:
        hand = state.hands[seat]
        out = [c for i, c in enumerate(hand) if action >> i & 1]
        if new_cards is None:
            new = list(state.stock[: len(out)])
        else:
            new = [int(c) for c in new_cards]
            if len(new) != len(out) or len(set(new)) != len(new) or set(new) - set(state.stock):
                raise ValueError(f"new_cards must be {len(out)} cards of the stock, got {new}")
        keep = [c for c in hand if c not in out]
        hands = list(state.hands)
        hands[seat] = tuple(sorted(keep + new))
        drawn = list(state.drawn)
        drawn[seat] = len(out)
        last = seat + 1 == p
        return replace(
            state,
            hands=tuple(hands),
            stock=tuple(c for c in state.stock if c not in new),
            drawn=tuple(drawn),
            phase=BET if last else DRAW,
            turn=0 if last else seat + 1,
        )
    paid = list(state.paid)
    if action == PASS:
        in_play = list(state.in_play)
        in_play[seat] = False
        if sum(in_play) == 1:
            return replace(state, in_play=tuple(in_play), phase=OVER)
        return replace(state, in_play=tuple(in_play), turn=_next_in(in_play, seat))
    if action == REVEAL:
        paid[seat] += reveal_cost(state.level, rules.min_bid)
        return replace(state, paid=tuple(paid), phase=OVER, turn=seat)
    amount = rules.bid_amount(action)
    paid[seat] += amount
    bids = list(state.bids_made)
    bids[seat] += 1
    return replace(
        state,
        paid=tuple(paid),
        bids_made=tuple(bids),
        level=amount,
        n_bids=state.n_bids + 1,
        turn=_next_in(state.in_play, seat),
    )


def _next_in(in_play: Sequence[bool], seat: int) -> int:
    p = len(in_play)
    return next(s % p for s in range(seat + 1, seat + p + 1) if in_play[s % p])


def returns(state: MiniState) -> tuple[int, ...]:
    """Net chips per seat of a finished deal (zero-sum)."""
    if not state.done:
        raise RuntimeError("the deal is not over; payoffs are not known yet")
    pot, p = state.pot, state.n_players
    shown = [s for s in range(p) if state.in_play[s]]  # turn order: seat 0 first
    keys = {s: hand_key(state.hands[s], state.rules.suits) for s in shown}
    best = max(keys.values())
    winners = [s for s in shown if keys[s] == best]
    share, odd = split_pot(pot, len(winners))
    won = [share if s in winners else 0 for s in range(p)]
    won[winners[0]] += odd
    return tuple(won[s] - state.paid[s] for s in range(p))


def deals(rules: MiniCardPokerRules, n_players: int = 2):
    """Every deal, equally likely: ``(hands, probability)`` with ``hands`` a sorted tuple
    per seat (the stock's order is left to the draws)."""
    rules.check_players(n_players)
    k, size = rules.hand_size, rules.deck_size
    count = 1
    for s in range(n_players):
        count *= comb(size - s * k, k)

    def rest(left, seats):
        if not seats:
            yield ()
            return
        for hand in itertools.combinations(sorted(left), k):
            for more in rest(left - set(hand), seats - 1):
                yield (hand, *more)

    for hands in rest(set(range(size)), n_players):
        yield hands, 1.0 / count


def state_of(rules: MiniCardPokerRules, hands: Sequence[Sequence[int]]) -> MiniState:
    """The state after a deal of ``hands`` (one per seat); the stock is the other cards in
    deck order (a draw given ``new_cards`` picks any of them)."""
    held = [c for h in hands for c in h]
    order = held + [c for c in range(rules.deck_size) if c not in held]
    return deal(rules, len(hands), order)


def play(rules: MiniCardPokerRules, policies, rng: np.random.Generator) -> tuple[int, ...]:
    """One deal from a shuffle of ``rng``, every seat ``policies[seat](state) -> action``;
    its net chips per seat."""
    state = deal(rules, len(policies), rng.permutation(rules.deck_size))
    while not state.done:
        state = step(state, policies[state.turn](state))
    return returns(state)


__all__ = [
    "BET",
    "DRAW",
    "OVER",
    "MiniCardPokerRules",
    "MiniState",
    "deal",
    "deals",
    "hand_key",
    "legal_actions",
    "play",
    "returns",
    "state_of",
    "step",
]
