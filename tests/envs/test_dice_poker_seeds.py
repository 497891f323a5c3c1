"""Same seeds, same trajectories: DicePoker-v0 / DicePoker6-v0 episodes pinned by digest.

The digests were recorded before the rules game took chance as an input (issue 11); the
generator must still be read exactly as it was when no chance is given.
"""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401

CASES = [
    ("DicePoker-v0", {}, "b459f6a49da4a13b"),
    (
        "DicePoker-v0",
        {"n_players": 4, "opponents": "random", "episode": "circle"},
        "8deb587b10b17a3d",
    ),
    (
        "DicePoker-v0",
        {"n_players": 2, "opponents": "optimal", "lock_kept_dice": False, "first_player": 1},
        "e58e95134e6e947b",
    ),
    ("DicePoker6-v0", {}, "90e1711e6d2bfead"),
    (
        "DicePoker6-v0",
        {"n_players": 4, "opponents": ["random", "heuristic", "optimal"], "episode": "circle"},
        "03736f90b8b69242",
    ),
]


def digest(env_id: str, kwargs: dict, episodes: int = 12) -> str:
    env = gym.make(env_id, **kwargs)
    h = hashlib.sha256()
    rng = np.random.default_rng(1)
    for ep in range(episodes):
        obs, info = env.reset(seed=100 + ep)
        h.update(obs.tobytes())
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, done, _, info = env.step(action)
            h.update(obs.tobytes())
            h.update(np.float64(reward).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("env_id", "kwargs", "expected"), CASES)
def test_seeded_episodes_are_pinned(env_id, kwargs, expected):
    assert digest(env_id, kwargs) == expected
