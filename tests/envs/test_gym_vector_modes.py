"""Every registered id under Gymnasium's own vector envs (``gym.make_vec`` with
``vectorization_mode="sync"`` and ``"async"``), in both autoreset modes: the infos of the
games must stack (issue 27, defect 4: ``info["card"]`` mixed ints and None)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envs  # noqa: F401  (registers the ids)
from envs import games

IDS = [games.get(n).gym_id for n in games.names()]
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]


def _play(env_id: str, mode: str, autoreset: AutoresetMode, steps: int, until_done: bool):
    env = gym.make_vec(
        env_id, num_envs=2, vectorization_mode=mode, vector_kwargs={"autoreset_mode": autoreset}
    )
    rng = np.random.default_rng(0)
    try:
        obs, info = env.reset(seed=0)
        ended = np.zeros(2, dtype=bool)
        for _ in range(steps):
            mask = np.asarray(info["action_mask"])
            # a random legal action per game (any action where none is legal: a NEXT_STEP
            # slot that waits for its reset ignores it)
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
            obs, rewards, terminated, truncated, info = env.step(actions)
            assert env.observation_space.contains(obs)
            assert rewards.shape == (2,) and np.isfinite(rewards).all()
            ended |= terminated | truncated
            if until_done and ended.all():
                break
        if until_done:
            assert ended.all(), "both games should have ended (and been reset) by now"
        return info
    finally:
        env.close()


@pytest.mark.parametrize("autoreset", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("env_id", IDS)
def test_sync_vector_env(env_id, autoreset):
    """Every id through whole games and their autoresets, two games side by side."""
    info = _play(env_id, "sync", autoreset, steps=400, until_done=True)
    assert info["action_mask"].shape[0] == 2


@pytest.mark.parametrize("autoreset", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("env_id", IDS)
def test_async_vector_env(env_id, autoreset):
    """The same through worker processes, a few steps only (their start is slow)."""
    _play(env_id, "async", autoreset, steps=6, until_done=False)


def test_yahtzee_card_info_under_sync():
    """The card of the filled rows stacks: a row's score where it is filled, its mask
    ``_row`` says where."""
    info = _play("Yahtzee-v0", "sync", AutoresetMode.SAME_STEP, steps=8, until_done=False)
    card = info["card"]
    for row, scores in card.items():
        if not row.startswith("_"):
            assert scores.shape == (2,) and card["_" + row].dtype == bool
