"""Same int seed, same trajectories, on the batched engines (issue 27, defect 7).

``reset(seed=[...])`` seeds game ``i`` with ``seed[i]`` on its own path; the int-seed path
(``reset(seed=int)``, ``BatchedVecEnv(seed=...)``, ``play_games``) must stay exactly what
it was. Each case plays seeded steps with random legal actions drawn from the env's own
mask and hashes the observations, rewards, terminations and masks. The digests were
recorded from the code before the per-game seeding was added.

    PYTHONPATH=. python tests/batched/test_batched_hashes.py    # prints the current digests
"""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents.tables import BatchedVecEnv, play_games

N, STEPS = 5, 120

CASES = [
    ("YahtzeeClassic-v0", {}),
    ("Yahtzee-v0", {"scratch": "any"}),
    ("DicePoker-v0", {}),
    ("DicePoker-v0", {"n_players": 4, "opponents": "random", "episode": "circle"}),
    ("DicePoker6-v0", {"n_players": 3, "opponents": ["optimal", "random"], "agent_seat": 1}),
    ("DicePoker-v0", {"illegal_action": "penalize", "first_player": 0}),
    ("CardPoker-v0", {}),
    ("CardPoker-v0", {"n_players": 4, "opponents": "random", "episode": "session"}),
    ("CardPoker-v0", {"opponents": "quick", "illegal_action": "terminate"}),
]


def _legal(rng, masks, illegal_too: bool):
    if illegal_too and rng.random() < 0.1:
        return rng.integers(0, masks.shape[1], size=len(masks))
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def vector_digest(env_id: str, kwargs: dict) -> str:
    vec = gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", **kwargs)
    rng = np.random.default_rng(3)
    h = hashlib.sha256()
    obs, info = vec.reset(seed=11)
    illegal_too = kwargs.get("illegal_action", "raise") != "raise"
    for _ in range(STEPS):
        h.update(obs.tobytes())
        h.update(info["action_mask"].tobytes())
        obs, reward, terminated, truncated, info = vec.step(
            _legal(rng, info["action_mask"], illegal_too)
        )
        h.update(np.asarray(reward, dtype=np.float64).tobytes())
        h.update(terminated.tobytes() + truncated.tobytes())
    obs, info = vec.reset(seed=12)  # a reseed mid-way
    h.update(obs.tobytes())
    return h.hexdigest()[:16]


def sb3_digest(env_id: str, kwargs: dict) -> str:
    venv = BatchedVecEnv(env_id, N, seed=5, **kwargs)
    rng = np.random.default_rng(4)
    h = hashlib.sha256()
    obs = venv.reset()
    for _ in range(STEPS):
        h.update(obs.tobytes())
        obs, reward, done, _ = venv.step(_legal(rng, venv.action_masks(), False))
        h.update(reward.tobytes() + done.tobytes())
    return h.hexdigest()[:16]


def play_digest(env_id: str, kwargs: dict) -> str:
    rng = np.random.default_rng(6)
    totals = play_games(lambda o, m: _legal(rng, m, False), env_id, 40, seed=9, **kwargs)
    return hashlib.sha256(totals.tobytes()).hexdigest()[:16]


EXPECTED_VECTOR: dict[int, str] = {
    0: "a5a804a9c73d8cae",
    1: "8ba6d33cf36a8ccf",
    2: "5ed6a7bae43e03a8",
    3: "3d6ec4ff00c50524",
    4: "0fb1de8e3a492b7f",
    5: "1794f8be01bd9e8c",
    6: "265aa428fc85cb29",
    7: "125293436835edc5",
    8: "e7f0020941e11eca",
}
EXPECTED_SB3: dict[int, str] = {
    0: "8788dd4042ed2637",
    1: "5c96c292eb620199",
    2: "eac1fb62f9f4617e",
    3: "ca96b812e0bad433",
    4: "6e63be0511340a4b",
    5: "3ece3350bb3d5221",
    6: "978b121ce822f314",
    7: "3a8104d1d5dce970",
    8: "fca034f7a994457c",
}
EXPECTED_PLAY: dict[int, str] = {
    0: "7f18970b02a68ea6",
    1: "0dfa91d1f43921bc",
    2: "8012634b416f3919",
    3: "05e883666fe42042",
    4: "ab4bd8c548efe204",
    5: "06e71b60082290b0",
    6: "25990bf25355916e",
    7: "ce7f9437d0573e27",
    8: "b91ac7444605e837",
}


def _clean(kwargs: dict) -> dict:
    return {k: v for k, v in kwargs.items() if not k.startswith("illegal")}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_int_seed_vector_trajectories_are_pinned(case):
    env_id, kwargs = CASES[case]
    assert vector_digest(env_id, kwargs) == EXPECTED_VECTOR[case]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_int_seed_sb3_and_play_games_are_pinned(case):
    env_id, kwargs = CASES[case]
    assert sb3_digest(env_id, _clean(kwargs)) == EXPECTED_SB3[case]
    assert play_digest(env_id, _clean(kwargs)) == EXPECTED_PLAY[case]


if __name__ == "__main__":
    for name, fn, clean in (
        ("EXPECTED_VECTOR", vector_digest, False),
        ("EXPECTED_SB3", sb3_digest, True),
        ("EXPECTED_PLAY", play_digest, True),
    ):
        print(f"{name} = {{")
        for i, (env_id, kwargs) in enumerate(CASES):
            print(f'    {i}: "{fn(env_id, _clean(kwargs) if clean else kwargs)}",')
        print("}")
