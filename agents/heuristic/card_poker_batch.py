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
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.heuristic.card_poker import final_strengths
from envs import games
from envs.batched.card_hands import BatchedHandEvaluator
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

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None, :], np.asarray(action_mask)[None, :])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations)
        masks = np.asarray(action_masks, dtype=bool)
        m = len(obs)
        if masks.ndim != 2 or len(masks) != m or not masks.any(axis=1).all():
            raise ValueError("every row needs a mask with at least one legal action")
        n_players = (obs.shape[1] - layout(self.n_cards, 0).size) // 5
        f = layout(self.n_cards, n_players).decode(obs)
        # own cards, sorted by deck index (the order the discard bits refer to)
        hands = np.sort(np.argsort(-f["cards"], axis=1, kind="stable")[:, :HAND_SIZE], axis=1)
        return self._decide(hands, f["phase"][:, Phase.DRAW] == 1, f["hand_rank"], f, masks)

    def table_policy(self, core):
        """``act(tables, seats)``: :meth:`act_batch` for ``seats`` (the seat to move) at the
        ``tables`` of a ``BatchedCardPoker`` of the same rules, read from the tables' state
        instead of an encoded observation: the seat's sorted cards, its hand's place, and
        the betting fields from your seat on as the observation orders them. None when the
        table plays other rules."""
        if core.rules != self.rules:
            return None
        p, min_bid = core.n_players, core.rules.min_bid

        def act(tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
            tt, around = tables[:, None], (seats[:, None] + np.arange(p)) % p
            f = {
                "in": core.in_play[tt, around],
                "drawn": core.drawn[tt, around],
                "bids_by": core.bids_made[tt, around],
                "pot": core.pot[tables],
                "reveal_cost": reveal_cost(core.level[tables], min_bid),
            }
            place = core.hands_eval.place[core.strength[tables, seats]]
            draw = core.phase[tables] == Phase.DRAW
            masks = core.action_masks(tables)
            return self._decide(core.hands[tables, seats], draw, place, f, masks)

        return act

    def _decide(self, hands, draw, place, f, masks) -> np.ndarray:
        """The draw of the rows in the draw phase, the bet of the others: ``hands`` sorted
        deck indices, ``place`` the hand's place, ``f`` the betting fields (``in``,
        ``drawn``, ``bids_by`` from your seat on, ``pot``, ``reveal_cost``)."""
        out = np.empty(len(hands), dtype=np.int64)
        if draw.any():
            out[draw] = self._draw(hands[draw], place[draw], masks[draw])
        bet = ~draw
        if bet.any():
            sub = {k: f[k][bet] for k in ("in", "drawn", "bids_by", "pot", "reveal_cost")}
            out[bet] = self._bet(sub, hands[bet], masks[bet])
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
        own = self.batch.percentile[self.batch.sorted_strengths(hands.astype(np.int8))]
        chance = np.ones(len(hands))
        for k in range(1, f["in"].shape[1]):
            drawn = np.maximum(f["drawn"][:, k].astype(np.int64), 0)
            beat = np.empty(len(hands))
            for d in np.unique(drawn):
                rows = drawn == d
                finals = self._finals[d]
                lo = np.searchsorted(finals, own[rows], side="left")
                hi = np.searchsorted(finals, own[rows], side="right")
                beat[rows] = (lo + hi) / 2 / len(finals)
            factor = beat ** (1 + self.bid_penalty * f["bids_by"][:, k].astype(np.float64))
            chance = np.where(f["in"][:, k] != 0, chance * factor, chance)
        return chance

    def _bet(self, f: dict, hands: np.ndarray, masks: np.ndarray) -> np.ndarray:
        chance = self.win_chance(f, hands)
        bids = masks[:, FIRST_BID:]
        n_bids = bids.sum(axis=1)
        first_bid = FIRST_BID + bids.argmax(axis=1)
        cost = f["reveal_cost"].astype(np.float64)
        share = (chance - self.bid_threshold) / (1 - self.bid_threshold)
        pick = first_bid + np.round(share * (n_bids - 1)).astype(np.int64)
        reveal = masks[:, REVEAL] & (chance * (f["pot"].astype(np.float64) + cost) > cost)
        return np.where(
            (n_bids > 0) & (chance >= self.bid_threshold), pick, np.where(reveal, REVEAL, PASS)
        )


__all__ = ["CardPokerQuick", "N_DISCARDS"]
