"""Yahtzee-v0 / YahtzeeClassic-v0: API checks, masks, illegal actions, rewards, random play."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from envs.rules.scorecard import (
    CLASSIC_ROWS,
    N_REROLL_ACTIONS,
    RUSSIAN_ROWS,
    Scorecard,
    ScorecardGame,
    total_bounds,
)
from envs.scorecard import YahtzeeEnv, decode_observation, obs_size, observe
from envs.spaces import LegalDiscrete

IDS = [("Yahtzee-v0", "russian", RUSSIAN_ROWS), ("YahtzeeClassic-v0", "classic", CLASSIC_ROWS)]


def masked_env(env_id: str, **kwargs) -> YahtzeeEnv:
    env = gym.make(env_id, **kwargs).unwrapped
    # the env's LegalDiscrete samples legal actions, which is what the checkers step with
    assert isinstance(env.action_space, LegalDiscrete)
    return env


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_gymnasium_check_env(env_id, rules, rows):
    env = masked_env(env_id)
    check_env(env, skip_render_check=True)
    assert env.action_space.n == 32 + len(rows)
    assert env.observation_space.shape == (obs_size(rules),) == (2 * len(rows) + 18,)


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_sb3_check_env(env_id, rules, rows):
    sb3_check_env(masked_env(env_id), warn=True)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rules": "german"}, ValueError, "rules must be"),
        ({"scratch": "sometimes"}, ValueError, "scratch must be"),
        ({"rules": "russian", "joker": "free"}, ValueError, "classic"),
        ({"rules": "classic", "scratch": "any"}, ValueError, "russian"),
        ({"rules": "classic", "joker": "wild"}, ValueError, "joker must be"),
        ({"reward_scale": 0}, ValueError, "reward_scale"),
        ({"reward_scale": "big"}, ValueError, "reward_scale"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
        ({"n_players": 2}, TypeError, "n_players"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        YahtzeeEnv(**kwargs)


def test_registered_ids_pass_their_rules():
    assert gym.make("Yahtzee-v0").unwrapped.rules.rules == "russian"
    env = gym.make("YahtzeeClassic-v0", joker="free", yahtzee_bonus=False).unwrapped
    assert (env.rules.rules, env.rules.joker, env.rules.yahtzee_bonus) == ("classic", "free", False)
    assert gym.make("Yahtzee-v0", scratch="any").unwrapped.rules.scratch == "any"


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_same_seed_same_trajectory(env_id, rules, rows):
    def play(seed):
        env = gym.make(env_id)
        agent = make_agent("random", game="yahtzee")
        agent.seed(7)
        obs, info = env.reset(seed=seed)
        out = [obs]
        done = False
        while not done:
            obs, r, done, _, info = env.step(agent.act(obs, info["action_mask"]))
            out += [obs, np.float32(r)]
        return np.concatenate([np.atleast_1d(x) for x in out])

    a, b, c = play(3), play(3), play(4)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_illegal_actions_raise_and_change_nothing(env_id, rules, rows):
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=11)
    mask = info["action_mask"]
    assert not mask[0]  # re-rolling nothing is never an action
    state = env.np_random.bit_generator.state
    for action in [0, -1, env.action_space.n, 2.0, True, *np.flatnonzero(~mask)]:
        with pytest.raises(ValueError, match="illegal action"):
            env.step(action)
        assert np.array_equal(env.unwrapped.action_masks(), mask)
        assert env.np_random.bit_generator.state == state
    np.testing.assert_array_equal(decode_observation(obs, rules)["dice"], env.game.dice)
    # after two re-rolls only rows remain
    env.step(31)
    env.step(31)
    mask = env.action_masks()
    assert not mask[:N_REROLL_ACTIONS].any() and mask[N_REROLL_ACTIONS:].any()
    with pytest.raises(ValueError, match="illegal action 5"):
        env.step(5)


def test_russian_mask_follows_stage_and_scratch():
    env = YahtzeeEnv()
    env.reset(seed=0)
    game = env.game
    # stage 1: exactly the six stage-1 rows, whatever the dice
    assert list(np.flatnonzero(env.action_masks()[N_REROLL_ACTIONS:])) == list(range(6))
    # stage 2 with a pair: only satisfied rows (pair, chance) may be filled
    card = Scorecard(game.rules, (0,) * 6 + (None,) * 11)
    game.card, game.dice, game._cache = card, (1, 1, 2, 3, 5), {}
    legal = [RUSSIAN_ROWS[k] for k in np.flatnonzero(env.action_masks()[N_REROLL_ACTIONS:])]
    assert legal == ["pair", "chance"]
    # filling right after the first roll doubles
    obs, reward, *_ = env.step(N_REROLL_ACTIONS + RUSSIAN_ROWS.index("pair"))
    assert reward == 4


def test_classic_mask_forced_joker():
    env = YahtzeeEnv(rules="classic")
    env.reset(seed=0)
    game = env.game
    scores = {"yahtzee": 50, "threes": 9}
    game.card = Scorecard(game.rules, tuple(scores.get(r) for r in CLASSIC_ROWS))
    game.dice, game._cache = (3, 3, 3, 3, 3), {}
    obs = decode_observation(observe(game), "classic")
    legal = [CLASSIC_ROWS[k] for k in np.flatnonzero(env.action_masks()[N_REROLL_ACTIONS:])]
    assert legal == [r for r in CLASSIC_ROWS[6:] if r != "yahtzee"]
    assert obs["joker"] == 1.0 and obs["yahtzee_scored"] == 1.0
    fp = obs["fill_points"]
    assert fp[CLASSIC_ROWS.index("large_straight")] == 40 + 100
    assert fp[CLASSIC_ROWS.index("ones")] == 0  # illegal under the forced joker
    _, reward, *_ = env.step(N_REROLL_ACTIONS + CLASSIC_ROWS.index("large_straight"))
    assert reward == 140


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_rewards_sum_to_total_and_obs_decodes(env_id, rules, rows, scale):
    env = gym.make(env_id, reward_scale=scale)
    agent = make_agent("random", game="yahtzee")
    agent.seed(1)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        ret, done, turns = 0.0, False, 0
        while not done:
            d = decode_observation(obs, rules)
            game = env.unwrapped.game
            assert tuple(d["dice"]) == game.dice
            assert d["face_counts"].sum() == 5
            assert d["rolls_used"] == game.rolls_used
            assert list(d["open_rows"]) == [s is None for s in game.card.scores]
            assert d["total"] == info["total"] == game.card.total
            expected = np.zeros(len(rows))
            for row, pts in game.fill_options().items():
                expected[rows.index(row)] = pts
            np.testing.assert_array_equal(d["fill_points"], expected)
            assert env.observation_space.contains(obs)
            action = agent.act(obs, info["action_mask"])
            predicted = d["fill_points"][action - 32] if action >= 32 else 0.0
            obs, r, done, trunc, info = env.step(action)
            assert not trunc
            assert r == pytest.approx(predicted * scale)
            ret += r
            turns += action >= 32
        assert turns == len(rows)
        assert ret == pytest.approx(info["total"] * scale)
        assert list(info["card"]) == list(rows) and None not in info["card"].values()
        assert not info["action_mask"].any()
        with pytest.raises(RuntimeError, match="over"):
            env.step(1)


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_render(env_id, rules, rows, capsys):
    env = gym.make(env_id, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "roll 1/3" in text and "2 left" in text
    for row in rows:
        assert row in text
    human = gym.make(env_id, render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "roll 1/3" in capsys.readouterr().out


# -- random play: 300 games through gym.make, 10,000 through the env's game engine --------


@pytest.mark.parametrize(("env_id", "rules", "rows"), IDS)
def test_random_agent_games_through_the_env(env_id, rules, rows):
    env = gym.make(env_id)
    agent = make_agent("random", game="yahtzee")
    agent.seed(0)
    lo, hi = total_bounds(rules)
    for seed in range(300):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, done, _, info = env.step(agent.act(obs, info["action_mask"]))
        assert lo <= info["total"] <= hi


@pytest.mark.heavy
@pytest.mark.parametrize("rules", ["russian", "classic"])
def test_ten_thousand_random_games(rules):
    """A uniformly random legal action each step, as RandomAgent, on the engine the env wraps.

    Driving ScorecardGame directly keeps 10,000 games fast; the env adds only the observation.
    """
    start = time.process_time()
    rng = np.random.default_rng(2024)
    lo, hi = total_bounds(rules)
    n_rows = len(RUSSIAN_ROWS if rules == "russian" else CLASSIC_ROWS)
    totals = np.empty(10_000)
    for g in range(10_000):
        game = ScorecardGame(rng, rules)
        gained = 0
        while not game.done:
            rerolls = 31 if game.rolls_used < 3 else 0
            legal = game.legal_rows()
            i = int(rng.random() * (rerolls + len(legal)))
            action = i + 1 if i < rerolls else 32 + game.rules.rows.index(legal[i - rerolls])
            gained += game.step(action)
        assert len(game.history) == n_rows
        assert gained == game.card.total
        totals[g] = gained
    assert lo <= totals.min() and totals.max() <= hi
    print(f"{rules}: 10,000 random games in {time.process_time() - start:.1f} s CPU")
