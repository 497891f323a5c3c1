"""PettingZoo card_poker_v0: API and seed tests, zero-sum deals, errors, rendering."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.multi import card_poker_v0
from envs.rules.card_poker import PASS, REVEAL


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"n_players": 6, "deck": 54, "draw_fee": 1},
        {"n_players": 2, "episode": "session", "max_deals": 5, "stack": 10},
    ],
    ids=str,
)
def test_api(kwargs):
    api_test(card_poker_v0.env(**kwargs), num_cycles=300)


def test_seed():
    seed_test(card_poker_v0.env, num_cycles=100)


def run(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0)
    actions = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            actions.append((agent, action))
            env.step(action)
    return totals, actions


@pytest.mark.parametrize(
    ("n_players", "episode"), [(2, "deal"), (3, "deal"), (5, "deal"), (3, "session")]
)
def test_rewards_sum_to_zero(n_players, episode):
    env = card_poker_v0.env(n_players=n_players, episode=episode, max_deals=10, stack=12)
    for seed in range(40):
        totals, _ = run(env, seed)
        assert sum(totals.values()) == 0
        if episode == "deal":
            # each loses at most the stack, and someone gains
            assert min(totals.values()) >= -12 and max(totals.values()) > 0


def test_same_seed_same_play():
    env = card_poker_v0.env(n_players=4)
    assert run(env, 7) == run(env, 7)
    assert run(env, 7)[1] != run(env, 8)[1]


def test_only_the_player_to_act_has_legal_actions():
    env = card_poker_v0.env(n_players=3)
    env.reset(seed=1)
    for _ in range(3):  # through the draw
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.any() == (agent == env.agent_selection)
        env.step(0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[PASS] and mask[REVEAL] and not mask[:32].any()


def test_illegal_action_raises_and_changes_nothing():
    env = card_poker_v0.env(n_players=3)
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)["observation"]
    with pytest.raises(ValueError, match="illegal action 33"):
        env.step(REVEAL)  # the draw comes first
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before)


def test_render_hides_hands_until_showdown():
    env = card_poker_v0.env(render_mode="ansi", n_players=3, joker_card=None)
    env.reset(seed=3)
    text = env.render()
    rows = [line for line in text.splitlines() if line.strip().startswith("seat")]
    assert sum("??" in r for r in rows) == 2  # only the player to act sees cards
    for _ in range(3):
        env.step(0)
    env.step(REVEAL)
    assert "??" not in env.render() and "wins" in env.render()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_dice": 5}, TypeError, "n_dice"),
        ({"n_players": 7}, ValueError, "n_players"),
        ({"episode": "circle"}, ValueError, "episode"),
        ({"max_deals": 0}, ValueError, "max_deals"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"ante": -1}, ValueError, "ante"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        card_poker_v0.env(**kwargs)
