"""The batched card poker engine equals the scalar match, step by step, on the same decks.

Both engines are fed the same chance (``CardPokerMatch(deck_order=)`` and
``step(action, chance)``; ``BatchedCardPoker.reset(which, chance)`` and
``step(actions, chance)``) and the same actions; the seat to act, its observation (the
env's encoding), the action mask, every seat's chips, the end of the match and, at the
end, every seat's observation and net chips must agree bit for bit at every step.
Actions are drawn from the legal ones with weights that make every kind common: big
exchanges (so stocks run short and reshuffle), passes, reveals and bids.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.card_poker import BatchedCardPoker
from envs.obs.card_poker import observe
from envs.rules.card_poker import (
    FIRST_BID,
    N_DISCARDS,
    PASS,
    REVEAL,
    CardPokerMatch,
    CardPokerRules,
)


class NoShuffle:
    """The scalar match must take every shuffle from chance."""

    def permutation(self, x):
        raise AssertionError("the scalar match shuffled by itself")


def weighted_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A random legal action per row: exchanges evenly, then passes and reveals often
    enough that deals end after a few bids."""
    w = np.ones(mask.shape[1])
    w[N_DISCARDS - 1] = 6.0  # exchange all five: stocks run short
    w[PASS], w[REVEAL] = 3.0, 3.0
    w[FIRST_BID:] = 0.8
    scores = np.where(mask, rng.random(mask.shape) ** (1 / w), -1.0)
    return scores.argmax(axis=1)


def run(
    rules_kw: dict,
    n_players: int,
    episode: str,
    max_deals: int,
    n_deals: int,
    seed: int,
    tables: int = 400,
) -> int:
    """Play until ``n_deals`` deals are done at ``tables`` tables side by side (finished
    matches restart in both engines); returns the number of deals compared."""
    rules = CardPokerRules(**rules_kw)
    rng = np.random.default_rng(seed)
    batch = BatchedCardPoker(
        tables, rules, seed=0, n_players=n_players, episode=episode, max_deals=max_deals
    )
    d = batch.n_cards

    def decks():
        return np.argsort(rng.random((tables, d)), axis=1)

    def new_match(deck):
        return CardPokerMatch(n_players, NoShuffle(), rules, episode, max_deals, deck_order=deck)

    first = decks()
    batch.reset(chance=first)
    matches = [new_match(first[g]) for g in range(tables)]
    deals = 0
    while deals < n_deals:
        seat = batch.to_act
        obs, mask = batch.observe(), batch.action_masks()
        want_obs = np.stack(
            [
                observe(m.game, m.current_player, m.deals_left, m.net[m.current_player])
                for m in matches
            ]
        )
        want_mask = np.stack([m.game.action_mask() for m in matches])
        assert seat.tolist() == [m.current_player for m in matches]
        np.testing.assert_array_equal(obs.view(np.uint32), want_obs.view(np.uint32))
        np.testing.assert_array_equal(mask, want_mask)
        actions = weighted_actions(rng, mask)
        chance = decks()
        paid = batch.step(actions, chance)
        for g, m in enumerate(matches):
            got = m.step(int(actions[g]), chance=chance[g])
            want = [got.get(s, 0) for s in range(n_players)]
            assert paid[g].tolist() == want, f"table {g}"
            deals += bool(got)
        done = batch.done
        assert done.tolist() == [m.done for m in matches]
        if done.any():
            ended = np.flatnonzero(done)
            for g in ended:
                assert batch.net[g].tolist() == matches[g].net
                assert batch.stacks[g].tolist() == matches[g].stacks()
            for s in range(n_players):  # the last observation of every seat
                got = batch.observe(s, ended)
                want = np.stack(
                    [
                        observe(matches[g].game, s, matches[g].deals_left, matches[g].net[s])
                        for g in ended
                    ]
                )
                np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
            fresh = decks()
            batch.reset(done, fresh)
            for g in np.flatnonzero(done):
                matches[g] = new_match(fresh[g])
    return deals


# variant groups: (rules, players, episode, max_deals, deals); >= 10,000 deals per group
GROUPS = {
    "36 cards": [
        ({}, 2, "deal", 1, 2_000),
        ({}, 3, "deal", 1, 2_000),
        ({}, 4, "deal", 1, 2_000),
        ({}, 5, "deal", 1, 2_000),
        ({}, 6, "deal", 1, 2_000),
    ],
    "36-card options": [
        ({"joker_card": None, "draw_fee": 1, "stack": 4}, 6, "deal", 1, 2_500),
        ({"joker_card": "AH", "categories": "short", "ante": 2}, 3, "deal", 1, 2_500),
        ({"swap_four_and_straight_flush": True, "ace_low_straight": True}, 4, "deal", 1, 2_500),
        ({"min_bid": 2, "max_bid": 5, "max_bids": 3, "stack": 9}, 5, "deal", 1, 2_500),
    ],
    "54 cards": [
        ({"deck": 54}, 6, "deal", 1, 3_000),
        ({"deck": 54, "joker_card": None, "categories": "short"}, 4, "deal", 1, 2_500),
        ({"deck": 54, "ace_low_straight": True, "draw_fee": 2}, 3, "deal", 1, 2_500),
        ({"deck": 54, "swap_four_and_straight_flush": True, "max_bids": 0}, 2, "deal", 1, 2_000),
    ],
    "sessions": [
        ({"stack": 6}, 3, "session", 100, 3_000),
        ({"stack": 12, "draw_fee": 1}, 6, "session", 5, 2_500),
        ({"deck": 54, "stack": 5, "ante": 2}, 4, "session", 8, 2_500),
        ({"stack": 3, "min_bid": 2, "max_bid": 3}, 2, "session", 100, 2_000),
    ],
}


@pytest.mark.heavy
@pytest.mark.parametrize("group", list(GROUPS))
def test_batched_equals_scalar(group):
    total = 0
    for i, (rules, players, episode, max_deals, n_deals) in enumerate(GROUPS[group]):
        total += run(rules, players, episode, max_deals, n_deals, seed=100 * i + players)
    assert total >= 10_000
