"""A table-driven card poker player that decides a whole batch at once ("quick").

Where ``careful`` tries all 32 exchanges on a Monte Carlo sample, ``quick`` draws by a
keep rule read off per-card tables of the deck (rank, suit, joker), with no sampling:

- a made hand of five cards (full house, colour, suit, straights) or four and better
  stands pat;
- otherwise it keeps the jokers and every card whose rank is paired (pair, two pairs,
  three); with nothing paired it keeps its jokers and its highest natural card, except
  that four cards of one suit (jokers count) keep the four when the variant plays
  flushes, and the fifth card goes.

Exchanges the draw fee does not allow fall back to standing pat. The betting is
``careful``'s, vectorised: the chance to hold the best hand against every opponent
still in, read from the table of final hand strengths by cards exchanged
(:func:`agents.heuristic.card_poker.final_strengths`), made smaller for every bid an
opponent made; bid in proportion above ``bid_threshold``, reveal when the pot pays
for it, else pass (the tests hold that it bets exactly as ``careful`` does on the same
observation). Deterministic: the same observation gives the same action.

The batched ``careful`` and ``bluffer`` live here too (their ``act_batch`` and
``table_policy`` call :func:`careful_act_batch` and :func:`careful_table_policy`): the
choices of their scalar ``act`` row after row, the Monte Carlo draw taking its uniforms
from the agent's Generator in row order, so a table plays exactly as before, faster.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.heuristic.card_poker import _N_DISCARDED, _SLOT_SOURCE, final_strengths
from envs import games
from envs.batched.card_hands import SORT5, BatchedHandEvaluator
from envs.obs.card_poker import layout
from envs.rules.card_hands import Category
from envs.rules.card_poker import (
    FIRST_BID,
    HAND_SIZE,
    N_DISCARDS,
    PASS,
    REVEAL,
    CardPokerRules,
    Phase,
    max_exchange,
    reveal_cost,
)

_BITS = 1 << np.arange(HAND_SIZE)


class CardPokerQuick(Agent):
    """The batched table-driven card poker heuristic (module docstring)."""

    name = "quick"

    def __init__(
        self,
        game: str = "card_poker",
        bid_threshold: float = 0.62,
        bid_penalty: float = 0.5,
        **rules,
    ) -> None:
        super().__init__()
        self.rules = games.rules_for(game, CardPokerRules, type(self).__name__, **rules)
        ev = self.rules.evaluator
        self.batch = BatchedHandEvaluator.of(ev)
        deck = ev.deck
        self.n_cards = deck.size
        self.bid_threshold = bid_threshold
        self.bid_penalty = bid_penalty
        joker = np.array([deck.is_joker(i) for i in range(deck.size)])
        self._joker = joker
        self._rank = np.where(joker, 0, [c.rank for c in deck.cards]).astype(np.int64)
        self._suit = np.where(joker, -1, [c.suit for c in deck.cards]).astype(np.int64)
        # the category of each place in this variant's order
        self._category = np.array([int(c) for c in ev.order])
        self._flushes = Category.SUIT in ev.order
        self._finals = final_strengths(self.rules)  # sorted, by cards exchanged 0..5
        self._beats = beat_table(self.batch.percentile, self._finals)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None, :], np.asarray(action_mask)[None, :])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        f, hands, masks = decode_batch(self.n_cards, observations, action_masks)
        strength = self.batch.sorted_strengths(hands.astype(np.int8))
        return self._decide(hands, f["phase"][:, Phase.DRAW] == 1, strength, f, masks)

    def table_policy(self, core):
        """``act(tables, seats)``: :meth:`act_batch` for ``seats`` (the seat to move) at the
        ``tables`` of a ``BatchedCardPoker`` of the same rules, read from the tables' state
        instead of an encoded observation: the seat's sorted cards, its hand's place, and
        the betting fields from your seat on as the observation orders them. None when the
        table plays other rules."""
        if core.rules != self.rules:
            return None

        def act(tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
            f = table_fields(core, tables, seats)
            draw = core.phase[tables] == Phase.DRAW
            masks = core.action_masks(tables)
            return self._decide(
                core.hands[tables, seats], draw, core.strength[tables, seats], f, masks
            )

        return act

    def game_policy(self, rules: CardPokerRules):
        """``policy(game) -> int``: :meth:`act` for the player to act in an
        ``envs.rules.card_poker.CardPokerGame`` of ``rules``, read from the game's state in
        plain Python instead of an encoded observation, a mask and one-row arrays (the
        shortcut ``CardPoker-v0`` takes): the same choices. None for other rules, or for a
        subclass whose :meth:`act` decides otherwise."""
        own = type(self)
        if rules != self.rules or (own.act, own.act_batch) != (
            CardPokerQuick.act,
            CardPokerQuick.act_batch,
        ):
            return None
        return _QuickGamePolicy(self)

    def _decide(self, hands, draw, strength, f, masks) -> np.ndarray:
        """The draw of the rows in the draw phase, the bet of the others: ``hands`` sorted
        deck indices, ``strength`` the hand's (the evaluator's index), ``f`` the betting
        fields (``in``, ``drawn``, ``bids_by`` from your seat on, ``pot``, ``reveal_cost``)."""
        out = np.empty(len(hands), dtype=np.int64)
        if draw.any():
            place = self.batch.place[strength[draw]]
            out[draw] = self._draw(hands[draw], place, masks[draw])
        bet = ~draw
        if bet.any():
            sub = {k: f[k][bet] for k in ("in", "drawn", "bids_by", "pot", "reveal_cost")}
            chance = win_chance_of_strengths(strength[bet], sub, self._beats, self.bid_penalty)
            out[bet] = careful_bet(chance, sub, masks[bet], self.bid_threshold)
        return out

    # -- the draw ------------------------------------------------------------------------
    def _draw(self, hands: np.ndarray, place: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rank, suit, joker = self._rank[hands], self._suit[hands], self._joker[hands]
        category = self._category[place.astype(np.int64)]
        same_rank = (rank[:, :, None] == rank[:, None, :]) & ~joker[:, :, None]
        paired = (same_rank.sum(axis=2) >= 2) & ~joker
        keep = joker | paired
        # nothing paired: the highest natural card (the last natural in deck order)
        natural_pos = np.where(joker, -1, np.arange(HAND_SIZE))
        highest = natural_pos.max(axis=1)
        lone = ~paired.any(axis=1) & (highest >= 0)
        keep[np.flatnonzero(lone), highest[lone]] = True
        if self._flushes:
            same_suit = (suit[:, :, None] == suit[:, None, :]) & ~joker[:, :, None]
            suited = same_suit.sum(axis=2) + joker.sum(axis=1, keepdims=True)
            four = (np.where(joker, 0, suited) >= 4) & ~joker
            flush_draw = four.any(axis=1) & ~paired.any(axis=1)
            keep[flush_draw] = (four | joker)[flush_draw]
        exchange = (~keep * _BITS).sum(axis=1)
        exchange[category >= Category.FULL_HOUSE] = 0
        legal = masks[np.arange(len(hands)), exchange]
        return np.where(legal, exchange, 0)

    # -- the betting -----------------------------------------------------------------------
    def win_chance(self, f: dict, hands: np.ndarray) -> np.ndarray:
        """Chance to hold the best hand among the players still in (``careful``'s model)."""
        strength = self.batch.sorted_strengths(hands.astype(np.int8))
        return win_chance_of_strengths(strength, f, self._beats, self.bid_penalty)


class _QuickGamePolicy:
    """:meth:`CardPokerQuick.game_policy` (a class, so that an env holding it pickles and
    copies). Per strength (the evaluator's index) it keeps whether the hand stands pat (a
    category from the full house up, as :meth:`CardPokerQuick._draw` reads it) and, per
    cards exchanged and bids made, the factor ``beat ** (1 + bid_penalty * bids)`` of
    :func:`win_chance_of_strengths`, each row computed by the same array power; the keep
    rule of a hand is worked out on its five cards once and kept."""

    def __init__(self, agent: CardPokerQuick) -> None:
        self.agent = agent
        self.rules = agent.rules
        self.ev = agent.rules.evaluator
        places = agent.batch.place.astype(np.int64)
        self.stands = (agent._category[places] >= Category.FULL_HOUSE).tolist()
        self.rank, self.suit = agent._rank.tolist(), agent._suit.tolist()
        self.joker = agent._joker.tolist()
        self.factors: list[list[list[float]]] = [[] for _ in agent._beats]
        self.exchanges: dict[tuple[int, ...], int] = {}

    def factor(self, drawn: int, bids: int) -> list[float]:
        """Per strength, the chance factor against an opponent who exchanged ``drawn`` cards
        and bid ``bids`` times (the batched ``beat ** power`` on the whole row)."""
        rows = self.factors[drawn]
        while len(rows) <= bids:
            beat = self.agent._beats[drawn]
            power = np.full(beat.shape, 1 + self.agent.bid_penalty * float(len(rows)))
            rows.append((beat**power).tolist())
        return rows[bids]

    def exchange(self, hand: tuple[int, ...]) -> int:
        """:meth:`CardPokerQuick._draw`'s keep rule on one sorted hand, before the fee."""
        out = self.exchanges.get(hand)
        if out is not None:
            return out
        rank = [self.rank[c] for c in hand]
        suit = [self.suit[c] for c in hand]
        joker = [self.joker[c] for c in hand]
        paired = [not joker[i] and rank.count(rank[i]) >= 2 for i in range(HAND_SIZE)]
        keep = [joker[i] or paired[i] for i in range(HAND_SIZE)]
        any_paired = any(paired)
        naturals = [i for i in range(HAND_SIZE) if not joker[i]]
        if not any_paired and naturals:
            keep[naturals[-1]] = True  # the highest natural card: the last in deck order
        if self.agent._flushes and not any_paired:
            jokers = sum(joker)
            four = [not joker[i] and suit.count(suit[i]) + jokers >= 4 for i in range(HAND_SIZE)]
            if any(four):
                keep = [four[i] or joker[i] for i in range(HAND_SIZE)]
        out = sum(1 << i for i in range(HAND_SIZE) if not keep[i])
        if len(self.exchanges) >= 1 << 16:
            self.exchanges.clear()
        self.exchanges[hand] = out
        return out

    def __call__(self, game) -> int:
        agent = self.agent
        seat = game.current_player
        hand = game.hands[seat]
        strength = self.ev.strength(hand)
        if game.phase is Phase.DRAW:
            if self.stands[strength]:
                return 0
            out = self.exchange(hand)
            most = max_exchange(game.stacks[seat], self.rules.draw_fee)
            return out if out.bit_count() <= most else 0
        pot, cost = game.pot, game.reveal_cost
        if pot + cost >= 1 << 24:  # the observation's float32 would round them: as ever
            from envs.obs.card_poker import observe

            return agent.act(observe(game, seat), game.action_mask())
        n = game.n_players
        chance = 1.0
        for k in range(1, n):
            other = (seat + k) % n
            if game.in_play[other]:
                chance *= self.factor(max(game.drawn[other], 0), game.bids_made[other])[strength]
        legal = game._legal_now()
        bids = [a for a in legal if a >= FIRST_BID]
        threshold = agent.bid_threshold
        if bids and chance >= threshold:
            share = (chance - threshold) / (1 - threshold)
            return bids[0] + round(share * (len(bids) - 1))
        if REVEAL in legal and chance * (pot + cost) > cost:
            return REVEAL
        return PASS


def decode_batch(n_cards: int, observations, action_masks) -> tuple[dict, np.ndarray, np.ndarray]:
    """``(fields, hands, masks)`` of a batch of observations: the named fields, each row's
    own cards sorted by deck index (the order the discard bits refer to), the masks as
    bool; a ``ValueError`` unless every row has a legal action."""
    obs = np.asarray(observations)
    masks = np.asarray(action_masks, dtype=bool)
    if masks.ndim != 2 or len(masks) != len(obs) or not masks.any(axis=1).all():
        raise ValueError("every row needs a mask with at least one legal action")
    n_players = (obs.shape[1] - layout(n_cards, 0).size) // 5
    f = layout(n_cards, n_players).decode(obs)
    hands = np.sort(np.argsort(-f["cards"], axis=1, kind="stable")[:, :HAND_SIZE], axis=1)
    return f, hands, masks


def table_fields(core, tables: np.ndarray, seats: np.ndarray) -> dict:
    """The betting fields of ``seats`` at ``tables`` of a ``BatchedCardPoker``, read from
    its state as the observation orders them: ``in``, ``drawn``, ``bids_by`` from your
    seat on, ``pot`` and ``reveal_cost``."""
    tt, around = tables[:, None], (seats[:, None] + np.arange(core.n_players)) % core.n_players
    return {
        "in": core.in_play[tt, around],
        "drawn": core.drawn[tt, around],
        "bids_by": core.bids_made[tt, around],
        "pot": core.pot[tables],
        "reveal_cost": reveal_cost(core.level[tables], core.rules.min_bid),
    }


def win_chance(own: np.ndarray, f: dict, finals: tuple, bid_penalty: float) -> np.ndarray:
    """``careful``'s chance to hold the best hand among the players still in, per row:
    ``own`` the hand's percentile, ``f`` the fields ``in``, ``drawn``, ``bids_by`` from
    your seat on, ``finals`` the sorted final percentiles by cards exchanged."""
    own = np.asarray(own)

    def beat_of(drawn: np.ndarray) -> np.ndarray:
        beat = np.empty(len(own))
        for d in np.unique(drawn):
            rows = drawn == d
            beat[rows] = _beats(finals[d], own[rows])
        return beat

    return _chance(beat_of, f, bid_penalty)


def _beats(finals: np.ndarray, own: np.ndarray) -> np.ndarray:
    """The share of ``finals`` (sorted) that each ``own`` beats, ties counting half."""
    lo = np.searchsorted(finals, own, side="left")
    hi = np.searchsorted(finals, own, side="right")
    return (lo + hi) / 2 / len(finals)


def beat_table(percentile: np.ndarray, finals: tuple) -> np.ndarray:
    """``(len(finals), n_strengths)`` float64: row ``d`` the share of ``finals[d]`` that a
    hand of each strength beats (:func:`win_chance`'s ``beat`` computed once for every
    strength: the same numbers, one lookup per row instead of two binary searches)."""
    return np.stack([_beats(np.asarray(fin), np.asarray(percentile)) for fin in finals])


def win_chance_of_strengths(
    strength: np.ndarray, f: dict, beats: np.ndarray, bid_penalty: float
) -> np.ndarray:
    """:func:`win_chance` of hands given by strength (the evaluator's dense index), read off
    ``beats`` (:func:`beat_table` of the evaluator's percentiles and the same finals)."""
    strength = np.asarray(strength, dtype=np.int64)
    return _chance(lambda drawn: beats[drawn, strength], f, bid_penalty)


def _chance(beat_of, f: dict, bid_penalty: float) -> np.ndarray:
    """The product over the opponents still in of ``beat ** (1 + bid_penalty * bids)``,
    ``beat_of(drawn)`` each row's beat against opponents who exchanged ``drawn`` cards."""
    drawn = np.maximum(f["drawn"].astype(np.int64), 0)
    chance = np.ones(len(drawn))
    for k in range(1, f["in"].shape[1]):
        factor = beat_of(drawn[:, k]) ** (1 + bid_penalty * f["bids_by"][:, k].astype(np.float64))
        chance = np.where(f["in"][:, k] != 0, chance * factor, chance)
    return chance


def careful_bet(chance: np.ndarray, f: dict, masks: np.ndarray, bid_threshold: float):
    """``careful``'s bet per row: bid in proportion above ``bid_threshold``, reveal when
    the pot pays for it, else pass."""
    bids = masks[:, FIRST_BID:]
    n_bids = bids.sum(axis=1)
    first_bid = FIRST_BID + bids.argmax(axis=1)
    cost = f["reveal_cost"].astype(np.float64)
    share = (chance - bid_threshold) / (1 - bid_threshold)
    pick = first_bid + np.round(share * (n_bids - 1)).astype(np.int64)
    reveal = masks[:, REVEAL] & (chance * (f["pot"].astype(np.float64) + cost) > cost)
    return np.where((n_bids > 0) & (chance >= bid_threshold), pick, np.where(reveal, REVEAL, PASS))


# -- careful and bluffer in batch ---------------------------------------------------------
# ``CardPokerCareful.act_batch`` and ``table_policy`` (and the bluffer's, its subclass) call
# these: the same choices as the agent's ``act`` row after row, the Monte Carlo draw
# included: the rows that draw take their samples from the agent's Generator in row order,
# one block of ``(samples, unseen)`` uniforms per row, as ``act`` would one row at a time.

# per hand slot, the pool slot (0-4 held, 5-9 the replacements in order) of each exchange
_SLOT_COLUMNS = [np.ascontiguousarray(_SLOT_SOURCE[:, k]) for k in range(HAND_SIZE)]
_CHUNK_ROWS = 64  # draw rows valued at once (64 samples x 32 exchanges x 5 cards each)


def careful_act_batch(agent, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """``agent.act`` (a ``CardPokerCareful`` or ``CardPokerBluffer``) on every row."""
    f, hands, masks = decode_batch(agent.n_cards, observations, action_masks)
    f["own_drawn"] = f["drawn"][:, 0]
    return _careful_decide(agent, hands, f["phase"][:, Phase.DRAW] == 1, f, masks)


def careful_table_policy(agent, core):
    """``act(tables, seats)`` for ``BatchedCardPokerTable``: :func:`careful_act_batch` read
    from the tables' state (as :meth:`CardPokerQuick.table_policy`); None for other rules."""
    if core.rules != agent.rules:
        return None

    def act(tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
        f = table_fields(core, tables, seats)
        f["own_drawn"] = f["drawn"][:, 0]
        draw = core.phase[tables] == Phase.DRAW
        hands = core.hands[tables, seats].astype(np.int64)
        strengths = core.strength[tables, seats]
        return _careful_decide(agent, hands, draw, f, core.action_masks(tables), strengths)

    return act


def _batch_of(agent) -> BatchedHandEvaluator:
    batch = getattr(agent, "_batch", None)
    if batch is None:
        batch = agent._batch = BatchedHandEvaluator.of(agent.ev)
    return batch


def _beats_of(agent) -> np.ndarray:
    beats = getattr(agent, "_beats", None)
    if beats is None:
        beats = agent._beats = beat_table(_batch_of(agent).percentile, agent.final)
    return beats


def _careful_decide(agent, hands, draw, f, masks, strengths=None) -> np.ndarray:
    """The choices of ``agent.act`` on each row; ``strengths`` the hands' (None: valued)."""
    hands = hands.astype(np.int64)
    out = np.empty(len(hands), dtype=np.int64)
    bluff = np.zeros(len(hands), dtype=bool)
    if agent.bluff_rate > 0:
        if agent._card_keys is None:  # made when first read (agents.heuristic.card_poker)
            agent._card_keys = agent._keys()
        keys = agent._card_keys[hands]
        total = keys[:, 0]
        for j in range(1, HAND_SIZE):  # added left to right, as the scalar sum of five
            total = total + keys[:, j]
        bluff = total % 1.0 < agent.bluff_rate
    out[draw & bluff] = 0  # stand pat: look like a made hand
    drawing = np.flatnonzero(draw & ~bluff)
    for start in range(0, len(drawing), _CHUNK_ROWS):
        rows = drawing[start : start + _CHUNK_ROWS]
        out[rows] = _careful_draw(agent, hands[rows], masks[rows, :N_DISCARDS], rows)
    bet = ~draw
    if bet.any():
        batch = _batch_of(agent)
        sub = {k: f[k][bet] for k in ("in", "drawn", "bids_by", "pot", "reveal_cost")}
        strength = batch.sorted_strengths(hands[bet]) if strengths is None else strengths[bet]
        chance = win_chance_of_strengths(strength, sub, _beats_of(agent), agent.bid_penalty)
        m = masks[bet]
        chosen = careful_bet(chance, sub, m, agent.bid_threshold)
        n_bids = m[:, FIRST_BID:].sum(axis=1)
        bluffing = (f["own_drawn"][bet] == 0) & bluff[bet] & (n_bids > 0)
        # a bluff raises a little over the level each turn
        raise_to = FIRST_BID + m[:, FIRST_BID:].argmax(axis=1) + np.minimum(2, n_bids - 1)
        out[bet] = np.where(bluffing, raise_to, chosen)
    return out


def _exchange_values(batch: BatchedHandEvaluator, pool: np.ndarray) -> np.ndarray:
    """``(rows, 32)`` percentiles of every exchange's hand, ``pool`` ``(rows, 10)`` int8 the
    five cards held then the five replacements in order: the batch's strengths (its sorting
    network, combination index and table) built column by column from the pool, without
    the ``(rows * 32, 5)`` array of hands and its transpose."""
    cols = [np.take(pool, _SLOT_COLUMNS[k], axis=1) for k in range(HAND_SIZE)]
    for a, b in SORT5:
        low = np.minimum(cols[a], cols[b])
        np.maximum(cols[a], cols[b], out=cols[b])
        cols[a] = low
    return batch.percentile[np.take(batch.table, batch.combo_index(cols))]


def _careful_draw(agent, hands: np.ndarray, allowed: np.ndarray, at: np.ndarray) -> np.ndarray:
    """:func:`agents.heuristic.card_poker.best_discard` for each row of ``hands``, the
    uniforms drawn from ``agent.rng`` in row order (``at``: the rows' places in the batch
    asked, for the per-game streams of ``envs.batched.draws``)."""
    m, samples, size = len(hands), agent.samples, agent.n_cards
    unseen_mask = np.ones((m, size), dtype=bool)
    unseen_mask[np.arange(m)[:, None], hands] = False
    unseen = np.nonzero(unseen_mask)[1].reshape(m, size - HAND_SIZE)  # ascending per row
    rng = agent.rng.at(at) if hasattr(agent.rng, "at") else agent.rng
    u = rng.random((m * samples, size - HAND_SIZE))
    # the first five of each row's order: the five smallest uniforms, smallest first, by
    # five passes of argmin (cheaper than argpartition and a sort of the five)
    five = np.empty((m * samples, HAND_SIZE), dtype=np.int64)
    every = np.arange(m * samples)
    for j in range(HAND_SIZE):
        five[:, j] = u.argmin(axis=1)
        u[every, five[:, j]] = np.inf
    # deck indices fit int8 (at most 54 cards): an eighth of the bytes to gather and sort;
    # with the argmin, the draw of 64 rows takes 1.4x (36 cards) to 1.6x (54) less time
    new = np.take_along_axis(unseen.astype(np.int8), five.reshape(m, -1), 1)
    pool = np.concatenate(
        [
            np.broadcast_to(hands.astype(np.int8)[:, None, :], (m, samples, HAND_SIZE)),
            new.reshape(m, samples, HAND_SIZE),
        ],
        axis=2,
    ).reshape(m * samples, -1)
    value = _exchange_values(_batch_of(agent), pool).reshape(m, samples, N_DISCARDS)
    fee = agent.rules.draw_fee / max(agent.rules.stack, 1)
    score = value.mean(axis=1) - fee * _N_DISCARDED
    score = np.where(allowed, score, -np.inf)
    return score.argmax(axis=1)  # ties keep the exchange of fewer cards (lower set first)


__all__ = [
    "CardPokerQuick",
    "N_DISCARDS",
    "careful_act_batch",
    "careful_bet",
    "careful_table_policy",
    "beat_table",
    "win_chance",
    "win_chance_of_strengths",
]
