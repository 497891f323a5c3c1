"""Mini card poker, the research variant (docs/rules.md section 3, its last part): card
poker's betting and draw on a tiny deck."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from envs.rules import card_poker_mini as mini
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL

RULES = mini.MiniCardPokerRules()  # Q K A of two suits: card = rank * 2 + suit
QS, QH, KS, KH, AS, AH = range(6)


def at_bet(hands, rules=RULES):
    """The state after a deal of ``hands`` where nobody exchanges."""
    state = mini.state_of(rules, hands)
    while state.phase == mini.DRAW:
        state = mini.step(state, 0)
    return state


def test_hand_order():
    key = lambda *cards: mini.hand_key(cards, 2)  # noqa: E731
    assert key(QS, QH) > key(KS, AS)  # any pair beats no pair
    assert key(AS, AH) > key(KS, KH) > key(QS, QH)
    assert key(KS, AS) > key(QS, AS) > key(QS, KS)  # high card, then the low one
    assert key(KS, AS) == key(KH, AH)  # suits never count
    assert mini.MiniCardPokerRules().card_name(AH) == "AH"


def test_every_option_is_documented_with_its_default():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    for f in dataclasses.fields(RULES):
        assert f"| `{f.name}` | {getattr(RULES, f.name)} |" in doc


def test_bad_options():
    with pytest.raises(ValueError, match="max_draw"):
        mini.MiniCardPokerRules(hand_size=1, max_draw=2)
    with pytest.raises(ValueError, match="max_bid"):
        mini.MiniCardPokerRules(min_bid=3, max_bid=2)
    with pytest.raises(ValueError, match="cards"):
        mini.deal(RULES, 3)  # 3 players need 9 cards


def test_the_betting_is_card_poker_s():
    state = at_bet(((QS, KS), (AS, AH)))
    assert mini.legal_actions(state) == [PASS, REVEAL, FIRST_BID, FIRST_BID + 1]
    state = mini.step(state, RULES.bid_action(2))  # seat 0 bids 2
    assert state.turn == 1 and state.pot == 4
    assert mini.legal_actions(state) == [PASS, REVEAL, FIRST_BID + 1]  # bids from the level
    after_pass = mini.step(state, PASS)
    assert after_pass.done and mini.returns(after_pass) == (1, -1)  # won unseen
    state = mini.step(state, RULES.bid_action(2))
    assert mini.legal_actions(state) == [PASS, REVEAL]  # max_bids = 2
    state = mini.step(state, REVEAL)  # seat 0 pays the previous bid: in 1 + 2 + 2, seat 1 1 + 2
    assert state.done and state.pot == 8 and mini.returns(state) == (-5, 5)
    # revealing first costs min_bid
    state = mini.step(at_bet(((AS, AH), (QS, KS))), REVEAL)
    assert state.pot == 3 and mini.returns(state) == (1, -1)


def test_equal_hands_split_odd_chips_to_the_earliest():
    state = at_bet(((QS, AS), (QH, AH)))
    for action in (RULES.bid_action(1), RULES.bid_action(2), REVEAL):
        state = mini.step(state, action)
    assert state.paid == (4, 3) and mini.returns(state) == (0, 0)  # 3 each, the odd 1 to seat 0


def test_the_draw():
    state = mini.deal(RULES, 2, [QS, KS, QH, KH, AS, AH])
    assert mini.legal_actions(state) == [0, 1, 2]  # at most one card
    state = mini.step(state, 2)  # seat 0 exchanges its K (bit 1): the stock's top is AS
    assert state.hands[0] == (QS, AS) and state.drawn == (1, -1) and state.stock == (AH,)
    state = mini.step(state, 1, new_cards=[AH])
    assert state.hands[1] == (KH, AH) and state.phase == mini.BET
    with pytest.raises(ValueError, match="illegal"):
        mini.step(state, 0)


def test_deals_are_every_deal_alike():
    listed = list(mini.deals(RULES))
    assert len(listed) == 15 * 6
    assert abs(sum(p for _, p in listed) - 1) < 1e-12


def test_random_play_is_zero_sum():
    rng = np.random.default_rng(0)
    pick = lambda s: int(rng.choice(mini.legal_actions(s)))  # noqa: E731
    for _ in range(200):
        assert sum(mini.play(RULES, [pick, pick], rng)) == 0
