"""``reset(seed=[...])`` of the batched vector envs seeds game ``i`` with ``seed[i]``, as
Gymnasium's vector envs seed sub-env ``i`` (issue 27, defect 7): a game's episodes depend
only on its seed and its own actions, not on the other games or the batch size."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from envs.batched.draws import GameDraws, RowGenerator

CASES = [
    ("YahtzeeClassic-v0", {}),
    ("Yahtzee-v0", {}),
    ("DicePoker-v0", {}),  # heuristic opponents, random learner seat, seating roll
    ("DicePoker-v0", {"n_players": 4, "opponents": "random", "episode": "circle"}),
    ("DicePoker6-v0", {"opponents": ["optimal", "random"], "illegal_action": "penalize"}),
    ("CardPoker-v0", {}),  # careful opponents (Monte Carlo draws), random learner seat
    ("CardPoker-v0", {"n_players": 4, "opponents": ["random", "quick", "bluffer"]}),
    ("CardPoker-v0", {"episode": "session", "max_deals": 4, "illegal_action": "terminate"}),
]
STEPS = 80


def _play(env_id, kwargs, seeds, watch, steps=STEPS):
    """Game ``watch``'s trajectory in a batch seeded ``seeds``; every game's actions come
    from a Generator of its own seed (so they depend on nothing else either)."""
    vec = gym.make_vec(
        env_id, num_envs=len(seeds), vectorization_mode="vector_entry_point", **kwargs
    )
    pick = [np.random.default_rng([7, s]) for s in seeds]
    obs, info = vec.reset(seed=list(seeds))
    illegal_too = kwargs.get("illegal_action", "raise") != "raise"
    seen = [obs[watch].copy()]
    for _ in range(steps):
        masks = info["action_mask"]
        actions = np.array(
            [
                r.integers(masks.shape[1])
                if illegal_too and r.random() < 0.2
                else r.choice(np.flatnonzero(m))
                for r, m in zip(pick, masks, strict=True)
            ]
        )
        obs, reward, terminated, truncated, info = vec.step(actions)
        seen += [obs[watch].copy(), reward[watch], terminated[watch], truncated[watch]]
    return seen


def _same(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("env_id", "kwargs"), CASES)
def test_game_i_depends_only_on_seed_i_and_its_own_actions(env_id, kwargs):
    alone = _play(env_id, kwargs, [21], 0)
    assert _same(alone, _play(env_id, kwargs, [5, 21, 9], 1))  # another place, other games
    assert _same(alone, _play(env_id, kwargs, [21, 3], 0))  # another batch size
    assert _same(alone, _play(env_id, kwargs, [8, 1, 4, 21], 3))
    assert not _same(alone, _play(env_id, kwargs, [22], 0))  # another seed, another game


def test_a_none_in_the_list_keeps_that_games_stream():
    kw = {"num_envs": 3, "vectorization_mode": "vector_entry_point"}
    vec = gym.make_vec("YahtzeeClassic-v0", **kw)
    vec.reset(seed=[1, 2, 3])
    vec.reset(seed=[1, None, 3])  # game 1 goes on drawing from seed 2's stream
    kept = vec.reset(seed=[1, None, 3])[0]
    other = gym.make_vec("YahtzeeClassic-v0", **kw)
    fresh = other.reset(seed=[1, 2, 3])[0]
    np.testing.assert_array_equal(kept[[0, 2]], fresh[[0, 2]])
    assert not np.array_equal(kept[1], fresh[1])  # its third first roll, not its first
    third = [other.reset(seed=[1, None, 3])[0] for _ in range(2)][-1]
    np.testing.assert_array_equal(kept, third)


def test_an_int_seed_returns_to_the_one_generator():
    kw = {"num_envs": 4, "vectorization_mode": "vector_entry_point"}
    a, b = gym.make_vec("DicePoker-v0", **kw), gym.make_vec("DicePoker-v0", **kw)
    a.reset(seed=[1, 2, 3, 4])
    np.testing.assert_array_equal(a.reset(seed=9)[0], b.reset(seed=9)[0])
    assert a.engine.draws is None


@pytest.mark.parametrize(
    ("seed", "says"),
    [
        ([1, 2], "seed lists 2 seeds for 3 games; give 3, or one int"),
        ([1, 2, 3, 4], "seed lists 4 seeds for 3 games"),
        ([1, 2.0, 3], r"got \[1, 2.0, 3\] \(e.g. 2.0\)"),
        ([1, True, 3], r"\(e.g. True\)"),
        ([1, "2", 3], r"\(e.g. '2'\)"),
        ([1, -2, 3], r"\(e.g. -2\)"),
        (True, "seed must be None, a whole number >= 0 or a list of 3 of them, got True"),
        (2.5, "got 2.5"),
        ("7", "got '7'"),
        (-1, "got -1"),
    ],
)
def test_bad_seeds_are_one_clear_error_and_change_nothing(seed, says):
    vec = gym.make_vec("CardPoker-v0", num_envs=3, vectorization_mode="vector_entry_point")
    obs, _ = vec.reset(seed=[4, 5, 6])
    draws = vec.engine.draws
    with pytest.raises(ValueError, match=says):
        vec.reset(seed=seed)
    assert vec.engine.draws is draws  # nothing half-done
    np.testing.assert_array_equal(vec.reset(seed=[4, 5, 6])[0], obs)


def test_row_generator_reads_the_leading_axis_as_the_games():
    one = GameDraws([5, 6, 7])
    rows = RowGenerator(one, np.array([2, 0]), np.random.default_rng(0))
    u = rows.random((4, 3))  # two draws of 3 per game, games 2 then 0
    alone = GameDraws([7]).uniform(np.array([0]), 6)[0]
    np.testing.assert_array_equal(u[:2].ravel(), alone)
    picks = rows.integers(0, np.array([3, 1000]))
    assert picks.shape == (2,) and picks[0] < 3
    later = GameDraws([7]).uniform(np.array([0]), 8)[0, 7]  # game 2 drew 6, then 1
    assert rows.at([0]).random(1)[0] == later
    with pytest.warns(RuntimeWarning, match=r"shape \(3,\) while asked for 2 games"):
        fallback = rows.random(3)  # not rows first: from the opponent's own Generator
    np.testing.assert_array_equal(fallback, np.random.default_rng(0).random(3))


def _draw_state(vec):
    """Everything a list-seeded env's games draw from: each stream's Generator state, buffer
    and place in it, and the engine's (and so the opponents') own Generator."""
    d = vec.engine.draws
    return (
        [g.bit_generator.state for g in d.generators],
        d._buf.copy(),
        d._at.copy(),
        vec.engine.rng.bit_generator.state,
    )


def _same_state(a, b) -> bool:
    return (
        a[0] == b[0]
        and np.array_equal(a[1], b[1])
        and np.array_equal(a[2], b[2])
        and (a[3] == b[3])
    )


def test_earlier_refused_calls_in_the_process_do_not_change_a_game():
    """The sequence of the harden h7 script (a BatchedVecEnv, a refused set_attr, a refused
    render_mode, refused seeds), then game 1 of [1, 2, 3] against the same game alone."""
    from agents.tables import BatchedVecEnv

    kw = {"vectorization_mode": "vector_entry_point"}
    v = BatchedVecEnv("DicePoker-v0", 3, seed=0)
    with pytest.raises(ValueError, match="set_attr"):
        v.set_attr("x", 1, indices=[0])
    with pytest.raises(ValueError, match="render_mode"):
        gym.make_vec("DicePoker-v0", num_envs=2, render_mode="rgb_array", **kw)
    g = gym.make_vec("DicePoker-v0", num_envs=3, **kw)
    for bad in (True, [1, 2]):
        with pytest.raises(ValueError):
            g.reset(seed=bad)
    in_batch = g.reset(seed=[1, 2, 3])[0][1]
    alone = gym.make_vec("DicePoker-v0", num_envs=1, **kw).reset(seed=[2])[0][0]
    np.testing.assert_array_equal(in_batch, alone)
    assert _same(_play("DicePoker-v0", {}, [1, 2, 3], 1, 40), _play("DicePoker-v0", {}, [2], 0, 40))


@pytest.mark.parametrize("env_id", ["YahtzeeClassic-v0", "DicePoker-v0", "CardPoker-v0"])
def test_a_refused_call_leaves_the_draws_untouched(env_id):
    """A bad seed, a refused set_attr and an illegal action under "raise" draw nothing: the
    games then play on as those of an env that never saw the refused calls."""
    kw = {"num_envs": 3, "vectorization_mode": "vector_entry_point"}
    a, b = gym.make_vec(env_id, **kw), gym.make_vec(env_id, **kw)
    obs, info = a.reset(seed=[4, 5, 6])
    b.reset(seed=[4, 5, 6])
    rng = np.random.default_rng(3)
    for _ in range(3):  # into the games, so the buffers are part used
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        a.step(acts)
        obs, _, _, _, info = b.step(acts)
    before = _draw_state(a)
    for bad in ([1, 2], True, [1, -2, 3]):
        with pytest.raises(ValueError):
            a.reset(seed=bad)
    masks = info["action_mask"]
    illegal = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    bad_game = int(np.flatnonzero((~masks).any(axis=1))[0])
    illegal[bad_game] = int(np.flatnonzero(~masks[bad_game])[0])
    with pytest.raises(ValueError):
        a.step(illegal)
    assert _same_state(before, _draw_state(a))
    for _ in range(20):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        oa = a.step(acts)
        ob = b.step(acts)
        info = ob[4]
        for x, y in zip(oa[:4], ob[:4], strict=True):
            np.testing.assert_array_equal(x, y)


def test_a_refused_set_attr_draws_nothing():
    from agents.tables import BatchedVecEnv

    a, b = BatchedVecEnv("DicePoker-v0", 3, seed=0), BatchedVecEnv("DicePoker-v0", 3, seed=0)
    a.reset(), b.reset()
    state = a.engine.rng.bit_generator.state
    with pytest.raises(ValueError, match="set_attr"):
        a.set_attr("x", 1, indices=[0])
    assert a.engine.rng.bit_generator.state == state
    acts = np.array([np.flatnonzero(m)[0] for m in a.action_masks()])
    a.step_async(acts), b.step_async(acts)
    for x, y in zip(a.step_wait()[:3], b.step_wait()[:3], strict=True):
        np.testing.assert_array_equal(x, y)
