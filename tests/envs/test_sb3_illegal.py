"""stable-baselines3's plain (mask-unaware) PPO, A2C and DQN train on every id with
``illegal_action="terminate"``: a few thousand steps each on the batched engine, and the
scalar env's path (``gym.make``) for each algorithm on one id."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3 import A2C, DQN, PPO

import envs  # noqa: F401
from agents.tables import BatchedVecEnv
from envs import games

IDS = tuple(games.get(n).gym_id for n in games.names())
SMALL = {"net_arch": [32, 32]}
# tiny but real settings: every algorithm updates several times within the budget
ALGOS = {
    "PPO": (PPO, {"n_steps": 64, "batch_size": 128, "n_epochs": 2}),
    "A2C": (A2C, {"n_steps": 8}),
    "DQN": (
        DQN,
        {
            "learning_starts": 256,
            "buffer_size": 4096,
            "train_freq": 4,
            "target_update_interval": 256,
        },
    ),
}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("algo", ALGOS)
def test_plain_sb3_trains_on_the_batched_engine(env_id, algo):
    cls, kwargs = ALGOS[algo]
    vec = BatchedVecEnv(env_id, 16, seed=0, illegal_action="terminate")
    model = cls("MlpPolicy", vec, seed=0, device="cpu", policy_kwargs=SMALL, **kwargs)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    actions, _ = model.predict(vec.reset(), deterministic=True)
    assert actions.shape == (16,)


@pytest.mark.parametrize("algo", ALGOS)
def test_plain_sb3_trains_on_the_scalar_env(algo):
    cls, kwargs = ALGOS[algo]
    if algo == "PPO":
        kwargs = {**kwargs, "batch_size": 64}  # one env: a rollout of 64 steps
    env = gym.make("DicePoker-v0", illegal_action="terminate")
    model = cls("MlpPolicy", env, seed=0, device="cpu", policy_kwargs=SMALL, **kwargs)
    model.learn(512)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert np.asarray(action).shape == ()


@pytest.fixture(autouse=True)
def _one_thread():
    """Small networks: one torch thread is fastest on a shared machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
