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

import pytest

from envs.batched.differential import CARD_GROUPS, run_card_poker


@pytest.mark.heavy
@pytest.mark.parametrize("group", list(CARD_GROUPS))
def test_batched_equals_scalar(group):
    total = 0
    for i, (rules, players, episode, max_deals, n_deals) in enumerate(CARD_GROUPS[group]):
        total += run_card_poker(rules, players, episode, max_deals, n_deals, seed=100 * i + players)
    assert total >= 10_000
