"""CardPoker-v0: API checks, observation, masks, determinism, errors, rendering, rewards."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import envs  # noqa: F401  (registers the ids)
from envs.card_poker import decode_observation, obs_size
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL

VARIANTS = [
    {},
    {"n_players": 2, "opponents": "random", "deck": 54, "draw_fee": 1},
    {"n_players": 6, "agent_seat": 5, "episode": "session", "max_deals": 3, "stack": 20},
    {"opponents": ["bluffer", "random"], "categories": "short", "joker_card": None},
]


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
def test_gymnasium_check_env(kwargs):
    # unmodified: its sample is drawn mid-deal, then used after a reset (envs.spaces.LegalDiscrete)
    gym_check_env(gym.make("CardPoker-v0", **kwargs).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("kwargs", VARIANTS[:2], ids=str)
def test_sb3_check_env(kwargs):
    sb3_check_env(gym.make("CardPoker-v0", **kwargs).unwrapped, warn=False)


def play(env, seed, policy=lambda obs, mask: int(np.flatnonzero(mask)[-1])):
    obs, info = env.reset(seed=seed)
    trace = [obs.copy()]
    rewards = []
    done = False
    while not done:
        obs, reward, done, truncated, info = env.step(policy(obs, info["action_mask"]))
        assert not truncated
        trace.append(obs.copy())
        rewards.append(reward)
    return np.array(trace), rewards, info


@pytest.mark.parametrize("kwargs", VARIANTS, ids=str)
def test_same_seed_same_trajectory(kwargs):
    a, ra, _ = play(gym.make("CardPoker-v0", **kwargs), seed=11)
    b, rb, _ = play(gym.make("CardPoker-v0", **kwargs), seed=11)
    assert np.array_equal(a, b) and ra == rb
    c, _, _ = play(gym.make("CardPoker-v0", **kwargs), seed=12)
    assert a.shape != c.shape or not np.array_equal(a, c)


@pytest.mark.parametrize(
    ("kwargs", "n_cards", "n_players", "size"),
    [
        ({}, 36, 3, 64),
        ({"deck": 54, "n_players": 6}, 54, 6, 97),
        ({"deck": 54, "n_players": 2}, 54, 2, 77),
    ],
)
def test_observation_layout(kwargs, n_cards, n_players, size):
    env = gym.make("CardPoker-v0", agent_seat=1, **kwargs)
    obs, info = env.reset(seed=3)
    assert obs.shape == (obs_size(n_cards, n_players),) == (size,)
    assert env.observation_space.contains(obs)
    f = decode_observation(obs, n_cards)
    assert f["n_players"] == n_players
    assert f["cards"].sum() == 5 and set(np.unique(f["cards"])) <= {0.0, 1.0}
    assert list(f["phase"]) == [1.0, 0.0, 0.0]
    assert f["position"] == 1  # seat 0 draws first in the first deal
    assert f["pot"] == n_players  # the antes
    assert f["drawn"][0] == -1 and f["drawn"][-1] >= 0  # seat 0 (left of us, last) drew
    assert list(f["in"]) == [1.0] * n_players
    assert list(f["stacks"]) == [99.0] * n_players
    assert 0 < f["hand_strength"] < 1 and 0 <= f["hand_rank"] <= 11
    assert info["action_mask"][:32].all() and not info["action_mask"][32:].any()


def test_own_cards_index_the_discard_bits():
    env = gym.make("CardPoker-v0", agent_seat=0, opponents="random")
    obs, _ = env.reset(seed=0)
    before = np.flatnonzero(decode_observation(obs)["cards"])
    game = env.unwrapped.match.game
    assert list(before) == list(game.hands[0])
    env.step(0b00101)  # exchange the 1st and 3rd cards
    kept = set(game.hands[0]) & set(before)
    assert kept == {before[1], before[3], before[4]}


def test_betting_mask_and_fields():
    # the first seat bids first, once everyone has drawn
    env = gym.make("CardPoker-v0", agent_seat=0, opponents="random", n_players=4)
    env.reset(seed=5)
    obs, _, done, _, info = env.step(0)
    f = decode_observation(obs)
    assert not done and list(f["phase"]) == [0.0, 1.0, 0.0]
    assert f["drawn"][0] == 0 and f["drawn"].min() >= 0
    mask = info["action_mask"]
    assert not mask[:32].any() and mask[PASS] and mask[REVEAL]
    assert mask[FIRST_BID:].all() and len(mask) == FIRST_BID + 8  # bids 1..8
    assert f["bid"] == 0 and f["reveal_cost"] == 1 and f["bids_left"] == 12


@pytest.mark.parametrize("action", [32, 33, 41, 42, -1, 2.5], ids=repr)
def test_illegal_action_raises_and_changes_nothing(action):
    env = gym.make("CardPoker-v0", agent_seat=0)
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(action)
    assert np.array_equal(env.unwrapped._observe(0), obs)


def test_step_after_the_end_and_before_reset():
    env = gym.make("CardPoker-v0", opponents="random").unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    play(env, seed=0)
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)
    assert not env.action_masks().any()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_players": 1}, ValueError, "n_players"),
        ({"n_players": 7}, ValueError, "n_players"),
        ({"agent_seat": 3}, ValueError, "agent_seat"),
        ({"episode": "game"}, ValueError, "episode"),
        ({"max_deals": 0}, ValueError, "max_deals"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"opponents": ["random"]}, ValueError, "opponents"),
        ({"opponents": "optimal"}, ValueError, "optimal"),
        ({"deck": 40}, ValueError, "deck"),
        ({"max_bid": 0}, ValueError, "max_bid"),
        ({"joker_card": "2S"}, ValueError, "joker_card"),
        ({"jokers": 2}, TypeError, "jokers"),
        ({"n_dice": 5}, TypeError, "n_dice"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        gym.make("CardPoker-v0", **kwargs)


@pytest.mark.parametrize("episode", ["deal", "session"])
def test_rewards_add_up_to_the_net_chips(episode):
    env = gym.make("CardPoker-v0", episode=episode, max_deals=20, stack=15, agent_seat=1)
    rng = np.random.default_rng(0)
    for seed in range(15):
        _, rewards, info = play(env, seed, policy=lambda o, m: int(rng.choice(np.flatnonzero(m))))
        match = env.unwrapped.match
        assert sum(rewards) == info["net"] == match.net[1]
        assert match.game.stacks[1] - 15 == info["net"]
        assert sum(match.net) == 0
        if episode == "deal":
            assert match.deals_played == 1
        else:
            broke = min(match.game.stacks) < 1
            assert broke or match.deals_played == 20


def test_render_hides_opponents_until_showdown():
    env = gym.make("CardPoker-v0", render_mode="ansi", agent_seat=0, opponents="random")
    env.reset(seed=2)
    text = env.render()
    rows = [line for line in text.splitlines() if line.strip().startswith("seat")]
    assert len(rows) == 3
    assert "??" not in rows[0] and all("?? " in r for r in rows[1:])
    # reveal at once: every hand shows
    env.step(0)
    env.step(REVEAL)
    text = env.render()
    assert "??" not in text and "wins" in text


def test_render_human_prints(capsys):
    env = gym.make("CardPoker-v0", render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Card poker" in capsys.readouterr().out
