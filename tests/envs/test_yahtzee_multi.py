"""PettingZoo yahtzee_v0: API and seed tests, turn order, settlement, errors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.multi import yahtzee_v0
from envs.scorecard import decode_observation


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rules": "classic", "n_players": 3},
        {"rules": "classic", "joker": "free", "reward": "points"},
        {"n_players": 4, "scratch": "any", "reward_scale": 0.01},
    ],
)
def test_api(kwargs):
    api_test(yahtzee_v0.env(**kwargs), num_cycles=400)


@pytest.mark.parametrize("rules", ["russian", "classic"])
def test_seed(rules):
    seed_test(lambda: yahtzee_v0.env(rules=rules), num_cycles=200)


def run(env, seed):
    """Random legal play; returns each agent's summed rewards and the number of fills."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    fills = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        rewards[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        fills[agent] += action >= 32
        env.step(action)
    return rewards, fills


@pytest.mark.parametrize(("rules", "n_rows"), [("russian", 17), ("classic", 13)])
@pytest.mark.parametrize("n_players", [2, 3])
def test_settlement_is_total_minus_mean(rules, n_rows, n_players):
    env = yahtzee_v0.env(rules=rules, n_players=n_players)
    for seed in range(3):
        rewards, fills = run(env, seed)
        totals = env.unwrapped.totals()
        mean = sum(totals.values()) / n_players
        for a in env.possible_agents:
            assert rewards[a] == pytest.approx(totals[a] - mean)
            assert fills[a] == n_rows
        assert sum(rewards.values()) == pytest.approx(0.0)


def test_points_rewards_sum_to_totals():
    env = yahtzee_v0.env(rules="classic", n_players=2, reward="points")
    rewards, _ = run(env, 5)
    assert rewards == pytest.approx(env.unwrapped.totals())


def test_players_take_whole_turns_in_order():
    env = yahtzee_v0.env(n_players=3)
    env.reset(seed=2)
    order = []
    for _ in range(3):
        agent = env.agent_selection
        order.append(agent)
        for other in env.possible_agents:
            assert env.observe(other)["action_mask"].any() == (other == agent)
        env.step(7)  # re-roll three dice: the same player acts again
        assert env.agent_selection == agent
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask[32:])[0]) + 32)
    assert order == ["player_0", "player_1", "player_2"]
    assert env.agent_selection == "player_0"


def test_observation_of_a_waiting_player():
    env = yahtzee_v0.env(n_players=2, rules="classic")
    env.reset(seed=4)
    env.step(32 + 12)  # player_0 fills Chance
    d0 = decode_observation(env.observe("player_0")["observation"], "classic", n_players=2)
    d1 = decode_observation(env.observe("player_1")["observation"], "classic", n_players=2)
    assert d0["dice"].sum() == 0 and d0["rolls_used"] == 0 and not d0["fill_points"].any()
    assert d1["dice"].min() >= 1 and d1["rolls_used"] == 1
    chance = env.unwrapped.games[0].card.total
    assert d0["total"] == chance == d1["others_total"][0]
    assert not d0["open_rows"][12] and d1["open_rows"][12]


def test_illegal_action_raises_and_changes_nothing():
    env = yahtzee_v0.env()
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)
    with pytest.raises(ValueError, match="illegal action 0"):
        env.step(0)
    with pytest.raises(ValueError, match="illegal action 40"):
        env.step(40)  # a stage-2 row during stage 1
    after = env.observe(agent)
    assert env.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_render_ansi():
    env = yahtzee_v0.env(render_mode="ansi", rules="classic")
    env.reset(seed=0)
    assert "(to act)" in env.render()
    run(env, 3)
    assert "result:" in env.render()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_player": 2}, TypeError, "n_player"),
        ({"n_players": 1}, ValueError, "n_players"),
        ({"reward": "chips"}, ValueError, "reward must be"),
        ({"rules": "classic", "scratch": "any"}, ValueError, "russian"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        yahtzee_v0.env(**kwargs)
