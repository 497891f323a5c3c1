"""DicePoker-v0 / DicePoker6-v0: API checks, masks, determinism, errors, rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import envs  # noqa: F401  (registers the ids)
from envs.dice_poker import decode_observation, obs_size

VARIANTS = [
    ("DicePoker-v0", {}),
    ("DicePoker-v0", {"n_players": 2, "lock_kept_dice": False, "full_house_tiebreak": "triple"}),
    ("DicePoker-v0", {"n_players": 6, "episode": "circle", "two_pairs_tiebreak": "high_pair"}),
    ("DicePoker6-v0", {}),
    ("DicePoker6-v0", {"pyramid": "any", "six_dice_low_hands": False, "opponents": "random"}),
    ("DicePoker6-v0", {"n_players": 4, "agent_seat": 3, "first_player": 0, "ante": 5}),
]


@pytest.mark.parametrize(("env_id", "kwargs"), VARIANTS)
def test_gymnasium_check_env(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    gym_check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize(("env_id", "kwargs"), VARIANTS)
def test_sb3_check_env(env_id, kwargs):
    sb3_check_env(gym.make(env_id, **kwargs).unwrapped, warn=False)


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
    return np.array(trace), rewards


@pytest.mark.parametrize(("env_id", "kwargs"), VARIANTS)
def test_same_seed_same_trajectory(env_id, kwargs):
    a, ra = play(gym.make(env_id, **kwargs), seed=11)
    b, rb = play(gym.make(env_id, **kwargs), seed=11)
    assert np.array_equal(a, b) and ra == rb
    c, _ = play(gym.make(env_id, **kwargs), seed=12)
    assert a.shape != c.shape or not np.array_equal(a, c)


def test_observation_fields():
    env = gym.make("DicePoker-v0", n_players=3, agent_seat=2, first_player=0)
    obs, info = env.reset(seed=3)
    assert obs.shape == (obs_size(5),) == (34,)
    f = decode_observation(obs)
    assert sorted(f["dice"]) == list(f["dice"]) and set(f["dice"]) <= set(range(1, 7))
    assert f["face_counts"].sum() == 5
    assert f["rolls_used"] == 1
    assert f["seat"] == 2 and f["position"] == 2 and f["players_after"] == 0
    assert f["round_players"] == 3 and f["pot"] == 3
    assert f["best"][0] >= 0 and 1 <= f["best_count"] <= 2  # two players rolled before
    assert info["action_mask"].all()  # nothing frozen after roll 1


def test_frozen_dice_are_masked():
    env = gym.make("DicePoker-v0", agent_seat=0, first_player=0)
    env.reset(seed=0)
    obs, _, _, _, info = env.step(0b00011)  # re-roll the two lowest dice, keep three
    f = decode_observation(obs)
    assert list(f["frozen"]).count(1.0) == 3
    frozen_bits = sum(1 << i for i, x in enumerate(f["frozen"]) if x)
    mask = info["action_mask"]
    assert np.array_equal(mask, env.unwrapped.action_masks())
    assert all(mask[a] == (a & frozen_bits == 0) for a in range(32))


def test_illegal_action_raises_and_changes_nothing():
    env = gym.make("DicePoker-v0", agent_seat=0, first_player=0)
    env.reset(seed=0)
    obs, _, _, _, info = env.step(0b00011)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    before = env.unwrapped.match.game.copy()
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*legal re-roll bit sets"):
        env.step(illegal)
    after = env.unwrapped.match.game
    assert (after.dice, after.frozen, after.rolls_used) == (before.dice, before.frozen, 2)
    with pytest.raises(ValueError, match="illegal action 99"):
        env.step(99)


def test_rewards_are_net_chips():
    env = gym.make("DicePoker-v0", n_players=4, ante=2)
    seen = set()
    for seed in range(60):
        _, rewards = play(env, seed)
        assert all(r == 0 for r in rewards[:-1])
        seen.add(rewards[-1])
    assert seen == {6.0, -2.0}


def test_circle_plays_one_game_per_seat():
    env = gym.make("DicePoker-v0", n_players=3, episode="circle", agent_seat=1)
    for seed in range(20):
        _, rewards = play(env, seed)
        match = env.unwrapped.match
        assert match.games_played == 3
        assert sum(rewards) == match.chips[1]
        assert sum(match.chips) == 0


def test_agent_plays_every_position():
    env = gym.make("DicePoker-v0", n_players=3, agent_seat=0)
    positions = {decode_observation(env.reset(seed=s)[0])["position"] for s in range(40)}
    assert positions == {0.0, 1.0, 2.0}  # the seating roll decides who starts


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_players": 1}, ValueError, "n_players"),
        ({"n_players": 7}, ValueError, "n_players"),
        ({"agent_seat": 3}, ValueError, "agent_seat"),
        ({"first_player": "dice"}, ValueError, "first_player"),
        ({"episode": "session"}, ValueError, "episode"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"opponents": ["random"]}, ValueError, "opponents lists 1"),
        ({"opponents": "genius"}, ValueError, "unknown agent 'genius'"),
        ({"pyramid": "up"}, ValueError, "pyramid"),
        ({"n_dices": 6}, TypeError, "n_dices"),
    ],
)
def test_bad_kwargs(kwargs, error, message):
    with pytest.raises(error, match=message):
        gym.make("DicePoker-v0", **kwargs)


def test_render_ansi_shows_every_player():
    env = gym.make("DicePoker-v0", render_mode="ansi", agent_seat=1, opponents="random")
    env.reset(seed=4)
    text = env.render()
    assert "you" in text and "seat 1" in text and "to act" in text
    play(env, 4)
    text = env.render()
    assert "winner" in text
    assert text.count("seat ") >= 3


def test_render_human_prints(capsys):
    env = gym.make("DicePoker-v0", render_mode="human").unwrapped
    env.reset(seed=0)
    env.step(0)
    assert "Prison dice poker, 5 dice, 3 players" in capsys.readouterr().out


def test_step_before_reset_and_after_end():
    env = gym.make("DicePoker-v0").unwrapped
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    play(env, 0)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)
