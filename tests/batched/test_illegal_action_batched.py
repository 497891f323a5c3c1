"""``illegal_action`` on the batched engines behind ``gym.make_vec`` (BatchedVectorEnv) and
SB3's ``VecEnv`` (BatchedVecEnv): illegal games do not move, the legal ones step, rewards,
autoreset, episode records and the SB3 truncation flag."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401
from agents.tables import BatchedVecEnv, make_engine
from envs import games
from envs.vector import BATCHED_IDS, BatchedVectorEnv

N = 8
POKER_IDS = tuple(games.get(n).gym_id for n in games.of_kind("chips"))


def _options(env_id: str) -> dict:
    return {"opponents": "random"} if env_id in POKER_IDS else {}


def _vector(env_id: str, **kwargs) -> BatchedVectorEnv:
    return gym.make_vec(
        env_id, num_envs=N, vectorization_mode="vector_entry_point", **_options(env_id), **kwargs
    )


def _actions(rng, masks, illegal_rows):
    """A legal action per game, an illegal one in ``illegal_rows``."""
    a = (rng.random(masks.shape) * masks).argmax(axis=1)
    for g in np.flatnonzero(illegal_rows):
        out = np.flatnonzero(~masks[g])
        a[g] = out[0] if len(out) else masks.shape[1] + 2
    return a


def _stakes(vec) -> np.ndarray:
    engine = vec.engine
    return engine.stakes() if hasattr(engine, "stakes") else np.zeros(N)


def test_every_batched_id_is_covered():
    assert set(BATCHED_IDS) == {games.get(n).gym_id for n in games.names()}


@pytest.mark.parametrize("env_id", BATCHED_IDS)
@pytest.mark.parametrize("kind", ("gym", "sb3"))
def test_raise_is_the_default(env_id, kind):
    vec = _vector(env_id) if kind == "gym" else BatchedVecEnv(env_id, N, **_options(env_id))
    if kind == "gym":
        vec.reset(seed=0)
    else:
        vec.reset()
    masks = vec.action_masks()
    before = vec.engine.observe().copy()
    bad = _actions(np.random.default_rng(0), masks, np.arange(N) == 3)
    with pytest.raises(ValueError, match="illegal action"):
        vec.step(bad) if kind == "gym" else vec.step(bad)
    assert np.array_equal(vec.engine.observe(), before)  # no game moved


@pytest.mark.parametrize("env_id", BATCHED_IDS)
def test_bad_values(env_id):
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        _vector(env_id, illegal_action="skip")
    with pytest.raises(ValueError, match="max_illegal_steps"):
        BatchedVecEnv(env_id, N, max_illegal_steps=-1, **_options(env_id))
    # the engines themselves do not take the options: the vector envs handle them
    with pytest.raises(TypeError, match="illegal_action"):
        make_engine(env_id, N, illegal_action="terminate", **_options(env_id))


@pytest.mark.parametrize("env_id", BATCHED_IDS)
def test_terminate_ends_the_illegal_games_and_autoresets_them(env_id):
    rng = np.random.default_rng(1)
    scale = 1.0 if env_id in POKER_IDS else 0.5  # reward_scale: the scorecard games'
    extra = {} if env_id in POKER_IDS else {"reward_scale": scale}
    vec = _vector(env_id, illegal_action="terminate", illegal_penalty=-4, **extra)
    obs, info = vec.reset(seed=2)
    returns = np.zeros(N)
    ended = 0
    for _ in range(40):
        illegal = rng.random(N) < 0.2
        stakes = _stakes(vec)
        before = obs.copy()
        obs, rewards, term, trunc, info = vec.step(_actions(rng, info["action_mask"], illegal))
        returns += rewards
        assert not trunc.any()
        assert term[illegal].all()
        if illegal.any():
            assert np.array_equal(info["illegal_action"], illegal)
            assert np.array_equal(info["_illegal_action"], illegal)
            # the penalty and the forfeited stake, times reward_scale
            assert np.allclose(rewards[illegal], (-4 - stakes[illegal]) * scale)
            for g in np.flatnonzero(illegal):  # the last observation is where it stood
                assert np.array_equal(info["final_obs"][g][: before.shape[1]], before[g]) or (
                    env_id in POKER_IDS  # the chips field shows the forfeit
                )
        else:
            assert "illegal_action" not in info
        if term.any():
            assert np.allclose(info["episode_return"][term], returns[term])
            returns[term] = 0
            ended += int(term.sum())
        # every game is running again and the mask is the new one's
        assert info["action_mask"].any(axis=1).all()
    assert ended > 0


@pytest.mark.parametrize("env_id", BATCHED_IDS)
def test_penalize_holds_the_illegal_games_and_truncates_stuck_ones(env_id):
    rng = np.random.default_rng(3)
    vec = _vector(env_id, illegal_action="penalize", illegal_penalty=-2, max_illegal_steps=3)
    obs, info = vec.reset(seed=4)
    stuck = np.arange(N) == 0  # game 0 only ever plays illegal actions
    for t in range(7):
        before = obs.copy()
        obs, rewards, term, trunc, info = vec.step(_actions(rng, info["action_mask"], stuck))
        assert rewards[0] == -2 and not term[0] and info["illegal_action"][0]
        assert trunc[0] == (t in (2, 5))  # the third illegal action in a row truncates
        assert not trunc[1:].any()
        if not trunc[0]:
            assert np.array_equal(obs[0], before[0])  # nothing moved
        else:
            assert np.array_equal(info["final_obs"][0], before[0])
            assert info["episode_return"][0] == -6


@pytest.mark.parametrize("env_id", BATCHED_IDS)
@pytest.mark.parametrize("mode", ("terminate", "penalize"))
def test_sb3_vecenv_episode_records_and_flags(env_id, mode):
    rng = np.random.default_rng(5)
    vec = BatchedVecEnv(
        env_id, N, seed=0, illegal_action=mode, max_illegal_steps=2, **_options(env_id)
    )
    vec.reset()
    returns = np.zeros(N)
    records = 0
    for _ in range(60):
        illegal = rng.random(N) < 0.3
        _, rewards, dones, infos = vec.step(_actions(rng, vec.action_masks(), illegal))
        assert rewards.dtype == np.float32
        returns += rewards
        for g in range(N):
            assert infos[g].get("illegal_action", False) == illegal[g]
            if dones[g]:
                assert infos[g]["episode"]["r"] == pytest.approx(returns[g], abs=1e-4)
                assert "terminal_observation" in infos[g]
                returns[g] = 0
                records += 1
                if mode == "terminate" and illegal[g]:
                    assert not infos[g].get("TimeLimit.truncated", False)
            else:
                assert "TimeLimit.truncated" not in infos[g]
            if infos[g].get("TimeLimit.truncated"):
                assert mode == "penalize" and dones[g] and illegal[g]
    assert records > 0


@pytest.mark.parametrize("env_id", POKER_IDS)
def test_scalar_and_batched_pay_the_same_for_an_illegal_first_move(env_id):
    """The first decision of a game: the ante is the stake everywhere."""
    scalar = gym.make(env_id, opponents="random", illegal_action="terminate")
    _, info = scalar.reset(seed=0)
    out = np.flatnonzero(~info["action_mask"])
    _, r_scalar, *_ = scalar.step(int(out[0]) if len(out) else len(info["action_mask"]))
    vec = _vector(env_id, illegal_action="terminate")
    _, info = vec.reset(seed=0)
    _, r_vec, *_ = vec.step(_actions(np.random.default_rng(0), info["action_mask"], np.ones(N)))
    assert np.all(r_vec == r_scalar) and r_scalar == -2.0


def test_play_games_takes_illegal_action_as_the_envs_do():
    """Issue 23: ``play_games`` (the agents' batched path: train/ppo.py's evaluation) took no
    ``illegal_action`` and raised a TypeError, so a mask-unaware model trained with
    ``"terminate"`` could not be measured the way it trained."""
    from agents.tables import play_games

    def always(action):
        return lambda obs, masks: np.full(len(obs), action, dtype=np.int64)

    # re-roll nothing (action 0) is never legal: every game ends at once, paid the penalty
    totals = play_games(
        always(0), "YahtzeeClassic-v0", 4, 0, illegal_action="terminate", illegal_penalty=-5
    )
    assert totals.tolist() == [-5.0] * 4
    # card poker: the penalty and the ante forfeited (1 chip); penalize: 3 steps, then over
    bid = games.get("card_poker").make_rules().n_actions - 1  # never legal in the draw
    card = play_games(always(bid), "CardPoker-v0", 3, 0, illegal_action="terminate")
    assert card.tolist() == [-1.0 - games.get("card_poker").make_rules().ante] * 3
    stuck = play_games(
        always(bid), "CardPoker-v0", 3, 0, illegal_action="penalize", max_illegal_steps=3
    )
    assert stuck.tolist() == [-3.0] * 3
    with pytest.raises(ValueError, match="illegal action 0 in game 0"):
        play_games(always(0), "YahtzeeClassic-v0", 4, 0)  # "raise" stays the default
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        play_games(always(0), "YahtzeeClassic-v0", 4, 0, illegal_action="skip")
    with pytest.raises(ValueError, match=r"act_batch returned float64 of shape \(4,\)"):
        play_games(lambda o, m: np.zeros(len(o)), "YahtzeeClassic-v0", 4, 0)
