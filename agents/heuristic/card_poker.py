"""Rule-of-thumb players of card poker: a careful one and a bluffer.

Both draw the same way: every one of the 32 exchanges is tried on the same
Monte Carlo sample of replacement cards (drawn from the cards the player does
not hold), and the exchange with the best mean hand strength (the share of
all hands of the deck it beats) net of the draw fee wins.

The careful player bids by its chance to win. Each opponent still in is
modelled by the final hands that players who exchanged as many cards reach
(simulated once per rule set with the same draw), made a little stronger for
every bid they made. It bids when that chance is high, reveals when the pot
pays for it, and passes otherwise.

The bluffer plays the same, except that on a set share of deals
(``bluff_rate``) it stands pat and bids high whatever it holds, revealing at
the end only when the pot would pay for it. Whether a deal is a bluff is read off
the hand it was dealt (a keyed hash of its cards, uniform over hands, keyed from the
agent's seeded generator), not kept between calls: one agent can play many tables
of a batch, or several seats, and each deal keeps its own decision.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from agents.base import Agent, legal_actions
from envs import games
from envs.obs.card_poker import decode_observation
from envs.rules.card_hands import HandSums
from envs.rules.card_poker import (
    DISCARD_MASKS,
    FIRST_BID,
    HAND_SIZE,
    N_DISCARDS,
    PASS,
    REVEAL,
    CardPokerRules,
    Phase,
    max_exchange,
)

# every discard set as a 0/1 row over the five sorted cards
_DISCARD_BITS = np.array([[a >> i & 1 for i in range(HAND_SIZE)] for a in range(N_DISCARDS)])
_N_DISCARDED = _DISCARD_BITS.sum(1)
# For each discard set, which column of [hand, replacements] fills each slot:
# kept card i stays in slot i; the j-th discarded card is replaced by replacement j.
_SLOT_SOURCE = np.array(
    [
        [i if not bits[i] else HAND_SIZE + int(bits[:i].sum()) for i in range(HAND_SIZE)]
        for bits in _DISCARD_BITS
    ]
)


def best_discard(
    hand: np.ndarray,
    unseen: np.ndarray,
    percentile: np.ndarray,
    strengths,
    rng: np.random.Generator,
    samples: int,
    fee_per_card: float,
    allowed: np.ndarray | None = None,
) -> int:
    """The exchange (bit set over the sorted hand) with the best mean strength after the draw.

    ``strengths`` maps an ``(n, 5)`` array of deck indices to hand strengths;
    ``fee_per_card`` is the draw fee in strength units.
    """
    # Common random replacements for every exchange: the first k cards of one
    # random order of the unseen cards replace the k discarded ones.
    order = rng.random((samples, len(unseen))).argsort(axis=1)[:, :HAND_SIZE]
    pool = np.concatenate(
        [np.broadcast_to(hand, (samples, HAND_SIZE)), unseen[order]], axis=1
    )  # (samples, 10)
    hands = pool[:, _SLOT_SOURCE]  # (samples, 32, 5)
    value = percentile[strengths(hands.reshape(-1, HAND_SIZE))].reshape(samples, N_DISCARDS)
    score = value.mean(0) - fee_per_card * _N_DISCARDED
    if allowed is not None:
        score = np.where(allowed, score, -np.inf)
    # ties keep the exchange of fewer cards (lower set first)
    return int(np.argmax(score))


# per exchange, the five sorted cards it keeps (1) as a row: kept word sums by one product
_KEPT = (1 - _DISCARD_BITS).astype(np.int64)
# per exchange, the column of the replacements' running sum that holds its k replacements
_LAST_NEW = _N_DISCARDED - 1  # -1 for standing pat: that column is zeroed


def best_exchange(
    hand: np.ndarray,
    unseen: np.ndarray,
    sums: HandSums,
    rng: np.random.Generator,
    samples: int,
    fee_per_card: float,
    allowed: np.ndarray | None = None,
) -> int:
    """:func:`best_discard` valued by :class:`~envs.rules.card_hands.HandSums`: the same
    uniforms from ``rng``, the same hands (the cards kept and the first k replacements of
    each sample's order), the same percentiles in the same ``(samples, 32)`` array, so the
    same choice. A hand's total is its kept cards' word sum plus the running sum of the
    replacements' words: no ``(samples * 32, 5)`` array of hands, no sort of each."""
    order = rng.random((samples, len(unseen))).argsort(axis=1)[:, :HAND_SIZE]
    totals = sums.words.take(unseen).take(order).cumsum(axis=1).take(_LAST_NEW, axis=1)
    totals[:, 0] = 0
    totals += _KEPT @ sums.words.take(hand)
    value = sums.percentile.take(sums.index(totals))
    if allowed is not None and not allowed.all():
        score = np.where(allowed, value.mean(0) - fee_per_card * _N_DISCARDED, -np.inf)
    elif fee_per_card:
        score = value.mean(0) - fee_per_card * _N_DISCARDED
    else:  # no fee, no exchange barred: the sums order the exchanges as the means do
        score = np.add.reduce(value, axis=0)
    # ties keep the exchange of fewer cards (lower set first)
    return int(score.argmax())


@cache
def final_strengths(rules: CardPokerRules, deals: int = 1500, samples: int = 24) -> tuple:
    """Sorted final hand percentiles of a player who exchanged k cards, k = 0..5.

    Simulated once per rule set with the heuristic draw; a count seen too
    rarely falls back to every final hand.
    """
    rng = np.random.default_rng(20240)
    ev = rules.evaluator
    size = ev.deck.size
    fee = rules.draw_fee / max(rules.stack, 1)
    by_k: list[list[float]] = [[] for _ in range(HAND_SIZE + 1)]
    for _ in range(deals):
        cards = rng.permutation(size)
        hand = np.sort(cards[:HAND_SIZE])
        unseen = np.setdiff1d(np.arange(size), hand)
        a = best_discard(hand, unseen, ev.percentile, ev.strengths, rng, samples, fee)
        k = int(_N_DISCARDED[a])
        kept = hand[_DISCARD_BITS[a] == 0]
        final = np.concatenate([kept, cards[HAND_SIZE : HAND_SIZE + k]])
        by_k[k].append(float(ev.percentile[ev.strength(final.tolist())]))
    everything = np.sort(np.concatenate([np.array(v) for v in by_k]))
    return tuple(np.sort(np.array(v)) if len(v) >= 30 else everything for v in by_k)


class CardPokerCareful(Agent):
    """Bids by hand strength and draw odds; see the module docstring."""

    name = "careful"
    bluff_rate = 0.0

    def __init__(
        self,
        game: str = "card_poker",
        samples: int = 64,
        bid_threshold: float = 0.62,
        bid_penalty: float = 0.5,
        **rules,
    ) -> None:
        super().__init__()
        self.rules = games.rules_for(game, CardPokerRules, type(self).__name__, **rules)
        self.ev = self.rules.evaluator
        self.n_cards = self.ev.deck.size
        self.samples = samples
        self.bid_threshold = bid_threshold
        self.bid_penalty = bid_penalty
        self.final = final_strengths(self.rules)
        self._card_keys = None  # made when first needed (only a bluffer reads them)

    def _keys(self) -> np.ndarray:
        # from a child of the generator: the draws of the Monte Carlo stream stay as they were
        return self.rng.spawn(1)[0].random(self.n_cards)

    def seed(self, seed: int | None = None) -> None:
        super().seed(seed)
        # spawning a child does not move the generator's stream, so the keys are the same
        # whenever they are made after the seed
        self._card_keys = None

    def bluffs(self, cards: np.ndarray) -> bool:
        """Whether the deal whose hand holds ``cards`` (deck indices) is a bluff: the sum of
        the cards' keys modulo 1 is uniform in [0, 1), and a bluff is a sum below the rate.
        The bluff stands pat, so the hand (and the answer) stays the same through the deal."""
        if self.bluff_rate <= 0:
            return False
        if self._card_keys is None:
            self._card_keys = self._keys()
        return float(self._card_keys[cards].sum() % 1.0) < self.bluff_rate

    # -- the draw ------------------------------------------------------------
    def _draw(self, hand: np.ndarray, mask: np.ndarray) -> int:
        out = np.ones(self.n_cards, dtype=bool)
        out[hand] = False
        unseen = np.flatnonzero(out)  # np.setdiff1d(np.arange(n), hand), without its sort
        fee = self.rules.draw_fee / max(self.rules.stack, 1)
        return best_exchange(
            hand, unseen, self.ev.sums, self.rng, self.samples, fee, mask[:N_DISCARDS]
        )

    # -- the betting -----------------------------------------------------------
    def win_chance(self, f: dict) -> float:
        """Chance to hold the best hand among the players still in."""
        own = self.ev.percentile[self.ev.strength(np.flatnonzero(f["cards"]).tolist())]
        chance = 1.0
        for k in range(1, len(f["in"])):
            if not f["in"][k]:
                continue
            finals = self.final[max(int(f["drawn"][k]), 0)]
            lo = np.searchsorted(finals, own, side="left")
            hi = np.searchsorted(finals, own, side="right")
            beat = (lo + hi) / 2 / len(finals)
            # every bid an opponent made suggests a stronger hand
            chance *= beat ** (1 + self.bid_penalty * f["bids_by"][k])
        return chance

    def _bet(self, f: dict, legal: list[int]) -> int:
        bluffing = f["drawn"][0] == 0 and self.bluffs(np.flatnonzero(f["cards"]))
        return self._bet_on(self.win_chance(f), legal, bluffing, f["pot"], f["reveal_cost"])

    def _bet_on(self, chance: float, legal: list[int], bluffing: bool, pot, cost) -> int:
        """The bet at ``chance`` to win: ``legal`` the legal actions ascending, ``pot`` and
        ``cost`` (the reveal's) as the observation holds them."""
        bids = [a for a in legal if a >= FIRST_BID]
        if bluffing and bids:
            # a bluff raises a little over the level each turn
            return bids[min(2, len(bids) - 1)]
        if bids and chance >= self.bid_threshold:
            share = (chance - self.bid_threshold) / (1 - self.bid_threshold)
            return bids[int(round(share * (len(bids) - 1)))]
        if REVEAL in legal and chance * (pot + cost) > cost:
            return REVEAL
        return PASS

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_actions(action_mask).tolist()
        f = decode_observation(observation, self.n_cards)
        if f["phase"][0]:  # the draw: each player draws once per deal
            if self.bluffs(np.flatnonzero(f["cards"])):
                return 0  # stand pat: look like a made hand
            return self._draw(np.flatnonzero(f["cards"]), np.asarray(action_mask, dtype=bool))
        return self._bet(f, legal)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act` on every row at once (the same choices, the same draws from
        ``rng``), vectorised in :mod:`agents.heuristic.card_poker_batch`."""
        from agents.heuristic.card_poker_batch import careful_act_batch

        return careful_act_batch(self, observations, action_masks)

    def table_policy(self, core):
        """``act(tables, seats)`` read from a ``BatchedCardPoker``'s state, choosing what
        :meth:`act_batch` would on the seats' observations (None for other rules)."""
        from agents.heuristic.card_poker_batch import careful_table_policy

        return careful_table_policy(self, core)

    def game_policy(self, rules: CardPokerRules):
        """``policy(game) -> int``: :meth:`act` for the player to act in an
        ``envs.rules.card_poker.CardPokerGame`` of ``rules``, read from the game's state
        instead of an encoded observation and mask (the shortcut ``CardPoker-v0`` takes):
        the same draws from :attr:`rng`, the same choices. None for other rules, or for a
        subclass whose :meth:`act` decides otherwise."""
        if rules != self.rules or type(self).act is not CardPokerCareful.act:
            return None
        return _CarefulGamePolicy(self)


class _CarefulGamePolicy:
    """:meth:`CardPokerCareful.game_policy` (a class, so that an env holding it pickles and
    copies). The betting reads :meth:`CardPokerCareful.win_chance`'s numbers from tables:
    ``beats[d][s]``, the share of the final hands of players who exchanged ``d`` cards
    that a hand of strength ``s`` beats (``beat_table``: the same searches and divisions),
    and ``1 + bid_penalty * bids`` in float32 as the observation's float32 bids give it."""

    def __init__(self, agent: CardPokerCareful) -> None:
        from agents.heuristic.card_poker_batch import beat_table

        self.agent = agent
        self.beats = beat_table(agent.ev.percentile, agent.final).tolist()
        self.powers: list[float] = []
        self.fee = agent.rules.draw_fee / max(agent.rules.stack, 1)
        self.deck = range(agent.n_cards)

    def power(self, bids: int) -> float:
        powers = self.powers
        while len(powers) <= bids:
            powers.append(float(1 + self.agent.bid_penalty * np.float32(len(powers))))
        return powers[bids]

    def __call__(self, game) -> int:
        agent = self.agent
        seat = game.current_player
        hand = game.hands[seat]
        if game.phase is Phase.DRAW:
            if agent.bluff_rate > 0 and agent.bluffs(np.array(hand)):
                return 0  # stand pat: look like a made hand
            unseen = np.array([c for c in self.deck if c not in hand])
            rules = agent.rules
            allowed = DISCARD_MASKS[max_exchange(game.stacks[seat], rules.draw_fee)]
            return best_exchange(
                np.array(hand), unseen, agent.ev.sums, agent.rng, agent.samples, self.fee, allowed
            )
        pot, cost = game.pot, game.reveal_cost
        if pot + cost >= 1 << 24:  # the observation's float32 would round them: as ever
            from envs.obs.card_poker import observe

            return agent.act(observe(game, seat), game.action_mask())
        strength = agent.ev.strength(hand)
        n = game.n_players
        chance = 1.0
        for k in range(1, n):
            other = (seat + k) % n
            if game.in_play[other]:
                beat = self.beats[max(game.drawn[other], 0)][strength]
                chance *= beat ** self.power(game.bids_made[other])
        bluffing = game.drawn[seat] == 0 and agent.bluff_rate > 0 and agent.bluffs(np.array(hand))
        return agent._bet_on(chance, game.legal_actions(), bluffing, pot, cost)


class CardPokerBluffer(CardPokerCareful):
    """The careful player that bluffs on ``bluff_rate`` of the deals (default 0.2)."""

    name = "bluffer"

    def __init__(self, game: str = "card_poker", bluff_rate: float = 0.2, **kwargs) -> None:
        super().__init__(game, **kwargs)
        if not 0 <= bluff_rate <= 1:
            raise ValueError(f"bluff_rate must be in [0, 1], got {bluff_rate!r}")
        self.bluff_rate = bluff_rate


__all__ = [
    "CardPokerBluffer",
    "CardPokerCareful",
    "best_discard",
    "best_exchange",
    "final_strengths",
]
