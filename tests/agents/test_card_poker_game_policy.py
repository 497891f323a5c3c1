"""The card poker opponents' game policies (what ``CardPoker-v0`` asks them) against their
``act`` on the same seat's observation and mask: quick and random, every seat, over
random sessions of several rule sets."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.heuristic.card_poker_batch import CardPokerQuick
from envs.obs.card_poker import observe
from envs.rules.card_poker import CardPokerMatch, CardPokerRules, Phase

RULES = [
    {},
    {"deck": 54, "draw_fee": 1, "stack": 6},
    {"categories": "short", "joker_card": None, "max_bids": 2, "min_bid": 2, "max_bid": 5},
    {"deck": 54, "joker_card": None, "swap_four_and_straight_flush": True, "stack": 12},
    {"ace_low_straight": True, "draw_fee": 2, "stack": 9, "ante": 2},
]


def _sessions(spec: str, rules: dict, n_players: int, sessions: int, twin_seed=None):
    """Play ``sessions`` sessions, every seat asking ``policy(game)`` and the twin's
    ``act`` on the observation; a random legal action moves every other deal on, so every
    kind of state comes up. The decisions compared, by phase."""
    agent = make_agent(spec, "card_poker", **rules)
    twin = make_agent(spec, "card_poker", **rules)
    policy = agent.game_policy(CardPokerRules(**rules))
    assert policy is not None
    rng = np.random.default_rng(len(str(rules)) + n_players)
    decisions = {Phase.DRAW: 0, Phase.BET: 0}
    for session in range(sessions):
        agent.seed(session)
        twin.seed(session)
        match = CardPokerMatch(
            n_players, rng, CardPokerRules(**rules), "session", 8, session % n_players
        )
        while not match.done:
            game = match.game
            seat = game.current_player
            obs = observe(game, seat, match.deals_left, match.net[seat])
            want = twin.act(obs, game.action_mask())
            assert policy(game) == want, (session, game.phase, seat)
            decisions[game.phase] += 1
            legal = game.legal_actions()
            match.step(legal[int(rng.integers(len(legal)))] if match.deals_played % 2 else want)
    return agent, twin, decisions


@pytest.mark.parametrize("rules", RULES, ids=str)
@pytest.mark.parametrize("n_players", [2, 3, 6])
def test_quick_game_policy_is_act(rules, n_players):
    _, _, decisions = _sessions("quick", rules, n_players, 20)
    assert min(decisions.values()) > 30


def test_quick_game_policy_is_none_for_other_rules_or_another_act():
    assert CardPokerQuick().game_policy(CardPokerRules(deck=54)) is None

    class Other(CardPokerQuick):
        def act_batch(self, observations, action_masks):
            return np.zeros(len(observations), dtype=np.int64)

    assert Other().game_policy(CardPokerRules()) is None


@pytest.mark.parametrize("rules", RULES[:3], ids=str)
@pytest.mark.parametrize("n_players", [2, 5])
def test_random_game_policy_is_act(rules, n_players):
    """The same picks from the same numbers: the two Generators end in the same state."""
    agent, twin, decisions = _sessions("random", rules, n_players, 12)
    assert min(decisions.values()) > 30
    assert agent.rng.bit_generator.state == twin.rng.bit_generator.state


def test_random_game_policy_only_for_card_poker():
    from envs.rules.dice_poker import DicePokerRules

    assert make_agent("random", "dice_poker").game_policy(DicePokerRules()) is None


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("opponents", ["quick", "random"])
def test_an_env_seating_them_copies_mid_session(opponents, how):
    """The policies travel with a copied env: the copy plays on as the original does."""
    import copy
    import pickle

    import gymnasium as gym

    env = gym.make("CardPoker-v0", n_players=4, opponents=opponents, episode="session")
    env.reset(seed=3)
    pick = np.random.default_rng(0)
    for _ in range(15):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        env.step(int(pick.choice(legal)))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    for _ in range(40):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        if not len(legal):
            break
        action = int(pick.choice(legal))
        a, b = env.step(action), twin.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
