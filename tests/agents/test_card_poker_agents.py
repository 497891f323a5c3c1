"""Card poker agents: registry, legal play, draw choices, betting, bluffing, strength."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.heuristic.card_poker import CardPokerBluffer, CardPokerCareful
from agents.random_agent import RandomAgent
from envs.card_poker import decode_observation, observe
from envs.rules.card_poker import (
    DISCARD_MASKS,
    FIRST_BID,
    PASS,
    REVEAL,
    CardPokerGame,
    CardPokerRules,
)


@pytest.mark.parametrize(
    ("spec", "cls"),
    [
        ("heuristic", CardPokerCareful),
        ("careful", CardPokerCareful),
        ("bluffer", CardPokerBluffer),
        ("random", RandomAgent),
    ],
)
def test_registry(spec, cls):
    assert type(make_agent(spec, "card_poker")) is cls


@pytest.mark.parametrize(("spec", "game"), [("careful", "dice_poker"), ("bluffer", "yahtzee")])
def test_card_agents_play_only_card_poker(spec, game):
    with pytest.raises(ValueError, match="card_poker"):
        make_agent(spec, game)


def test_bad_bluff_rate():
    with pytest.raises(ValueError, match="bluff_rate"):
        CardPokerBluffer(bluff_rate=1.5)


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"deck": 54, "draw_fee": 1, "stack": 8},
        {"categories": "short", "joker_card": None, "min_bid": 2, "max_bid": 3, "max_bids": 2},
    ],
    ids=str,
)
def test_agents_always_act_legally(rules):
    # the env raises ValueError on any illegal action of an opponent
    env = gym.make(
        "CardPoker-v0", n_players=4, opponents=["careful", "bluffer", "random"], **rules
    ).unwrapped
    me = make_agent("careful", "card_poker", **rules)
    for seed in range(60):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = me.act(obs, info["action_mask"])
            assert info["action_mask"][action]
            obs, _, done, _, info = env.step(action)


def deal_to_seat0(hand: str, n_players: int = 3, **rules) -> tuple[CardPokerGame, np.ndarray]:
    r = CardPokerRules(**rules)
    first = r.deck_cards.indices(hand)
    order = first + [c for c in range(r.deck_cards.size) if c not in first]
    game = CardPokerGame(n_players, np.random.default_rng(0), r, deck_order=order)
    return game, observe(game, 0)


@pytest.mark.parametrize(
    ("hand", "must_keep", "max_draw"),
    [
        ("9C TC JC QC KC", "9C TC JC QC KC", 0),  # straight suit: stand pat
        # a full house ranks below colour and straight here, and the aces' triple
        # with two new cards is worth about as much on average: keep the triple
        ("AS AH AD KC KH", "AS AH AD", 2),
        ("AS AH AD AC 7H", "AS AH AD AC", 1),  # never break four of a kind
        ("AS AH 9D 8C 7H", "AS AH", 3),  # keep the pair
        ("KS KH KD 9C 7H", "KS KH KD", 2),  # keep the triple
        ("6S AH 9D 8C 7H", "6S", 4),  # always keep the joker
    ],
)
def test_careful_draw_keeps_what_it_should(hand, must_keep, max_draw):
    game, obs = deal_to_seat0(hand)
    agent = CardPokerCareful()
    agent.seed(1)
    action = agent.act(obs, game.action_mask())
    assert 0 <= action < 32
    cards = list(game.hands[0])
    kept = {cards[i] for i in range(5) if not action >> i & 1}
    assert set(game.deck.indices(must_keep)) <= kept
    assert action.bit_count() <= max_draw


def test_draw_fee_makes_the_careful_player_draw_less():
    draws = {}
    for fee in (0, 5):
        total = 0
        agent = CardPokerCareful(draw_fee=fee)
        agent.seed(2)
        for seed in range(40):
            game = CardPokerGame(3, np.random.default_rng(seed), CardPokerRules(draw_fee=fee))
            total += agent.act(observe(game, 0), game.action_mask()).bit_count()
        draws[fee] = total
    assert draws[5] < draws[0]


def test_win_chance_grows_with_the_hand():
    agent = CardPokerCareful()
    chances = []
    for hand in ("7S 8H TD QC AH", "AS AH 9D 8C 7H", "KS KH KD 9C 7H", "AS AH AD AC 7H"):
        game, _ = deal_to_seat0(hand, joker_card=None)
        while game.current_player is not None and game.phase == 0:
            game.step(0)
        chances.append(agent.win_chance(decode_observation(observe(game, 0))))
    assert chances == sorted(chances) and chances[0] < 0.3 < chances[-1]


def test_careful_betting_by_strength():
    agent = CardPokerCareful(joker_card=None)
    actions = {}
    for hand in ("7S 8H TD QC AH", "AS AH AD AC 7H"):
        game, _ = deal_to_seat0(hand, joker_card=None)
        for _ in range(3):
            game.step(0)
        actions[hand] = agent.act(observe(game, 0), game.action_mask())
    assert actions["AS AH AD AC 7H"] >= FIRST_BID  # four aces bid
    assert actions["7S 8H TD QC AH"] in (PASS, REVEAL)


def test_always_bluffing_stands_pat_and_bids():
    agent = CardPokerBluffer(bluff_rate=1.0, joker_card=None)
    agent.seed(0)
    game, obs = deal_to_seat0("7S 8H TD QC AH", joker_card=None)
    assert agent.act(obs, game.action_mask()) == 0
    for _ in range(3):
        game.step(0)
    assert agent.act(observe(game, 0), game.action_mask()) >= FIRST_BID


def test_never_bluffing_is_the_careful_player():
    a, b = CardPokerBluffer(bluff_rate=0.0), CardPokerCareful()
    a.seed(3)
    b.seed(3)
    for seed in range(30):
        game = CardPokerGame(3, np.random.default_rng(seed))
        while not game.done:
            seat = game.current_player
            obs, mask = observe(game, seat), game.action_mask()
            action = a.act(obs, mask)
            assert action == b.act(obs, mask)
            game.step(action)


def test_bluff_rate_is_kept():
    agent = CardPokerBluffer(bluff_rate=0.3)
    agent.seed(4)
    bluffs = 0
    for seed in range(600):  # a bluff is a deal that stands pat on a hand it would change
        game = CardPokerGame(3, np.random.default_rng(seed))
        bluffs += agent.bluffs(np.flatnonzero(decode_observation(observe(game, 0))["cards"]))
    assert abs(bluffs / 600 - 0.3) < 0.075  # 4 standard errors


def test_bluff_is_kept_per_deal_when_one_bluffer_plays_many_tables():
    # one agent plays tables in turn, as a batch does: the bet of each deal follows its own
    # draw, not the draw of the table played last
    agent = CardPokerBluffer(bluff_rate=0.5, joker_card=None)
    agent.seed(1)
    games = {}
    for seed in range(200):
        game = CardPokerGame(3, np.random.default_rng(seed), CardPokerRules(joker_card=None))
        hand = np.flatnonzero(decode_observation(observe(game, 0))["cards"])
        games.setdefault(agent.bluffs(hand), game)
        if len(games) == 2:
            break
    draws = {b: agent.act(observe(g, 0), g.action_mask()) for b, g in games.items()}
    assert draws[True] == 0  # the bluff stands pat
    for b, g in games.items():
        g.step(draws[b])
        g.step(0)
        g.step(0)
    bets = {b: agent.act(observe(g, 0), g.action_mask()) for b, g in games.items()}
    assert bets[True] >= FIRST_BID  # the bluff bids, whatever the other table drew
    careful = CardPokerCareful(joker_card=None)
    assert bets[False] == careful.act(observe(games[False], 0), games[False].action_mask())


def head_to_head(a: str, b: str, deals: int) -> np.ndarray:
    """Net chips of ``a`` per deal, seats alternating."""
    agents = [make_agent(a, "card_poker"), make_agent(b, "card_poker")]
    agents[0].seed(0)
    agents[1].seed(1)
    rng = np.random.default_rng(0)
    out = np.zeros(deals)
    for d in range(deals):
        seat_a = d % 2
        game = CardPokerGame(2, rng)
        while not game.done:
            seat = game.current_player
            who = agents[0] if seat == seat_a else agents[1]
            game.step(who.act(observe(game, seat), game.action_mask()))
        out[d] = game.payoffs()[seat_a]
    return out


def test_careful_beats_random():
    chips = head_to_head("careful", "random", 400)
    # measured: about +3.5 chips per deal (benchmarks/card_agents.py)
    assert chips.mean() - 1.96 * chips.std(ddof=1) / np.sqrt(len(chips)) > 0


def test_same_seed_same_agent_play():
    assert np.array_equal(
        head_to_head("bluffer", "careful", 40), head_to_head("bluffer", "careful", 40)
    )


@pytest.mark.parametrize(
    "rules", [{}, {"deck": 54, "draw_fee": 1}, {"categories": "short"}], ids=str
)
def test_best_exchange_is_best_discard(rules):
    """The careful draw valued by word sums (best_exchange) picks what best_discard picks
    from the same uniforms, and leaves the generator where best_discard leaves it."""
    from agents.heuristic.card_poker import best_discard, best_exchange

    ev = CardPokerRules(**rules).evaluator
    rng = np.random.default_rng(4)
    for trial in range(150):
        hand = np.sort(rng.permutation(ev.deck.size)[:5])
        unseen = np.setdiff1d(np.arange(ev.deck.size), hand)
        fee = (0.0, 0.02, 0.5)[trial % 3]
        allowed = None if trial % 2 else DISCARD_MASKS[trial % 6]
        seed = int(rng.integers(2**32))
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        want = best_discard(hand, unseen, ev.percentile, ev.strengths, a, 64, fee, allowed)
        assert best_exchange(hand, unseen, ev.sums, b, 64, fee, allowed) == want
        assert a.random() == b.random()


@pytest.mark.parametrize(
    ("spec", "rules", "n_players"),
    [
        ("careful", {}, 3),
        ("bluffer", {}, 4),
        ("careful", {"deck": 54, "draw_fee": 1, "stack": 6}, 3),
        ("bluffer", {"categories": "short", "joker_card": None, "max_bids": 2}, 2),
    ],
    ids=str,
)
def test_game_policy_is_act_on_the_observation(spec, rules, n_players):
    """careful's and bluffer's game_policy (what CardPoker-v0 asks its opponents) choose what
    act chooses on the same seat's observation and mask, drawing the same uniforms, in
    every phase of many deals."""
    agent = make_agent(spec, "card_poker", **rules)
    twin = make_agent(spec, "card_poker", **rules)
    policy = agent.game_policy(CardPokerRules(**rules))
    rng = np.random.default_rng(9)
    decisions = 0
    for deal in range(60):
        agent.seed(deal)
        twin.seed(deal)
        game = CardPokerGame(n_players, rng, CardPokerRules(**rules), first=deal % n_players)
        while not game.done:
            seat = game.current_player
            want = twin.act(observe(game, seat), game.action_mask())
            assert policy(game) == want, (deal, game.phase, seat)
            decisions += 1
            # a random legal action moves the deal on, so every kind of state comes up
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))] if deal % 2 else want)
    assert decisions > 150
    assert agent.rng.random() == twin.rng.random()


def test_game_policy_is_none_for_other_rules_or_another_act():
    agent = CardPokerCareful()
    assert agent.game_policy(CardPokerRules(deck=54)) is None

    class Other(CardPokerCareful):
        def act(self, observation, action_mask):
            return 0

    assert Other().game_policy(CardPokerRules()) is None
