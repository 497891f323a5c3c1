"""Every id and documented variant against the checkers of Gymnasium, SB3 and PettingZoo;
integer-like actions (SB3's 0-d arrays) everywhere; copies that sample from their own
state; and a time-bounded fuzz over every env and variant."""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, render_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import envs  # noqa: F401  (registers the ids)
from envs.multi import card_poker_v0, dice_poker_v0, yahtzee_v0

# The documented options of every id (README, the env docstrings), each one set at least once.
GYM_VARIANTS = [
    ("DicePoker-v0", {}),
    ("DicePoker-v0", {"n_players": 2, "lock_kept_dice": False, "full_house_tiebreak": "triple"}),
    ("DicePoker-v0", {"n_players": 6, "episode": "circle", "two_pairs_tiebreak": "high_pair"}),
    ("DicePoker-v0", {"agent_seat": 0, "first_player": 2, "ante": 3, "opponents": "random"}),
    ("DicePoker-v0", {"n_players": 3, "opponents": ["optimal", "random"]}),
    ("DicePoker6-v0", {}),
    ("DicePoker6-v0", {"pyramid": "any", "six_dice_low_hands": False, "opponents": "random"}),
    ("DicePoker6-v0", {"n_players": 4, "agent_seat": 3, "first_player": 0, "pyramid": "ascending"}),
    ("CardPoker-v0", {}),
    ("CardPoker-v0", {"n_players": 2, "opponents": "random", "deck": 54, "draw_fee": 1}),
    ("CardPoker-v0", {"n_players": 4}),
    ("CardPoker-v0", {"n_players": 6, "agent_seat": 5, "episode": "session", "max_deals": 3}),
    ("CardPoker-v0", {"opponents": ["bluffer", "random"], "categories": "short"}),
    ("CardPoker-v0", {"joker_card": None, "swap_four_and_straight_flush": True, "agent_seat": 0}),
    ("CardPoker-v0", {"joker_card": "AS", "ace_low_straight": True, "stack": 20, "ante": 2}),
    ("CardPoker-v0", {"min_bid": 2, "max_bid": 5, "max_bids": 4, "opponents": "careful"}),
    ("CardPoker-v0", {"deck": 54, "joker_card": None, "episode": "session"}),
    ("Yahtzee-v0", {}),
    ("Yahtzee-v0", {"scratch": "any", "reward_scale": 0.01}),
    ("YahtzeeClassic-v0", {}),
    ("YahtzeeClassic-v0", {"joker": "free", "yahtzee_bonus": False}),
    ("YahtzeeClassic-v0", {"joker": "none", "reward_scale": 0.5}),
]
GYM_IDS = [f"{i}-{k}" for i, (_, k) in enumerate(GYM_VARIANTS)]

AEC_VARIANTS = [
    (dice_poker_v0, {}),
    (dice_poker_v0, {"n_players": 2, "episode": "circle", "lock_kept_dice": False}),
    (dice_poker_v0, {"n_dice": 6, "n_players": 4, "first_player": 1, "pyramid": "any"}),
    (card_poker_v0, {}),
    (card_poker_v0, {"n_players": 6, "deck": 54, "draw_fee": 1}),
    (card_poker_v0, {"n_players": 2, "episode": "session", "max_deals": 5, "stack": 10}),
    (yahtzee_v0, {}),
    (yahtzee_v0, {"n_players": 3, "rules": "classic", "joker": "free", "reward": "points"}),
]
AEC_IDS = [f"{m.__name__.split('.')[-1]}-{k}" for m, k in AEC_VARIANTS]


def quiet(fn, *args, **kwargs):
    """Run a checker without its printing (human render) and expected warnings."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- the checkers, unmodified ----------------------------------------------------------------------


@pytest.mark.parametrize("render_mode", [None, "ansi", "human"])
@pytest.mark.parametrize(("env_id", "kwargs"), GYM_VARIANTS, ids=GYM_IDS)
def test_gymnasium_check_env(env_id, kwargs, render_mode):
    env = gym.make(env_id, render_mode=render_mode, **kwargs)
    quiet(gym_check_env, env.unwrapped)  # render check included: every declared mode


@pytest.mark.parametrize(("env_id", "kwargs"), GYM_VARIANTS, ids=GYM_IDS)
def test_sb3_check_env(env_id, kwargs):
    quiet(sb3_check_env, gym.make(env_id, **kwargs).unwrapped, warn=True)


@pytest.mark.parametrize(("module", "kwargs"), AEC_VARIANTS, ids=AEC_IDS)
def test_pettingzoo_api_seed_render(module, kwargs):
    quiet(api_test, module.env(**kwargs), num_cycles=200)
    quiet(seed_test, lambda: module.env(**kwargs), num_cycles=100)
    quiet(render_test, lambda render_mode=None: module.env(render_mode=render_mode, **kwargs))


# -- integer-like actions ----------

INTEGER_LIKE = [
    ("int", int),
    ("np.int64", np.int64),
    ("np.uint8", np.uint8),
    ("np.int32", np.int32),
    ("0-d int64 array", lambda a: np.array(a)),
    ("0-d int16 array", lambda a: np.array(a, dtype=np.int16)),
]
NOT_ACTIONS = [
    True,
    False,
    np.True_,
    np.array(True),
    1.0,
    np.float32(1),
    np.array([1]),
    "1",
    None,
]


@pytest.mark.parametrize(("kind", "cast"), INTEGER_LIKE, ids=[k for k, _ in INTEGER_LIKE])
@pytest.mark.parametrize("env_id", sorted({i for i, _ in GYM_VARIANTS}))
def test_every_integer_like_action_is_accepted(env_id, kind, cast):
    a, b = gym.make(env_id), gym.make(env_id)
    (obs_a, info), _ = a.reset(seed=3), b.reset(seed=3)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        assert a.action_space.contains(cast(action))
        obs_a, _, done, _, info = a.step(cast(action))
        obs_b, *_ = b.step(action)
        np.testing.assert_array_equal(obs_a, obs_b)


@pytest.mark.parametrize("bad", NOT_ACTIONS, ids=repr)
@pytest.mark.parametrize("env_id", sorted({i for i, _ in GYM_VARIANTS}))
def test_booleans_and_non_integers_are_refused(env_id, bad):
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=1)
    legal = np.flatnonzero(info["action_mask"])
    before = env.render_text()
    with pytest.raises(ValueError, match=r"illegal action .*legal actions now are \[") as err:
        env.step(bad)
    assert str(list(map(int, legal)))[1:-1] in str(err.value)  # names the legal ones
    assert env.render_text() == before
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])


@pytest.mark.parametrize(("module", "kwargs"), AEC_VARIANTS[::3], ids=AEC_IDS[::3])
def test_aec_envs_take_arrays_and_refuse_booleans(module, kwargs):
    env = module.env(**kwargs)
    env.reset(seed=2)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        for bad in (True, False, np.array([legal[0]]), float(legal[0])):
            with pytest.raises(ValueError, match="illegal action"):
                env.step(bad)
            assert env.agent_selection == agent
        env.step(np.array(legal[steps % len(legal)]))  # a 0-d int64 array, as SB3 gives
        steps += 1
    assert steps > 0


@pytest.mark.parametrize("env_id", sorted({i for i, _ in GYM_VARIANTS}))
def test_maskable_ppo_predict_steps_the_env(env_id):
    """SB3's own inference loop: ``predict`` returns a 0-d int64 array."""
    from sb3_contrib import MaskablePPO

    env = gym.make(env_id)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu")
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done and steps < 60:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, _, done, _, info = env.step(action)
        steps += 1


# -- copies sample from their own state ------------------------------------------------------------


def _legal_share(env, n=300) -> float:
    mask = env.unwrapped.action_masks()
    return np.mean([mask[env.action_space.sample()] for _ in range(n)])


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("env_id", sorted({i for i, _ in GYM_VARIANTS}))
def test_copies_sample_legal_actions(env_id, how):
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=5)
    for _ in range(2):  # into the episode, where not every action is legal
        if not env.action_masks().any():
            break
        env.step(env.action_space.sample())
    if not env.action_masks().any():
        env.reset(seed=6)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert _legal_share(env) == 1.0
    assert _legal_share(twin) == 1.0
    np.testing.assert_array_equal(twin.action_masks(), env.action_masks())
    # the copy samples from its own state: play it on, the original stays where it was
    before = env.action_masks().copy()
    while twin.action_masks().any():
        twin.step(twin.action_space.sample())
    np.testing.assert_array_equal(env.action_masks(), before)


def test_a_saved_space_pickles_without_its_env():
    env = gym.make("CardPoker-v0").unwrapped
    space = pickle.loads(pickle.dumps(env.action_space))
    assert type(space) is gym.spaces.Discrete and space.n == env.action_space.n


@pytest.mark.parametrize(("module", "kwargs"), AEC_VARIANTS[::2], ids=AEC_IDS[::2])
def test_a_deep_copied_aec_env_keeps_its_state(module, kwargs):
    env = module.raw_env(**kwargs)
    env.reset(seed=4)
    for _ in range(3):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
    twin = copy.deepcopy(env)
    assert twin.agent_selection == env.agent_selection
    for agent in env.agents:
        np.testing.assert_array_equal(
            twin.observe(agent)["observation"], env.observe(agent)["observation"]
        )
        np.testing.assert_array_equal(
            twin.observe(agent)["action_mask"], env.observe(agent)["action_mask"]
        )
    assert twin.render_text() == env.render_text()
    # and the copy plays on from there by itself, with the same dice or cards
    a = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1])
    env.step(a)
    twin.step(a)
    assert twin.render_text() == env.render_text()


# -- fuzz ------------------------------------------------------------------------------------------

FUZZ_STEPS = 60  # per id, variant and AEC env: whole episodes until at least this many steps


def _fuzz_action(rng: np.random.Generator, mask: np.ndarray):
    """A random legal action in a random integer-like form (SB3's 0-d array most often)."""
    a = int(rng.choice(np.flatnonzero(mask)))
    form = rng.integers(4)
    return [np.array(a), np.int64(a), a, np.array(a, dtype=np.int32)][form]


def test_fuzz_every_env_and_variant():
    """Random legal actions, in every integer-like form, on every id, variant and AEC env,
    whole episodes until each has played ``FUZZ_STEPS`` steps (a count, not a clock, so a
    loaded machine plays the same steps); an illegal action is refused with the state
    untouched."""
    rng = np.random.default_rng(2024)
    played = 0
    for env_id, kwargs in GYM_VARIANTS:
        env = gym.make(env_id, **kwargs).unwrapped
        start = played
        while played - start < FUZZ_STEPS:
            obs, info = env.reset(seed=int(rng.integers(2**31)))
            done = False
            while not done:
                mask = info["action_mask"]
                assert env.observation_space.contains(obs), (env_id, kwargs)
                illegal = np.flatnonzero(~mask)
                if illegal.size and rng.random() < 0.1:
                    text = env.render_text()
                    with pytest.raises(ValueError, match="illegal action"):
                        env.step(np.array(rng.choice(illegal)))
                    assert env.render_text() == text
                sampled = env.action_space.sample()
                assert mask[sampled], (env_id, kwargs, sampled)
                obs, reward, done, truncated, info = env.step(_fuzz_action(rng, mask))
                assert np.isfinite(reward) and not truncated
                played += 1
    for module, kwargs in AEC_VARIANTS:
        env = module.env(**kwargs)
        start = played
        while played - start < FUZZ_STEPS:
            env.reset(seed=int(rng.integers(2**31)))
            total = 0.0
            for _agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                total += reward
                if term or trunc:
                    env.step(None)
                    continue
                env.step(_fuzz_action(rng, obs["action_mask"].astype(bool)))
                played += 1
            if module is not yahtzee_v0 or kwargs.get("reward") != "points":
                assert abs(total) < 1e-9, (module.__name__, kwargs, total)  # zero-sum
    assert played >= FUZZ_STEPS * (len(GYM_VARIANTS) + len(AEC_VARIANTS))
