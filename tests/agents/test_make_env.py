"""``agents.make_env``: agent specs resolved one floor above the envs, the same env (and
the same trajectory) as ``gym.make`` with the spec."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401
from agents import Agent, make_env


def _trajectory(env, seed: int, steps: int = 40) -> list:
    obs, info = env.reset(seed=seed)
    out = [obs.tobytes()]
    for _ in range(steps):
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs.tobytes(), reward))
        if terminated or truncated:
            obs, info = env.reset()
    return out


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("DicePoker-v0", {"opponents": "heuristic"}),
        ("DicePoker6-v0", {"opponents": ["random", "heuristic", "optimal"], "n_players": 4}),
        ("CardPoker-v0", {"opponents": "quick", "deck": 54}),
        ("CardPoker-v0", {}),
    ],
)
def test_make_env_is_gym_make_with_the_spec(env_id, kwargs):
    made = make_env(env_id, **kwargs)
    assert all(isinstance(a, Agent) for a in made.unwrapped._opponents)
    assert _trajectory(made, 3) == _trajectory(gym.make(env_id, **kwargs), 3)


def test_make_env_of_a_game_without_opponents():
    assert make_env("PokerNaKostyah-v0").unwrapped.rules.rules == "russian"
    with pytest.raises(ValueError, match="has no opponents"):
        make_env("Yahtzee-v0", opponents="heuristic")
