"""PettingZoo dice_poker_v0: API and seed tests, zero-sum games, errors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.multi import dice_poker_v0


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"n_dice": 6, "n_players": 4},
        {"n_players": 2, "episode": "circle", "lock_kept_dice": False},
    ],
)
def test_api(kwargs):
    api_test(dice_poker_v0.env(**kwargs), num_cycles=300)


def test_seed():
    seed_test(dice_poker_v0.env, num_cycles=100)


def run(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("episode", ["game", "circle"])
def test_rewards_sum_to_zero(episode):
    env = dice_poker_v0.env(n_players=4, episode=episode, ante=3)
    for seed in range(50):
        totals = run(env, seed)
        assert sum(totals.values()) == 0
        if episode == "game":
            assert sorted(totals.values()) == [-3, -3, -3, 9]


def test_only_the_roller_has_legal_actions():
    env = dice_poker_v0.env(n_players=3)
    env.reset(seed=1)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_illegal_action_raises_and_changes_nothing():
    env = dice_poker_v0.env(n_players=3, first_player=0)
    env.reset(seed=1)
    env.step(0b00111)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.observe(agent)["observation"]
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        env.step(illegal)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before)


def test_render_ansi():
    env = dice_poker_v0.env(render_mode="ansi")
    run(env, 3)
    assert "winner" in env.render()


def test_unknown_kwarg():
    with pytest.raises(TypeError, match="n_dices"):
        dice_poker_v0.env(n_dices=6)
