"""Card poker, N tables at once in numpy: every seat driven from outside, or one learner
among batched opponents.

:class:`BatchedCardPoker` (multi-seat, for self-play) holds N matches of
:class:`envs.rules.card_poker.CardPokerMatch` (one deal or a session each) as arrays with
a leading table axis. Per table: ``to_act`` (the seat to move, -1 once the match is
over), :meth:`observe` (that seat's observation through the scalar env's own layout,
``envs.obs.card_poker``), :meth:`action_masks`, and :meth:`step` returning each seat's
chips (``(N, n_players)``; a deal's payoffs on the step that ends it, else 0).

:class:`BatchedCardPokerTable` (single-agent) seats one learner per table (a fixed seat
or a random one per episode, as ``CardPoker-v0``) and lets the other seats act in batch
by opponent policies: callables ``f(observations (m, D), masks (m, A)) -> actions (m,)``
or objects with such an ``act_batch`` (e.g. an ``agents.Agent``). It is the engine behind
``gym.make_vec("CardPoker-v0", ...)`` and ``envs.vector.BatchedVecEnv``.

Rule facts come from the rules layer only: hand strengths from the evaluator's table of
every hand (:mod:`envs.batched.card_hands`), pot splitting from ``envs.rules.seats``,
legal draws, reveal cost, bid bounds and the end of a session from the bookkeeping
functions of ``envs.rules.card_poker`` that the scalar game calls too.

Chance is an input, read exactly as the scalar match reads it: ``reset(which, chance)``
deals each new match from ``chance[g]`` (an ``(N, D)`` array of deck permutations; the
first five cards to the first seat, and so on), and ``step(actions, chance)`` uses
``chance[g]`` as the order of a reshuffled stock when a draw runs it short, or as the
next deal's deck when the action ends a deal of a session that goes on. Without
``chance`` the engine draws the permutations it needs from its seeded Generator, or with
``draws`` set (:mod:`envs.batched.draws`, ``reset(seed=[...])`` of the vector envs) each
table its decks and its learner's seat from its own stream.

State is about 400 bytes per table with six players and 54 cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from envs import games
from envs.batched.card_hands import SORT5, BatchedHandEvaluator
from envs.batched.draws import CoreDraws, opponent_rows
from envs.batched.opponents import HalfStepped, illegal, opponent_actions, opponent_name
from envs.obs.card_poker import layout as obs_layout
from envs.rules.card_poker import (
    DISCARD_MASKS,
    FIRST_BID,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_DISCARDS,
    PASS,
    REVEAL,
    CardPokerRules,
    Phase,
    bid_bounds,
    broke,
    max_exchange,
    reveal_cost,
)
from envs.rules.seats import split_pot

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("card_poker")

_DRAW, _BET, _OVER = int(Phase.DRAW), int(Phase.BET), int(Phase.OVER)
_BITS = (1 << np.arange(HAND_SIZE)).astype(np.int64)
# bit i of a discard set -> the i-th card; per set: which slots go, and how many
_OUT = (np.arange(N_DISCARDS)[:, None] & _BITS) != 0  # (32, 5)
_N_OUT = _OUT.sum(axis=1)
# slot i of a discard set takes the j-th new card, j = discarded slots before it
_NEW_SLOT = np.cumsum(_OUT, axis=1) - 1


# from about this many hands on, the sorting network over columns beats np.sort by rows
_NETWORK_ROWS = 1024


def _is_int(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.integer) and a.dtype != bool


def _sort_rows(hands: np.ndarray) -> np.ndarray:
    if len(hands) < _NETWORK_ROWS:  # a few tables: one call, not the network's 30
        return np.sort(hands, axis=1)
    cols = [hands[:, k].copy() for k in range(HAND_SIZE)]
    for a, b in SORT5:
        low = np.minimum(cols[a], cols[b])
        np.maximum(cols[a], cols[b], out=cols[b])
        cols[a] = low
    return np.stack(cols, axis=1)


class BatchedCardPoker:
    """``n`` card poker matches of ``n_players`` seats, every seat driven from outside.

    ``episode`` is ``"deal"`` or ``"session"`` (deals until a player cannot pay the next
    ante, or ``max_deals``); ``first`` draws and bids first in the first deal, and the
    first seat moves one place to the left each deal, as in ``CardPokerMatch``.
    Finished matches stay finished (``done``) until :meth:`reset` starts them again.
    """

    def __init__(
        self,
        n: int,
        rules: CardPokerRules | None = None,
        seed: int | np.random.Generator | None = None,
        n_players: int = _TABLE.default_players,
        episode: str = "deal",
        max_deals: int = 100,
        first: int = 0,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"the number of tables must be an integer >= 1, got {n!r}")
        if type(n_players) is not int or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"card poker needs 2-6 players, got {n_players!r}")
        if episode not in ("deal", "session"):
            raise ValueError(f"episode must be 'deal' or 'session', got {episode!r}")
        if type(max_deals) is not int or max_deals < 1:
            raise ValueError(f"max_deals must be a whole number >= 1, got {max_deals!r}")
        if type(first) is not int or not 0 <= first < n_players:
            raise ValueError(f"first must be a seat 0..{n_players - 1}, got {first!r}")
        self.n = n = int(n)
        self.rules = rules = rules if rules is not None else CardPokerRules()
        if not isinstance(rules, CardPokerRules):
            raise ValueError(f"rules must be a CardPokerRules, got {rules!r}")
        self.n_players = p = n_players
        self.episode = episode
        self.max_deals = max_deals if episode == "session" else 1
        self.first0 = first
        self.hands_eval = BatchedHandEvaluator.of(rules.evaluator)
        # the evaluator's five binomial tables end to end: a sorted hand's combination
        # index in one gather and one sum (combo_index's five gathers and four additions)
        self._binom_flat = np.concatenate(self.hands_eval._binom)
        self._binom_at = np.arange(HAND_SIZE) * self.hands_eval.size
        self.n_cards = d = self.hands_eval.size
        self.n_actions = rules.n_actions
        self.layout = obs_layout(d, p)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.draws = None  # envs.batched.draws.GameDraws: one stream per table instead of rng
        self.draw_block = 4 * d  # uniforms a table's stream buffers (four decks)
        self._rows = np.arange(n)
        self._bid_amounts = np.arange(rules.min_bid, rules.max_bid + 1)
        # -- state (leading axis = table) --
        self.hands = np.zeros((n, p, HAND_SIZE), dtype=np.int8)  # sorted deck indices
        self.strength = np.zeros((n, p), dtype=np.int16)  # of each hand
        self.stock = np.zeros((n, d), dtype=np.int8)  # stock = stock[g, top : top + left]
        self.top = np.zeros(n, dtype=np.int16)
        self.left = np.zeros(n, dtype=np.int16)
        self.pile = np.zeros((n, d), dtype=bool)  # cards discarded this deal (since a reshuffle)
        self.drawn = np.zeros((n, p), dtype=np.int8)  # -1 before the draw
        self.in_play = np.zeros((n, p), dtype=bool)
        self.bids_made = np.zeros((n, p), dtype=np.int16)
        self.bid_chips = np.zeros((n, p), dtype=np.int64)
        self.stacks = np.zeros((n, p), dtype=np.int64)
        self.start_stacks = np.zeros((n, p), dtype=np.int64)  # before this deal's ante
        self.net = np.zeros((n, p), dtype=np.int64)  # finished deals of the match
        self.pot = np.zeros(n, dtype=np.int64)
        self.level = np.zeros(n, dtype=np.int64)  # the previous bid, 0 while nobody has bid
        self.n_bids = np.zeros(n, dtype=np.int16)
        self.phase = np.full(n, _OVER, dtype=np.int8)
        self.turn = np.zeros(n, dtype=np.int8)  # index into this deal's order
        self.first = np.zeros(n, dtype=np.int8)  # this deal's first seat
        self.deals_played = np.zeros(n, dtype=np.int32)
        self.over = np.ones(n, dtype=bool)  # the match is over (`done` is a copy)
        self.last_seat = np.zeros(n, dtype=np.int8)  # who moved last (observed when done)
        self._mask: np.ndarray | None = None  # action_masks() of the present state
        self.decisions = 0  # actions played so far, all tables (for speed figures)

    # -- chance -------------------------------------------------------------------------
    def draw_chance(self, m: int | None = None) -> np.ndarray:
        """``(m, D)`` uniform permutations of the deck from the engine's Generator."""
        m = self.n if m is None else m
        return np.argsort(self.rng.random((m, self.n_cards)), axis=1).astype(np.int8)

    def check_chance(self, chance) -> np.ndarray:
        """``chance`` as an ``(n, D)`` int8 array whose rows are permutations of the deck,
        or a ``ValueError`` naming the first bad row."""
        c = np.asarray(chance)
        n, d = self.n, self.n_cards
        if c.shape != (n, d) or not _is_int(c):
            raise ValueError(
                f"chance must be an integer array of shape ({n}, {d}) (a permutation of "
                f"the deck per table), got {c.dtype} {c.shape}"
            )
        inside = ((c >= 0) & (c < d)).all(axis=1)
        flat = (np.where(inside[:, None], c, 0) + self._rows[:, None] * d).ravel()
        seen = np.bincount(flat, minlength=n * d).reshape(n, d)
        bad = ~inside | (seen != 1).any(axis=1)
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"chance[{g}] is not a permutation of the deck indices 0..{d - 1}: {c[g].tolist()}"
            )
        return c.astype(np.int8)

    def _chance_rows(self, chance: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
        if chance is None and self.draws is not None:  # each table's deck from its own stream
            return np.argsort(self.draws.uniform(rows, self.n_cards), axis=1).astype(np.int8)
        return self.draw_chance(len(rows)) if chance is None else chance[rows]

    # -- state ----------------------------------------------------------------------------
    @property
    def done(self) -> np.ndarray:
        """``(n,)`` bool: the match is over (a copy)."""
        return self.over.copy()

    @property
    def to_act(self) -> np.ndarray:
        """``(n,)`` the seat to move at each table, -1 where the match is over."""
        seat = (self.first.astype(np.int64) + self.turn) % self.n_players
        return np.where(self.over, -1, seat).astype(np.int8)

    current_player = to_act

    def reveal_cost(self) -> np.ndarray:
        return reveal_cost(self.level, self.rules.min_bid)

    def deals_left(self) -> np.ndarray:
        """Deals still possible after the current one (``CardPokerMatch.deals_left``)."""
        return self.max_deals - self.deals_played - (self.phase != _OVER)

    def action_masks(self, tables: np.ndarray | None = None) -> np.ndarray:
        """``(n, A)`` bool (or the rows ``tables``: an index array, an int, a slice): the
        legal actions of the seat to move (none where the match is over). The array is the
        caller's own: changing it changes no mask the engine keeps or hands out."""
        # every table's at once, kept until the next move (a step or a reset clears them):
        # the opponents' policies ask for their rows, then the step checking their actions
        # reads the same masks
        if self._mask is None:
            self._mask = self._masks(self._rows)
        if tables is None:
            return self._mask.copy()
        out = self._mask[tables]  # an index array copies; an int or a slice is a view
        return out.copy() if np.may_share_memory(out, self._mask) else out

    def _masks(self, t: np.ndarray) -> np.ndarray:
        r = self.rules
        seat = (self.first[t].astype(np.int64) + self.turn[t]) % self.n_players
        stack = self.stacks[t, seat]
        phase = self.phase[t]
        live = ~self.over[t]
        draw = live & (phase == _DRAW)
        bet = live & (phase == _BET)
        mask = np.zeros((len(t), self.n_actions), dtype=bool)
        mask[:, :N_DISCARDS] = DISCARD_MASKS[max_exchange(stack, r.draw_fee)] & draw[:, None]
        mask[:, PASS] = bet
        mask[:, REVEAL] = bet & (reveal_cost(self.level[t], r.min_bid) <= stack)
        low, high = bid_bounds(self.level[t], stack, r.min_bid, r.max_bid)
        can_bid = bet & (self.n_bids[t] < r.max_bids)
        b = self._bid_amounts
        mask[:, FIRST_BID:] = can_bid[:, None] & (b >= low[:, None]) & (b <= high[:, None])
        return mask

    def observe(self, seats=None, tables: np.ndarray | None = None) -> np.ndarray:
        """``(n, D)`` float32 (or the rows ``tables``): what ``seats`` see, through the
        scalar env's layout. ``seats`` is a seat per table (or one seat for all); by
        default the seat to move, and where the match is over the seat that moved last."""
        t = self._rows if tables is None else np.asarray(tables)
        m = len(t)
        if seats is None:
            seat = np.where(self.over[t], self.last_seat[t], self.to_act[t]).astype(np.int64)
        else:
            seat = np.broadcast_to(np.asarray(seats, dtype=np.int64), (m,))
        p = self.n_players
        cards = np.zeros((m, self.n_cards), dtype=np.float32)
        cards[np.arange(m)[:, None], self.hands[t, seat]] = 1.0
        phase = np.zeros((m, 3), dtype=np.float32)
        phase[np.arange(m), self.phase[t]] = 1.0
        strength = self.strength[t, seat]
        around = (seat[:, None] + np.arange(p)) % p  # you first, then to your left
        tt = t[:, None]
        return self.layout.encode(
            cards=cards,
            phase=phase,
            hand_rank=self.hands_eval.place[strength],
            hand_strength=self.hands_eval.percentile[strength],
            pot=self.pot[t],
            bid=self.level[t],
            reveal_cost=reveal_cost(self.level[t], self.rules.min_bid),
            bids=self.n_bids[t],
            bids_left=np.maximum(self.rules.max_bids - self.n_bids[t], 0),
            position=(seat - self.first[t]) % p,
            deals_left=self.deals_left()[t],
            net=self.net[t, seat],
            stacks=self.stacks[tt, around],
            drawn=self.drawn[tt, around],
            bids_by=self.bids_made[tt, around],
            bid_chips=self.bid_chips[tt, around],
            **{"in": self.in_play[tt, around]},
        )

    STATE = (
        "hands",
        "strength",
        "stock",
        "top",
        "left",
        "pile",
        "drawn",
        "in_play",
        "bids_made",
        "bid_chips",
        "stacks",
        "start_stacks",
        "net",
        "pot",
        "level",
        "n_bids",
        "phase",
        "turn",
        "first",
        "deals_played",
        "over",
        "last_seat",
    )

    def state_bytes(self) -> int:
        """Bytes of state per table."""
        return sum(getattr(self, name).nbytes for name in self.STATE) // self.n

    # -- moves ----------------------------------------------------------------------------
    def reset(self, which: np.ndarray | None = None, chance: np.ndarray | None = None) -> None:
        """Start new matches at the tables ``which`` (bool (n,), default all), each dealt
        from its row of ``chance``."""
        which = np.ones(self.n, dtype=bool) if which is None else self._which(which)
        if chance is not None:
            chance = self.check_chance(chance)
        g = np.flatnonzero(which)
        if not len(g):
            return
        self._mask = None
        self.stacks[g] = self.rules.stack
        self.net[g] = 0
        self.deals_played[g] = 0
        self.over[g] = False
        self.last_seat[g] = self.first0
        self._deal(g, np.full(len(g), self.first0), self._chance_rows(chance, g))

    def _which(self, which) -> np.ndarray:
        w = np.asarray(which)
        if w.shape != (self.n,) or w.dtype != bool:
            raise ValueError(
                f"which must be a bool array of shape ({self.n},), got {w.dtype} {w.shape}"
            )
        return w

    def _deal(self, g: np.ndarray, first: np.ndarray, decks: np.ndarray) -> None:
        p, ante = self.n_players, self.rules.ante
        self.first[g] = first
        self.start_stacks[g] = self.stacks[g]
        self.stacks[g] -= ante
        self.pot[g] = ante * p
        self.stock[g] = decks
        # the i-th five cards go to the i-th seat in turn order
        seats = (first[:, None] + np.arange(p)) % p
        dealt = decks[:, : p * HAND_SIZE].reshape(len(g), p, HAND_SIZE)
        hands = np.empty_like(dealt)
        hands[np.arange(len(g))[:, None], seats] = dealt
        hands = _sort_rows(hands.reshape(-1, HAND_SIZE)).reshape(len(g), p, HAND_SIZE)
        self.hands[g] = hands
        self.strength[g] = self._strengths(hands)
        self.top[g] = p * HAND_SIZE
        self.left[g] = self.n_cards - p * HAND_SIZE
        self.pile[g] = False
        self.drawn[g] = -1
        self.in_play[g] = True
        self.bids_made[g] = 0
        self.bid_chips[g] = 0
        self.n_bids[g] = 0
        self.level[g] = 0
        self.phase[g] = _DRAW
        self.turn[g] = 0

    def check_actions(self, actions, which: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as an int64 array of shape (n,), or a ``ValueError`` naming the first
        table whose action is illegal, the action and the legal ones (only the tables
        ``which`` are checked, default all)."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or not _is_int(a):
            raise ValueError(
                f"actions must be an integer array of shape ({self.n},), got {a.dtype} {a.shape}"
            )
        a = a.astype(np.int64)
        t = self._rows if which is None else which.nonzero()[0]
        if self._mask is None:
            self._mask = self._masks(self._rows)
        mask = self._mask[t]
        inside = (a[t] >= 0) & (a[t] < self.n_actions)
        legal = inside & mask[np.arange(len(t)), np.clip(a[t], 0, self.n_actions - 1)]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            g = int(t[i])
            state = "the match is over" if self.over[g] else f"seat {int(self.to_act[g])} to act"
            raise ValueError(
                f"illegal action {int(a[g])} at table {g} ({state}); legal actions there are "
                f"{np.flatnonzero(mask[i]).tolist()} (no table was advanced)"
            )
        return a

    def step(self, actions, chance: np.ndarray | None = None) -> np.ndarray:
        """Play one action at every table; returns ``(n, n_players)`` chips (each seat's
        payoff of a deal that ended on this step, else 0). Every action is checked first:
        one illegal action raises and no table moves."""
        return self.step_some(actions, None, chance)

    def step_some(
        self, actions, which: np.ndarray | None, chance: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`step` at the tables ``which`` (bool (n,)) only; the others do not move and
        their actions are not read."""
        if which is not None:
            which = self._which(which)
        a = self.check_actions(actions, which)
        if chance is not None:
            chance = self.check_chance(chance)
        act = ~self.over if which is None else which & ~self.over
        self._mask = None
        self.decisions += int(np.count_nonzero(act))
        seat = self.to_act.astype(np.int64)
        self.last_seat[act] = seat[act]
        payoffs = np.zeros((self.n, self.n_players), dtype=np.int64)
        phase = self.phase.copy()  # a draw may open the betting: bets are read from before
        g = (act & (phase == _DRAW)).nonzero()[0]
        if len(g):
            self._draw(g, seat[g], a[g], chance)
        bet = act & (phase == _BET)
        ended = np.zeros(self.n, dtype=bool)
        g = (bet & (a == PASS)).nonzero()[0]
        if len(g):
            self.in_play[g, seat[g]] = False
            alone = self.in_play[g].sum(axis=1) == 1
            self._award_unseen(g[alone])
            ended[g[alone]] = True
            self._next_bidder(g[~alone])
        g = (bet & (a == REVEAL)).nonzero()[0]
        if len(g):
            self._pay(g, seat[g], reveal_cost(self.level[g], self.rules.min_bid))
            self._showdown(g)
            ended[g] = True
        g = (bet & (a >= FIRST_BID)).nonzero()[0]
        if len(g):
            amount = a[g] - FIRST_BID + self.rules.min_bid
            self._pay(g, seat[g], amount)
            self.level[g] = amount
            self.n_bids[g] += 1
            self.bids_made[g, seat[g]] += 1
            self.bid_chips[g, seat[g]] += amount
            self._next_bidder(g)
        g = ended.nonzero()[0]
        if len(g):
            payoffs[g] = self.stacks[g] - self.start_stacks[g]
            self.net[g] += payoffs[g]
            self.deals_played[g] += 1
            goes_on = (self.deals_played[g] < self.max_deals) & ~broke(
                self.stacks[g], self.rules.ante
            )
            self.over[g[~goes_on]] = True
            nxt = g[goes_on]
            if len(nxt):
                first = (self.first0 + self.deals_played[nxt]) % self.n_players
                self._deal(nxt, first, self._chance_rows(chance, nxt))
        return payoffs

    def _strengths(self, hands: np.ndarray) -> np.ndarray:
        """``hands_eval.sorted_strengths`` of hands sorted on the last axis (any leading
        shape), for the few rows of a step in three calls."""
        idx = np.take(self._binom_flat, hands + self._binom_at).sum(axis=-1)
        return np.take(self.hands_eval.table, idx)

    def _pay(self, g: np.ndarray, seat: np.ndarray, chips: np.ndarray) -> None:
        self.stacks[g, seat] -= chips
        self.pot[g] += chips

    def _draw(self, g: np.ndarray, seat: np.ndarray, a: np.ndarray, chance) -> None:
        k = _N_OUT[a]
        short = (self.left[g] < k).nonzero()[0]
        if len(short):
            self._reshuffle(g[short], self._chance_rows(chance, g[short]))
        d = self.n_cards
        hand = self.hands[g, seat]
        out = _OUT[a]
        # the j-th discarded slot takes the j-th card from the top of the stock
        pos = (g * d + self.top[g])[:, None] + np.where(out, _NEW_SLOT[a], 0)
        new = self.stock.reshape(-1).take(np.minimum(pos, self.n * d - 1))
        self.pile.reshape(-1)[(g[:, None] * d + hand)[out]] = True
        hands = _sort_rows(np.where(out, new, hand))
        self.hands[g, seat] = hands
        self.strength[g, seat] = self._strengths(hands)
        self.top[g] += k
        self.left[g] -= k
        self.drawn[g, seat] = k
        self._pay(g, seat, self.rules.draw_fee * k)
        last = self.turn[g] + 1 >= self.n_players
        self.turn[g] = np.where(last, 0, self.turn[g] + 1)
        self.phase[g[last]] = _BET

    def _reshuffle(self, g: np.ndarray, chance: np.ndarray) -> None:
        """The stock left, then the discard pile in the order of ``chance``."""
        m, d = len(g), self.n_cards
        big = 2 * d + 1
        key = np.full((m, d), big, dtype=np.int16)
        j = np.arange(d)
        in_stock = j < self.left[g][:, None]
        rows = np.broadcast_to(np.arange(m)[:, None], (m, d))
        cards = self.stock[g[:, None], np.minimum(self.top[g][:, None] + j, d - 1)]
        key[rows[in_stock], cards[in_stock]] = j.astype(np.int16)[None, :].repeat(m, 0)[in_stock]
        place = np.empty((m, d), dtype=np.int16)  # place of each card in chance
        place[rows, chance] = j
        key = np.where(self.pile[g], d + place, key)
        self.stock[g] = np.argsort(key, axis=1, kind="stable").astype(np.int8)
        self.top[g] = 0
        self.left[g] += self.pile[g].sum(axis=1)
        self.pile[g] = False

    def _next_bidder(self, g: np.ndarray) -> None:
        if not len(g):
            return
        p = self.n_players
        steps = np.arange(1, p + 1)
        turns = (self.turn[g, None].astype(np.int64) + steps) % p
        seats = (self.first[g, None].astype(np.int64) + turns) % p
        still = self.in_play[g[:, None], seats]
        self.turn[g] = turns[np.arange(len(g)), still.argmax(axis=1)]

    def _award_unseen(self, g: np.ndarray) -> None:
        if not len(g):
            return
        winner = self.in_play[g].argmax(axis=1)
        self.stacks[g, winner] += self.pot[g]
        self.pot[g] = 0
        self.phase[g] = _OVER

    def _showdown(self, g: np.ndarray) -> None:
        p = self.n_players
        shown = self.in_play[g]
        strength = np.where(shown, self.strength[g], -1)
        winners = shown & (strength == strength.max(axis=1, keepdims=True))
        share, odd = split_pot(self.pot[g], winners.sum(axis=1))
        won = np.where(winners, share[:, None], 0)
        # odd chips to the earliest winner in turn order
        position = (np.arange(p) - self.first[g, None].astype(np.int64)) % p
        earliest = np.where(winners, position, p).argmin(axis=1)
        won[np.arange(len(g)), earliest] += odd
        self.stacks[g] += won
        self.pot[g] = 0
        self.phase[g] = _OVER


Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class BatchedCardPokerTable(CoreDraws):
    """``n`` tables of card poker for one learner each; the other seats are played in batch
    by ``opponents`` (module docstring). The engine protocol of ``envs.vector``: ``n``,
    ``n_actions``, ``layout``, ``reset(which)``, ``step(actions) -> rewards``,
    ``step_some``, ``done``, ``observe()``, ``action_masks()``.

    ``opponents`` is one policy for every other seat or a list of ``n_players - 1`` in
    seat order skipping the learner's; ``agent_seat`` a seat or ``"random"`` (drawn per
    episode from the engine's Generator). The same object at several seats is asked once
    for all of them, on their rows in seat order. An opponent with ``table_policy(core)``
    returning ``act(tables, seats)`` (``quick``) decides from the tables' state instead of
    an encoded observation, bound to choose what its ``act_batch`` would. Rewards are the
    learner's chips of each deal, paid on the step that ends it, as ``CardPoker-v0``.
    """

    # keyword options envs.vector.make_engine passes through, with CardPoker-v0's defaults
    # (opponents given by name are resolved above the envs: gym.make_vec, agents.tables)
    table_options = {
        "n_players": _TABLE.default_players,
        "opponents": None,  # Agents or batched policies (specs: gym.make_vec)
        "agent_seat": "random",
        "episode": "deal",
        "max_deals": 100,
    }

    def __init__(
        self,
        n: int,
        rules: CardPokerRules | None = None,
        seed: int | np.random.Generator | None = None,
        n_players: int = _TABLE.default_players,
        opponents: Policy | object | Sequence[Policy | object] | None = None,
        agent_seat: int | str = "random",
        episode: str = "deal",
        max_deals: int = 100,
    ) -> None:
        self.core = BatchedCardPoker(
            n, rules, seed, n_players=n_players, episode=episode, max_deals=max_deals
        )
        self.n, self.n_players, self.rules = self.core.n, n_players, self.core.rules
        self.n_actions, self.layout = self.core.n_actions, self.core.layout
        if agent_seat != "random" and (
            type(agent_seat) is not int or not 0 <= agent_seat < n_players
        ):
            raise ValueError(
                f"agent_seat must be 'random' or 0..{n_players - 1}, got {agent_seat!r}"
            )
        self.agent_seat_option = agent_seat
        if opponents is None or isinstance(opponents, str):
            raise ValueError(
                f"opponents are batched policies here, got {opponents!r}; "
                f"envs.vector.make_engine turns agent specs into them"
            )
        many = isinstance(opponents, list | tuple)
        specs = list(opponents) if many else [opponents] * (n_players - 1)
        if len(specs) != n_players - 1:
            raise ValueError(
                f"opponents lists {len(specs)} policies but {n_players} players need "
                f"{n_players - 1}"
            )
        self.opponents = specs
        self._policies = [self._as_policy(o) for o in specs]
        # the same object at several seats is asked once, on its seats' rows in seat order
        # (the order the seats were asked one after another: a Generator-driven policy
        # draws the same numbers for the same rows)
        groups: list[tuple[Policy, list[int]]] = []
        for j, o in enumerate(specs):
            for g in groups:
                if specs[g[1][0]] is o:
                    g[1].append(j)
                    break
            else:
                groups.append((self._policies[j], [j]))
        self._groups = groups
        # per group: its shortcut past the observation, ``act(tables, seats)`` choosing what
        # act_batch on their observations and masks would (``table_policy``; None: none)
        self._direct = []
        for _, js in groups:
            make = getattr(specs[js[0]], "table_policy", None)
            self._direct.append(make(self.core) if callable(make) else None)
        self.agent_seat = np.zeros(self.n, dtype=np.int64)
        self._half = HalfStepped(self.n)  # tables a failing opponent left mid-step
        self.rng = self.core.rng

    @staticmethod
    def _as_policy(opponent) -> Policy:
        if hasattr(opponent, "act_batch"):
            return opponent.act_batch
        if callable(opponent):
            return opponent
        raise ValueError(
            f"an opponent is a callable (observations, masks) -> actions or has an act_batch, "
            f"got {opponent!r}"
        )

    @property
    def rng(self) -> np.random.Generator:
        return self.core.rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        """Setting the Generator (a new seed) reseeds the opponents that take a seed."""
        self.core.rng = rng
        for opponent in self.opponents:
            if hasattr(opponent, "seed"):
                opponent.seed(int(rng.integers(2**63)))

    @property
    def draw_block(self) -> int:
        return self.core.draw_block

    @property
    def done(self) -> np.ndarray:
        return self.core.done

    def observe(self) -> np.ndarray:
        return self.core.observe(self.agent_seat)

    def action_masks(self) -> np.ndarray:
        return self.core.action_masks()

    def stakes(self) -> np.ndarray:
        """(n,) the learner's chips in the pot of the deal in play (ante, draw fees, bids);
        what it forfeits under ``illegal_action="terminate"``."""
        rows, seat = self.core._rows, self.agent_seat
        return self.core.start_stacks[rows, seat] - self.core.stacks[rows, seat]

    def reset(self, which: np.ndarray | None = None) -> None:
        which = np.ones(self.n, dtype=bool) if which is None else self.core._which(which)
        self._half.clear(which)
        self.core.reset(which)
        if self.agent_seat_option == "random" and self.core.draws is not None:
            rows = np.flatnonzero(which)
            self.agent_seat[rows] = self.core.draws.integers(rows, 0, self.n_players, 1)[:, 0]
        elif self.agent_seat_option == "random":
            seats = self.rng.integers(self.n_players, size=self.n)
            self.agent_seat[which] = seats[which]
        else:
            self.agent_seat[which] = self.agent_seat_option
        self._advance(which)

    def step(self, actions) -> np.ndarray:
        return self.step_some(actions, None)

    def step_some(self, actions, which: np.ndarray | None) -> np.ndarray:
        """The learner's action at the tables ``which`` (default all), then the opponents
        until each learner must act again or its episode is over; the learner's chips."""
        which = ~self.core.over if which is None else self.core._which(which) & ~self.core.over
        self._half.refuse(which)
        if (self.core.to_act[which] != self.agent_seat[which]).any():
            raise AssertionError("the learner is to act at every running table")
        paid = self.core.step_some(actions, which)[self.core._rows, self.agent_seat]
        return paid + self._advance(which)

    def check_actions(self, actions, which: np.ndarray | None = None) -> np.ndarray:
        """The learner's ``actions`` checked as :meth:`step_some` checks them (nothing moves)."""
        return self.core.check_actions(actions, which)

    def _advance(self, which: np.ndarray) -> np.ndarray:
        """Opponents act until the learner is to move or the match is over; an opponent that
        fails leaves the tables ``which`` to be reset (``envs.batched.opponents``)."""
        try:
            return self._play_opponents(which)
        except Exception as e:
            self._half.fail(np.flatnonzero(which), e)
            raise

    def _play_opponents(self, which: np.ndarray) -> np.ndarray:
        core = self.core
        reward = np.zeros(self.n, dtype=np.int64)
        actions = np.zeros(self.n, dtype=np.int64)
        while True:
            seat = core.to_act.astype(np.int64)
            theirs = which & ~core.over & (seat != self.agent_seat)
            if not theirs.any():
                return reward
            # opponent k sits at seat k, or k + 1 from the learner's seat on
            k = seat - (seat > self.agent_seat)
            for (policy, js), direct in zip(self._groups, self._direct, strict=True):
                t = np.concatenate([(theirs & (k == j)).nonzero()[0] for j in js])
                if not len(t):
                    continue
                o = self.opponents[js[0]]
                with opponent_rows(o, core.draws, t):
                    if direct is not None:
                        out = direct(t, seat[t])
                    else:
                        out = policy(core.observe(seat[t], t), core.action_masks(t))
                actions[t] = opponent_actions(out, len(t), o, self.n_actions)
            try:
                paid = core.step_some(actions, theirs)
            except ValueError:  # an illegal action (nothing of this round moved): whose?
                error = self._illegal(actions, theirs, k)
                if error is None:
                    raise
                raise error from None
            reward += paid[core._rows, self.agent_seat]

    def _illegal(self, actions: np.ndarray, theirs: np.ndarray, k: np.ndarray) -> Exception | None:
        t = np.flatnonzero(theirs)
        mask = self.core.action_masks(t)
        a = actions[t]
        ok = (a >= 0) & (a < self.n_actions)
        ok[ok] = mask[np.flatnonzero(ok), a[ok]]
        if ok.all():
            return None
        j = int(np.flatnonzero(~ok)[0])
        g = int(t[j])
        seat = f" at seat {int(self.core.to_act[g])}"
        who = opponent_name(self.opponents[int(k[g])], seat)
        return illegal(who, int(a[j]), g, np.flatnonzero(mask[j]).tolist())


__all__ = ["BatchedCardPoker", "BatchedCardPokerTable"]
