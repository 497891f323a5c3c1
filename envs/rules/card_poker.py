"""One deal of card poker as a state machine, and sessions of deals (docs/rules.md section 3).

A deal: every player antes, gets five cards, then in turn order draws once
(an action is the bit set of cards to exchange, bit i = the i-th card of the
hand sorted by deck index; ``draw_fee`` per card), then bids. In the betting a
player still in passes (folds), bids an amount from the previous bid (at
least ``min_bid``) up to ``max_bid``, paid each turn into the pot, or reveals
by paying the previous bid (``min_bid`` if nobody has bid), which ends the
betting: everyone still in shows and the best hand takes the pot, equal best
hands split it with odd chips to the earliest of them in turn order. After
``max_bids`` bids nobody may bid any more. When all but one have passed, the
last one takes the pot unseen. No credit: an action a player cannot pay for
is not legal, so stacks never go below zero; passing is always legal.

Decisions on gaps (see the README): when the stock runs out during the draw,
the cards discarded earlier in this draw are shuffled into a new stock (the
drawing player's own discards are set aside first); with at most six players
the 36-card deck never runs short this way.

Chance is an input (as OpenSpiel's chance outcomes): a deal takes its shuffled
deck as ``deck_order``, and a step that needs a shuffle takes it as ``chance``, a
permutation of the deck's indices: a draw that runs the stock short appends the
earlier discards in the order they appear in ``chance``; in a session, the step
that ends a deal deals the next one from ``chance``. Without them the game draws
from its seeded ``rng`` as before, so seeded games are unchanged.

Action numbers are shared by every layer: ``0..31`` discard sets,
:data:`PASS`, :data:`REVEAL`, then ``bid_action(b)`` for ``b`` in
``min_bid..max_bid``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from envs.rules.card_hands import (
    HAND_OPTIONS,
    CardHand,
    HandEvaluator,
    check_variant,
    get_evaluator,
)
from envs.rules.cards import Deck
from envs.rules.seats import GameSeries, action_mask, split_pot, turn_order

HAND_SIZE = 5
N_DISCARDS = 2**HAND_SIZE
PASS = N_DISCARDS
REVEAL = N_DISCARDS + 1
FIRST_BID = N_DISCARDS + 2
MIN_PLAYERS, MAX_PLAYERS = 2, 6
# the exchanges of at most k cards, k = 0..5 (bit i of a discard set = the i-th card)
_DISCARDS_UP_TO = [
    tuple(a for a in range(N_DISCARDS) if a.bit_count() <= k) for k in range(HAND_SIZE + 1)
]
# per discard set, the places in the sorted hand of the cards it exchanges and keeps
_OUT_PLACES = [tuple(i for i in range(HAND_SIZE) if a >> i & 1) for a in range(N_DISCARDS)]
_KEEP_PLACES = [tuple(i for i in range(HAND_SIZE) if not a >> i & 1) for a in range(N_DISCARDS)]
# the same as rows of a mask over the discard actions: DISCARD_MASKS[k][a]
DISCARD_MASKS = np.array(
    [[a in allowed for a in range(N_DISCARDS)] for allowed in _DISCARDS_UP_TO], dtype=bool
)


# -- bookkeeping on numbers and numpy arrays alike (the batched engine calls these) ---------


def max_exchange(stack, draw_fee: int):
    """The most cards a player holding ``stack`` chips may exchange (the draw fee is paid
    per card, no credit)."""
    if not draw_fee:
        return np.full_like(stack, HAND_SIZE) if isinstance(stack, np.ndarray) else HAND_SIZE
    if isinstance(stack, np.ndarray):
        return np.minimum(stack // draw_fee, HAND_SIZE)
    return min(stack // draw_fee, HAND_SIZE)


def reveal_cost(level, min_bid: int):
    """What revealing costs: the previous bid, ``min_bid`` while nobody has bid."""
    return (
        np.where(level > 0, level, min_bid)
        if isinstance(level, np.ndarray)
        else (level if level else min_bid)
    )


def bid_bounds(level, stack, min_bid: int, max_bid: int):
    """``(low, high)``: a bid is at least the previous one (and ``min_bid``), at most
    ``max_bid`` and what the player holds; none is possible when ``low > high``."""
    if isinstance(level, np.ndarray) or isinstance(stack, np.ndarray):
        return np.maximum(level, min_bid), np.minimum(max_bid, stack)
    return max(level, min_bid), min(max_bid, stack)


def broke(stacks, ante: int):
    """A session stops when a player cannot pay the next ante or holds no chips
    (``stacks`` per seat on the last axis)."""
    if isinstance(stacks, np.ndarray):
        return ((stacks < ante) | (stacks == 0)).any(axis=-1)
    return any(chips < ante or chips == 0 for chips in stacks)


class Phase(IntEnum):
    DRAW = 0
    BET = 1
    OVER = 2


@dataclass(frozen=True)
class CardPokerRules:
    """Every option of card poker; the defaults are those of docs/rules.md."""

    deck: int = 36
    joker_card: str | None = "6S"
    categories: str = "full"
    swap_four_and_straight_flush: bool = False
    ace_low_straight: bool = False
    stack: int = 100
    ante: int = 1
    draw_fee: int = 0
    min_bid: int = 1
    max_bid: int = 8
    max_bids: int = 12

    def __post_init__(self) -> None:
        for name in ("stack", "ante", "draw_fee", "max_bids"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        for name in ("min_bid", "max_bid"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
        if self.stack < self.ante:
            raise ValueError(
                f"stack must be at least the ante ({self.ante}) so a deal can start, "
                f"got stack={self.stack}"
            )
        if self.max_bid < self.min_bid:
            raise ValueError(f"max_bid ({self.max_bid}) must be >= min_bid ({self.min_bid})")
        check_variant(**self.hand_variant)

    @property
    def hand_variant(self) -> dict:
        """The keyword arguments of :func:`evaluate_hand` for these rules."""
        return {k: getattr(self, k) for k in HAND_OPTIONS}

    @property
    def evaluator(self) -> HandEvaluator:
        ev = _EVALUATORS.get(self)
        if ev is None:
            ev = _EVALUATORS[self] = get_evaluator(**self.hand_variant)
        return ev

    @property
    def deck_cards(self) -> Deck:
        return self.evaluator.deck

    @property
    def n_actions(self) -> int:
        return FIRST_BID + self.max_bid - self.min_bid + 1

    def bid_action(self, amount: int) -> int:
        if not self.min_bid <= amount <= self.max_bid:
            raise ValueError(f"a bid is {self.min_bid}..{self.max_bid} chips, got {amount}")
        return FIRST_BID + amount - self.min_bid

    def bid_amount(self, action: int) -> int:
        return action - FIRST_BID + self.min_bid

    def describe_action(self, action: int) -> str:
        if 0 <= action < N_DISCARDS:
            return f"draw {int(action).bit_count()}"
        if action == PASS:
            return "pass"
        if action == REVEAL:
            return "reveal"
        return f"bid {self.bid_amount(action)}"


# the evaluator of each rule set, looked up once (get_evaluator checks the options each call)
_EVALUATORS: dict[CardPokerRules, HandEvaluator] = {}


class _Legal:
    """The legal actions of one rule set by the few numbers they depend on, listed once:
    a draw by the most cards the player can pay to exchange, a bet by the player's stack,
    the previous bid and the bids made so far (``tuple`` and mask); and each action's
    text for the log (``describe_action``)."""

    def __init__(self, rules: CardPokerRules) -> None:
        self.rules = rules
        self.n_actions = rules.n_actions
        self.texts = tuple(rules.describe_action(a) for a in range(rules.n_actions))
        self._draw = [tuple(allowed) for allowed in _DISCARDS_UP_TO]
        self._bet: dict[tuple[int, int, int], tuple[int, ...]] = {}
        self._masks: dict[tuple, np.ndarray] = {}

    def draw(self, stack: int) -> tuple[int, ...]:
        return self._draw[max_exchange(stack, self.rules.draw_fee)]

    def bet(self, stack: int, level: int, n_bids: int) -> tuple[int, ...]:
        key = (stack, level, n_bids)
        legal = self._bet.get(key)
        if legal is None:
            rules = self.rules
            out = [PASS]
            if reveal_cost(level, rules.min_bid) <= stack:
                out.append(REVEAL)
            if n_bids < rules.max_bids:
                low, high = bid_bounds(level, stack, rules.min_bid, rules.max_bid)
                base = FIRST_BID - rules.min_bid
                out.extend(range(base + low, base + high + 1))
            if len(self._bet) >= 1 << 14:  # stacks of long sessions: keep it small
                self._bet.clear()
            legal = self._bet[key] = tuple(out)
        return legal

    def mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """A new bool mask of ``legal`` (a copy: the caller may write to it)."""
        mask = self._masks.get(legal)
        if mask is None:
            if len(self._masks) >= 1 << 12:
                self._masks.clear()
            mask = self._masks[legal] = action_mask(list(legal), self.n_actions)
        return mask.copy()


_LEGAL: dict[CardPokerRules, _Legal] = {}


def _legal_of(rules: CardPokerRules) -> _Legal:
    legal = _LEGAL.get(rules)
    if legal is None:
        legal = _LEGAL[rules] = _Legal(rules)
    return legal


@dataclass
class Event:
    """One action of a deal, for the log and the table."""

    seat: int
    phase: Phase
    action: int
    paid: int
    text: str


@dataclass
class Showdown:
    """How a deal ended: the hands shown (none when won unseen) and the chips won."""

    hands: dict[int, CardHand] = field(default_factory=dict)
    winners: list[int] = field(default_factory=list)
    won: dict[int, int] = field(default_factory=dict)


class CardPokerGame:
    """One deal. Mutable; the game owns ``rng`` for its shuffles.

    ``stacks`` are every seat's chips before the ante (default ``rules.stack``
    each); every seat must be able to pay the ante. ``first`` is the seat that
    draws and bids first. ``deck_order`` (deck indices, a permutation of the
    deck) replaces the shuffle: the first five cards go to ``first``, the
    next five to the next seat, and so on; the rest is the stock.
    """

    def __init__(
        self,
        n_players: int,
        rng: np.random.Generator,
        rules: CardPokerRules | None = None,
        stacks: Sequence[int] | None = None,
        first: int = 0,
        deck_order: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules = rules or CardPokerRules()
        if not isinstance(n_players, int) or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"card poker needs 2-6 players, got {n_players!r}")
        if first not in range(n_players):
            raise ValueError(f"first must be a seat 0..{n_players - 1}, got {first!r}")
        stacks = [rules.stack] * n_players if stacks is None else [int(s) for s in stacks]
        if len(stacks) != n_players:
            raise ValueError(f"{n_players} players need {n_players} stacks, got {stacks}")
        short = [s for s, chips in enumerate(stacks) if chips < rules.ante]
        if short:
            raise ValueError(f"seats {short} cannot pay the ante of {rules.ante}: stacks {stacks}")
        self.n_players = n_players
        self.rng = rng
        self._legal = _legal_of(rules)
        self.evaluator = rules.evaluator
        self.deck: Deck = self.evaluator.deck
        self.order = turn_order(first, n_players)
        self.first = first
        self.start_stacks = list(stacks)
        self.stacks = [chips - rules.ante for chips in stacks]
        self.pot = rules.ante * n_players
        if deck_order is None:
            cards = rng.permutation(self.deck.size).tolist()
        else:
            cards = check_deck_order(deck_order, self.deck.size, "deck_order")
        self.hands: list[tuple[int, ...]] = [()] * n_players
        for i, seat in enumerate(self.order):
            self.hands[seat] = tuple(sorted(cards[i * HAND_SIZE : (i + 1) * HAND_SIZE]))
        self.stock = cards[n_players * HAND_SIZE :]
        self.discards: list[int] = []
        self.drawn = [-1] * n_players  # cards exchanged; -1 before the player's draw
        self.in_play = [True] * n_players
        self.bids_made = [0] * n_players
        self.bid_chips = [0] * n_players
        self.n_bids = 0
        self.level = 0  # the previous bid; 0 while nobody has bid
        self.phase = Phase.DRAW
        self._turn = 0  # index into order
        self.events: list[Event] = []
        self.showdown: Showdown | None = None
        self.revealer: int | None = None

    # -- state ---------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def current_player(self) -> int | None:
        return None if self.phase is Phase.OVER else self.order[self._turn]

    @property
    def players_in(self) -> list[int]:
        return [s for s in self.order if self.in_play[s]]

    @property
    def reveal_cost(self) -> int:
        return reveal_cost(self.level, self.rules.min_bid)

    @property
    def bids_left(self) -> int:
        return max(self.rules.max_bids - self.n_bids, 0)

    def position(self, seat: int) -> int:
        """The seat's place in this deal's order (0 = first to draw and bid)."""
        return self.order.index(seat)

    def hand(self, seat: int) -> CardHand:
        return self.evaluator.hand(self.hands[seat])

    def legal_actions(self) -> list[int]:
        return list(self._legal_now())

    def _legal_now(self) -> tuple[int, ...]:
        phase = self.phase
        if phase is Phase.OVER:
            return ()
        stack = self.stacks[self.order[self._turn]]
        if phase is Phase.DRAW:
            return self._legal.draw(stack)
        return self._legal.bet(stack, self.level, self.n_bids)

    def action_mask(self) -> np.ndarray:
        return self._legal.mask(self._legal_now())

    def stakes(self) -> dict[int, int]:
        """What each seat has put into the pot of this deal (ante, draw fees, bids)."""
        return {s: self.start_stacks[s] - self.stacks[s] for s in range(self.n_players)}

    def payoffs(self) -> dict[int, int]:
        """Net chips of this deal per seat (zero-sum); only once the deal is over."""
        if not self.done:
            raise RuntimeError("the deal is not over; payoffs are not known yet")
        return {s: self.stacks[s] - self.start_stacks[s] for s in range(self.n_players)}

    # -- transitions ---------------------------------------------------------
    def step(self, action: int, chance: Sequence[int] | None = None) -> None:
        """Play ``action`` for the current player.

        ``chance`` (a permutation of the deck indices) orders the new stock if this
        draw runs the stock short; without it the game shuffles with ``rng``.
        Raises ``ValueError`` naming the legal actions, leaving the deal unchanged.
        """
        if chance is not None:
            chance = check_deck_order(chance, self.deck.size, "chance")
        legal = self._legal_now()
        if type(action) is not int:  # a numpy integer is one too; a bool is not
            if (
                isinstance(action, bool)
                or not isinstance(action, int | np.integer)
                or int(action) not in legal
            ):
                self._illegal(action, legal)
            action = int(action)
        elif action not in legal:
            self._illegal(action, legal)
        seat = self.order[self._turn]
        if self.phase is Phase.DRAW:
            self._draw(seat, action, chance)
        elif action == PASS:
            self.in_play[seat] = False
            self._log(seat, action, 0)
            if len(self.players_in) == 1:
                self._finish_unseen()
            else:
                self._next_bidder()
        elif action == REVEAL:
            cost = self.reveal_cost
            self._pay(seat, cost)
            self._log(seat, action, cost)
            self.revealer = seat
            self._finish_showdown()
        else:
            amount = self.rules.bid_amount(action)
            self._pay(seat, amount)
            self.level = amount
            self.n_bids += 1
            self.bids_made[seat] += 1
            self.bid_chips[seat] += amount
            self._log(seat, action, amount)
            self._next_bidder()

    def _illegal(self, action, legal: tuple[int, ...]) -> None:
        raise ValueError(
            f"illegal action {action!r} for seat {self.current_player} in the "
            f"{self.phase.name.lower()} phase: legal actions now are {list(legal)}"
            + (" (the deal is over)" if self.done else "")
        )

    def _pay(self, seat: int, chips: int) -> None:
        assert chips <= self.stacks[seat], "legal actions are always affordable"
        self.stacks[seat] -= chips
        self.pot += chips

    def _log(self, seat: int, action: int, paid: int) -> None:
        self.events.append(Event(seat, self.phase, action, paid, self._legal.texts[action]))

    def _draw(self, seat: int, action: int, chance: list[int] | None) -> None:
        hand = self.hands[seat]
        out = [hand[i] for i in _OUT_PLACES[action]]
        keep = [hand[i] for i in _KEEP_PLACES[action]]
        if len(self.stock) < len(out):
            # Earlier discards become the new stock; this player's are set aside.
            if chance is None:
                self.stock += [int(c) for c in self.rng.permutation(self.discards)]
            else:
                pile = set(self.discards)
                self.stock += [c for c in chance if c in pile]
            self.discards = []
        new = self.stock[: len(out)]
        del self.stock[: len(out)]
        self.discards += out
        self.hands[seat] = tuple(sorted(keep + new))
        self.drawn[seat] = len(out)
        fee = self.rules.draw_fee * len(out)
        self._pay(seat, fee)
        self._log(seat, action, fee)
        if self._turn + 1 < self.n_players:
            self._turn += 1
        else:
            self.phase = Phase.BET
            self._turn = 0

    def _next_bidder(self) -> None:
        for step in range(1, self.n_players + 1):
            i = (self._turn + step) % self.n_players
            if self.in_play[self.order[i]]:
                self._turn = i
                return
        raise AssertionError("someone is always still in while betting goes on")

    def _award(self, won: dict[int, int]) -> None:
        for seat, chips in won.items():
            self.stacks[seat] += chips
        self.pot = 0
        self.phase = Phase.OVER

    def _finish_unseen(self) -> None:
        (winner,) = self.players_in
        self.showdown = Showdown({}, [winner], {winner: self.pot})
        self._award(self.showdown.won)

    def _finish_showdown(self) -> None:
        shown = self.players_in  # in turn order
        hands = {s: self.hand(s) for s in shown}
        best = max(hands.values())
        winners = [s for s in shown if hands[s] == best]
        share, odd = split_pot(self.pot, len(winners))
        won = {s: share for s in winners}
        won[winners[0]] += odd  # odd chips to the earliest winner in turn order
        self.showdown = Showdown(hands, winners, won)
        self._award(won)


class CardPokerMatch(GameSeries):
    """Deals at one table: one deal (``episode="deal"``) or a session.

    A session plays deals until a player cannot pay the next ante (or has no
    chips left) or ``max_deals`` deals are done; stacks carry over and the
    first seat moves one place to the left each deal.
    """

    def __init__(
        self,
        n_players: int,
        rng: np.random.Generator,
        rules: CardPokerRules | None = None,
        episode: str = "deal",
        max_deals: int = 100,
        first: int = 0,
        deck_order: Sequence[int] | None = None,
    ) -> None:
        if episode not in ("deal", "session"):
            raise ValueError(f"episode must be 'deal' or 'session', got {episode!r}")
        if not isinstance(max_deals, int) or max_deals < 1:
            raise ValueError(f"max_deals must be a whole number >= 1, got {max_deals!r}")
        self.rules = rules or CardPokerRules()
        self.n_players = n_players
        self.rng = rng
        self.episode = episode
        self.max_deals = max_deals if episode == "session" else 1
        self.first = first
        self.net = [0] * n_players  # chips won or lost in finished deals
        self.deals_played = 0
        self.previous: CardPokerGame | None = None
        self.game = CardPokerGame(n_players, rng, self.rules, None, first, deck_order)

    @property
    def done(self) -> bool:
        return self.game.done and not self._continues()

    @property
    def _what(self) -> str:
        return self.episode

    @property
    def deals_left(self) -> int:
        """Deals still possible after the current one."""
        return self.max_deals - self.deals_played - (0 if self.game.done else 1)

    def stacks(self) -> list[int]:
        return list(self.game.stacks)

    def _continues(self) -> bool:
        return self.deals_played < self.max_deals and not broke(self.game.stacks, self.rules.ante)

    def _ledger(self) -> list[int]:
        return self.net

    def _game_over(self, chance=None) -> None:
        # chance (a permutation of the deck indices) deals the next deal of a session
        self.deals_played += 1
        if self._continues():
            self.previous = self.game
            first = (self.first + self.deals_played) % self.n_players
            self.game = CardPokerGame(
                self.n_players, self.rng, self.rules, self.game.stacks, first, chance
            )


def check_deck_order(order: Sequence[int], size: int, name: str) -> list[int]:
    """``order`` as a list of ints, or a ``ValueError`` unless it is a permutation of
    ``range(size)``."""
    if isinstance(order, np.ndarray):
        if not np.issubdtype(order.dtype, np.integer):
            raise ValueError(f"{name} must be a permutation of the deck indices, got {order.dtype}")
        cards = order.tolist()
    else:
        cards = [int(c) for c in order]
    if sorted(cards) != list(range(size)):
        raise ValueError(f"{name} must be a permutation of the {size} deck indices 0..{size - 1}")
    return cards
