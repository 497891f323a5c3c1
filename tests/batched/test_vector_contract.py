"""The batched vector envs against Gymnasium's documented vector contract and SB3's VecEnv
API (issue 27, defect 7): ``final_info``, ``reset(seed=...)``, ``render_mode``,
``set_attr(..., indices)``, ``get_images()``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envs  # noqa: F401  (registers the ids)
from agents.tables import BatchedVecEnv

N = 6


def _vec(env_id="DicePoker-v0", **options):
    return gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", **options)


def _random_legal(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _until_a_game_ends(vec, rng, info):
    for _ in range(500):
        obs, rewards, terminated, truncated, info = vec.step(
            _random_legal(rng, info["action_mask"])
        )
        if terminated.any():
            return terminated, info
    raise AssertionError("no game ended")


@pytest.mark.parametrize("env_id", ["DicePoker-v0", "YahtzeeClassic-v0", "CardPoker-v0"])
def test_same_step_infos_carry_final_info_as_gymnasium_does(env_id):
    vec = _vec(env_id)
    _, info = vec.reset(seed=0)
    terminated, info = _until_a_game_ends(vec, np.random.default_rng(0), info)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    np.testing.assert_array_equal(info["_final_info"], terminated)
    np.testing.assert_array_equal(info["_final_obs"], terminated)
    final = info["final_info"]
    assert final["action_mask"].shape == info["action_mask"].shape
    assert not final["action_mask"][terminated].any()  # nothing was legal at the end
    np.testing.assert_array_equal(final["_action_mask"], terminated)
    # the keys gymnasium's own SAME_STEP vector env gives for finished games
    sync = gym.make_vec(
        env_id,
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    _, sinfo = sync.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(500):
        _, _, term, _, sinfo = sync.step(_random_legal(rng, sinfo["action_mask"]))
        if term.any():
            break
    assert {"final_obs", "_final_obs", "final_info", "_final_info"} <= set(sinfo) & set(info)
    assert "action_mask" in sinfo["final_info"]


def test_reset_seed_takes_what_gymnasium_vector_envs_take():
    vec = _vec()
    first, _ = vec.reset(seed=[1, 2, 3, 4, 5, 6])
    again, _ = vec.reset(seed=[1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(first, again)  # the same list, the same games
    other, _ = vec.reset(seed=[6, 5, 4, 3, 2, 1])
    assert not np.array_equal(first, other)
    by_int, _ = vec.reset(seed=7)
    np.testing.assert_array_equal(by_int, vec.reset(seed=7)[0])
    np.testing.assert_array_equal(by_int, vec.reset(seed=np.int64(7))[0])
    vec.reset(seed=[None] * N)  # unseeded, as gymnasium's
    with pytest.raises(ValueError, match=f"seed lists 3 seeds for {N} games"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="seed must be None, a whole number"):
        vec.reset(seed=True)
    with pytest.raises(ValueError, match="seed must be None, a whole number"):
        vec.reset(seed=[True] * N)
    with pytest.raises(ValueError, match="seed must be None, a whole number"):
        vec.reset(seed=-1)
    vec.reset(seed=[1, None, 3, 4, 5, 6])  # game 1 keeps its stream (test_per_game_seeds.py)


@pytest.mark.parametrize("mode", ["rgb_array", "ansi", "human"])
def test_make_vec_refuses_a_render_mode_it_cannot_draw(mode):
    with pytest.raises(
        ValueError, match=f"draws no frames: render_mode must be None, got '{mode}'"
    ):
        _vec(render_mode=mode)
    with pytest.raises(ValueError, match="draws no frames"):
        BatchedVecEnv("CardPoker-v0", 2, render_mode=mode)
    _vec(render_mode=None).reset(seed=0)


def test_sb3_set_attr_on_some_games_is_refused_and_get_images_answers():
    vec = BatchedVecEnv("DicePoker-v0", 4, seed=0)
    with pytest.raises(ValueError, match=r"set_attr\('speed'\) for the games \[0\]"):
        vec.set_attr("speed", 2, indices=[0])
    with pytest.raises(ValueError, match="for the games"):
        vec.set_attr("speed", 2, indices=1)
    assert not hasattr(vec, "speed")
    vec.set_attr("speed", 2, indices=[3, 2, 1, 0])
    assert vec.get_attr("speed") == [2, 2, 2, 2]
    vec.set_attr("speed", 3)
    assert vec.get_attr("speed", indices=[1]) == [3]
    with pytest.warns(UserWarning, match="rgb_array"):
        assert vec.get_images() == [None] * 4


class _Counting:
    """A random opponent that counts the rows it is asked to move (each one decision) and
    leaves its Generator's state to be compared."""

    def __init__(self, game: str) -> None:
        from agents import make_agent

        self.inner = make_agent("random", game)
        self.rows = 0

    def seed(self, seed=None) -> None:
        self.inner.seed(seed)

    def act_batch(self, observations, masks):
        self.rows += len(observations)
        return self.inner.act_batch(observations, masks)

    def state(self):
        return self.inner.rng.bit_generator.state["state"]


@pytest.mark.parametrize(
    ("env_id", "game"),
    [
        ("DicePoker-v0", "dice_poker"),
        ("DicePoker6-v0", "dice_poker6"),
        ("CardPoker-v0", "card_poker"),
    ],
)
@pytest.mark.parametrize("seed", [7, [3, 1, 4, 1, 5, 9]])
def test_reset_moves_the_opponents_once_as_the_engine_does(env_id, game, seed):
    """``reset(seed=...)`` of both vector envs is the engine's own reset, seeded so: the same
    first observations and masks, each opponent asked for the same decisions (once each, up
    to the learner's first move at every table), no more random numbers drawn (the engine's
    Generator, the per-game streams and the opponents' own Generators end alike)."""
    from agents.tables import make_engine
    from envs.vector import BatchedVectorEnv, seed_engine

    def engine_state(engine, opponent):
        core = getattr(engine, "core", engine)
        draws = getattr(core, "draws", None)
        streams = None
        if draws is not None:  # each game's Generator and where its buffer stands
            streams = ([g.bit_generator.state["state"] for g in draws.generators], draws._at)
        return core.rng.bit_generator.state["state"], streams, opponent.state()

    made = {}
    for kind in ("engine", "gymnasium", "sb3"):
        opponent = _Counting(game)
        options = {"n_players": 3, "opponents": opponent}
        if kind == "engine":
            engine, _, _ = make_engine(env_id, N, seed=0, **options)
            seed_engine(engine, seed)
            engine.reset()
            obs, mask = engine.observe(), engine.action_masks()
        elif kind == "gymnasium":
            vec = BatchedVectorEnv(env_id, N, **options)
            obs, info = vec.reset(seed=seed)
            engine, mask = vec.engine, info["action_mask"]
        elif isinstance(seed, int):  # SB3's VecEnv takes one int seed
            vec = BatchedVecEnv(env_id, N, **options)
            vec.seed(seed)
            obs = vec.reset()
            engine, mask = vec.engine, vec.action_masks()
        else:
            continue
        assert mask.any(axis=1).all()  # the learner is to move at every table
        made[kind] = (obs, mask, opponent.rows, engine_state(engine, opponent))
    reference = made.pop("engine")
    assert reference[2] > 0  # some opponent moved before the learner
    for kind, (obs, mask, rows, state) in made.items():
        assert np.array_equal(obs, reference[0]), kind
        assert np.array_equal(mask, reference[1]), kind
        assert rows == reference[2], kind
        assert repr(state) == repr(reference[3]), kind
