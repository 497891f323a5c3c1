"""The batched scorecard engine behind gym.make_vec and SB3's VecEnv."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401
from agents.tables import BatchedVecEnv, play_games
from envs import games
from envs.batched.scorecard import BatchedScorecard
from envs.vector import BATCHED_IDS, BatchedVectorEnv

SCORECARD_IDS = ("Yahtzee-v0", "YahtzeeClassic-v0")


def _random_actions(rng, mask):
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("env_id", SCORECARD_IDS)
def test_make_vec_steps_whole_games_with_same_step_autoreset(env_id):
    assert games.by_gym_id(env_id).gym_id in BATCHED_IDS  # an alias id plays its engine
    vec = gym.make_vec(env_id, num_envs=16, vectorization_mode="vector_entry_point")
    assert isinstance(vec, BatchedVectorEnv) and vec.num_envs == 16
    single = gym.make(env_id)
    assert vec.single_observation_space == single.observation_space
    assert vec.single_action_space.n == single.action_space.n
    obs, info = vec.reset(seed=3)
    assert obs.shape == (16, *single.observation_space.shape) and obs.dtype == np.float32
    assert info["action_mask"].shape == (16, single.action_space.n)
    rng = np.random.default_rng(0)
    finished, returns = 0, []
    for _ in range(200):
        obs, rewards, term, trunc, info = vec.step(_random_actions(rng, info["action_mask"]))
        assert not trunc.any() and rewards.shape == (16,)
        assert np.array_equal(info["action_mask"], vec.action_masks())
        if term.any():
            assert np.array_equal(info["_final_obs"], term)
            for g in np.flatnonzero(term):
                assert single.observation_space.contains(info["final_obs"][g])
                assert obs[g, 11] == 1  # the new game's first roll
            returns += info["episode_return"][term].tolist()
            finished += int(term.sum())
    assert finished > 0 and all(np.isfinite(returns))


@pytest.mark.parametrize("env_id", SCORECARD_IDS)
def test_same_seed_same_trajectories(env_id):
    def run(seed):
        vec = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point")
        obs, info = vec.reset(seed=seed)
        rng, out = np.random.default_rng(1), [obs]
        for _ in range(60):
            obs, r, *_rest, info = vec.step(_random_actions(rng, info["action_mask"]))
            out += [obs, r]
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_bad_input_is_one_clear_error_and_nothing_moves():
    vec = gym.make_vec("YahtzeeClassic-v0", num_envs=4, vectorization_mode="vector_entry_point")
    obs, info = vec.reset(seed=0)
    engine = vec.engine
    before = (engine.dice.copy(), engine.rolls_used.copy(), engine.open_.copy())
    actions = _random_actions(np.random.default_rng(0), info["action_mask"])
    bad = actions.copy()
    bad[2] = 44 if not info["action_mask"][2, 44] else 0  # 0 (re-roll nothing) is never legal
    with pytest.raises(ValueError, match=r"illegal action \d+ in game 2; legal actions there"):
        vec.step(bad)
    with pytest.raises(ValueError, match="integer array of shape"):
        vec.step(actions[:3])
    with pytest.raises(ValueError, match="integer array of shape"):
        vec.step(actions.astype(np.float32))
    assert all(
        np.array_equal(x, y)
        for x, y in zip(before, (engine.dice, engine.rolls_used, engine.open_), strict=True)
    )
    with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
        gym.make_vec("Yahtzee-v0", num_envs=0, vectorization_mode="vector_entry_point")
    with pytest.raises(TypeError, match="unknown option"):
        gym.make_vec("Yahtzee-v0", num_envs=2, vectorization_mode="vector_entry_point", jokr=1)
    with pytest.raises(ValueError, match="scratch"):
        gym.make_vec("Yahtzee-v0", num_envs=2, vectorization_mode="vector_entry_point", scratch=1)
    with pytest.raises(ValueError, match="reward_scale"):
        BatchedVecEnv("Yahtzee-v0", 2, reward_scale=-1)
    with pytest.raises(ValueError, match="is not one of"):
        BatchedVecEnv("NoSuchGame-v0", 2)
    with pytest.raises(ValueError, match="chance must be"):
        BatchedScorecard(2, "classic").reset(chance=np.ones((3, 5), dtype=np.int64))


def test_sb3_vecenv_feeds_maskable_ppo():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    vec = BatchedVecEnv("YahtzeeClassic-v0", 32, seed=0, reward_scale=0.02)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (32, 45) and masks.dtype == bool
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=256, n_epochs=1, seed=0)
    model.learn(32 * 32 * 2)  # two rollouts: about five whole games per slot
    assert model.num_timesteps == 2048
    # whole games reached their end with Monitor-style records
    vec.reset()
    rng = np.random.default_rng(0)
    episodes = []
    for _ in range(40):
        vec.step_async(_random_actions(rng, vec.action_masks()))
        obs, rewards, dones, infos = vec.step_wait()
        for g in np.flatnonzero(dones):
            episodes.append(infos[g]["episode"])
            assert infos[g]["terminal_observation"].shape == (44,)
    assert episodes and all(e["l"] >= 13 for e in episodes)


def test_play_games_is_seeded_and_scores_whole_games():
    def first_row(obs, masks):  # fill the lowest legal row at once
        return np.where(masks[:, 32:].any(axis=1), 32 + masks[:, 32:].argmax(axis=1), 1)

    a = play_games(first_row, "Yahtzee-v0", 50, seed=1)
    b = play_games(first_row, "Yahtzee-v0", 50, seed=1)
    assert a.shape == (50,) and np.array_equal(a, b)
    with pytest.raises(ValueError, match="n_games"):
        play_games(first_row, "Yahtzee-v0", 1)
