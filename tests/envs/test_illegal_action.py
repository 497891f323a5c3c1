"""``illegal_action`` ("raise" | "terminate" | "penalize") on every Gymnasium id and every
PettingZoo AEC env: rewards, episode ends, info, and chips still conserved at the pokers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test

import envs  # noqa: F401
from envs import games
from envs.multi import card_poker_v0, dice_poker_v0, yahtzee_v0

IDS = tuple(games.get(n).gym_id for n in games.names())
POKER_IDS = tuple(games.get(n).gym_id for n in games.of_kind("chips"))
AEC = (dice_poker_v0, yahtzee_v0, card_poker_v0)
FAST = {"opponents": "random"}  # the pokers' opponents: quick, and any seat order


def _make(env_id: str, **kwargs) -> gym.Env:
    extra = FAST if env_id in POKER_IDS else {}
    return gym.make(env_id, **extra, **kwargs)


def _illegal(mask: np.ndarray) -> int:
    """An illegal action: a masked-out one, else one past the last action."""
    out = np.flatnonzero(~np.asarray(mask, dtype=bool))
    return int(out[0]) if len(out) else len(mask)


def _legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _ledger(env: gym.Env) -> list[int] | None:
    """Every seat's net chips of the finished games (the pokers), else None."""
    m = getattr(env.unwrapped, "match", None)
    if m is None:
        return None
    return list(m.chips) if hasattr(m, "chips") else list(m.net)


def _stake(env: gym.Env) -> int:
    """The learner's chips in the pot of the game in play (0 in the scorecard games)."""
    u = env.unwrapped
    if getattr(u, "match", None) is None:
        return 0
    return u.match.game.stakes()[u.agent_seat]


# -- option checks -----------------------------------------------------------------------


BAD = [
    ({"illegal_action": "ignore"}, "illegal_action must be one of"),
    ({"illegal_action": None}, "illegal_action must be one of"),
    ({"illegal_penalty": "a lot"}, "illegal_penalty must be a finite number"),
    ({"illegal_penalty": float("nan")}, "illegal_penalty must be a finite number"),
    ({"illegal_penalty": True}, "illegal_penalty must be a finite number"),
    ({"max_illegal_steps": 0}, "max_illegal_steps must be"),
    ({"max_illegal_steps": 2.5}, "max_illegal_steps must be"),
]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize(("kwargs", "message"), BAD)
def test_bad_values_name_the_value_and_the_allowed_ones(env_id, kwargs, message):
    with pytest.raises(ValueError, match=message) as err:
        _make(env_id, **kwargs)
    assert repr(next(iter(kwargs.values()))) in str(err.value)
    if "illegal_action" in kwargs:
        assert "'raise', 'terminate', 'penalize'" in str(err.value)


@pytest.mark.parametrize("module", AEC)
def test_aec_bad_values(module):
    for kwargs, message in BAD:
        with pytest.raises(ValueError, match=message):
            module.env(**kwargs)


def test_registry_declares_the_options_of_every_game():
    for name in games.names():
        for key in games.ILLEGAL_OPTIONS:
            assert key in games.get(name).table_options
    assert games.illegal_actions() == games.IllegalActions("raise", -1.0, 100)
    assert games.ILLEGAL_OPTIONS["illegal_action"] == "raise"


# -- "raise", the default: unchanged -------------------------------------------------------


@pytest.mark.parametrize("env_id", IDS)
def test_raise_is_the_default_and_changes_nothing(env_id):
    for env in (_make(env_id), _make(env_id, illegal_action="raise")):
        obs, info = env.reset(seed=5)
        bad = _illegal(info["action_mask"])
        with pytest.raises(ValueError, match=f"illegal action {bad}"):
            env.step(bad)
        assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
        obs2, *_ = env.step(_legal(np.random.default_rng(0), info["action_mask"]))
        assert obs2.shape == obs.shape


# -- "terminate" ------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", IDS)
def test_terminate_ends_the_episode_with_the_penalty(env_id):
    rng = np.random.default_rng(1)
    env = _make(env_id, illegal_action="terminate", illegal_penalty=-7.5)
    seen_stakes = set()
    for episode in range(12):
        obs, info = env.reset(seed=100 + episode)
        total, done = 0.0, False
        for _ in range(int(rng.integers(0, 4))):  # some legal moves first
            obs, reward, done, trunc, info = env.step(_legal(rng, info["action_mask"]))
            total += reward
            assert "illegal_action" not in info and not trunc
            if done:
                break
        if done:
            continue
        stake = _stake(env)
        seen_stakes.add(stake)
        before = _ledger(env)
        obs2, reward, terminated, truncated, info = env.step(_illegal(info["action_mask"]))
        assert terminated and not truncated and info["illegal_action"] is True
        # the offender forfeits its stake in the game in play and pays the penalty
        assert reward == pytest.approx(-7.5 - stake)
        assert obs2.shape == obs.shape  # the dice or cards as they were; the chips forfeited
        assert not env.unwrapped.action_masks().any() and not info["action_mask"].any()
        after = _ledger(env)
        if after is not None:
            seat = env.unwrapped.agent_seat
            assert sum(after) == 0  # chips conserved
            assert after[seat] - before[seat] == -stake
            assert (info["chips"] if "chips" in info else info["net"]) == after[seat]
        with pytest.raises(RuntimeError, match="episode is over"):
            env.step(0)
    assert seen_stakes, "no episode reached an illegal step"
    # a new episode plays as usual
    _, info = env.reset(seed=0)
    env.step(_legal(rng, info["action_mask"]))


@pytest.mark.parametrize("env_id", ("Yahtzee-v0", "YahtzeeClassic-v0"))
def test_the_penalty_is_in_points_times_reward_scale(env_id):
    env = gym.make(env_id, reward_scale=0.01, illegal_action="terminate", illegal_penalty=-50)
    _, info = env.reset(seed=0)
    _, reward, terminated, _, _ = env.step(_illegal(info["action_mask"]))
    assert terminated and reward == pytest.approx(-0.5)


def test_card_poker_forfeit_of_bids_keeps_chips_conserved():
    """A bid, then an illegal action: the bid and the ante are lost, the others take their
    stakes back and share the forfeit."""
    env = gym.make(
        "CardPoker-v0", opponents="random", agent_seat=0, illegal_action="terminate"
    ).unwrapped
    rng = np.random.default_rng(3)
    for seed in range(40):
        _, info = env.reset(seed=seed)
        game = env.match.game
        while game.phase.name == "DRAW":  # draw, then bid the most we can
            _, _, done, _, info = env.step(0)
            if done:
                break
        if env.match.done or game.current_player != 0:
            continue
        bids = [a for a in np.flatnonzero(info["action_mask"]) if a >= 34]
        if not bids:
            continue
        _, _, done, _, info = env.step(int(bids[-1]))
        if done:
            continue
        stakes = game.stakes()
        _, reward, terminated, _, info = env.step(_illegal(info["action_mask"]))
        assert terminated and stakes[0] > 1
        assert reward == -1.0 - stakes[0]
        assert sum(env.match.net) == 0 and env.match.net[0] == -stakes[0]
        assert all(env.match.net[s] >= 0 for s in (1, 2))
        break
    else:
        pytest.fail("no deal reached a second decision of the learner")
    del rng


def test_forfeit_arithmetic():
    from envs.rules.seats import forfeit

    assert forfeit({0: 1, 1: 1, 2: 1}, 1, [0, 1, 2]) == {0: 0, 1: -1, 2: 1}
    assert forfeit({0: 5, 1: 9, 2: 1, 3: 2}, 1, [2, 3, 0, 1]) == {2: 3, 3: 3, 0: 3, 1: -9}
    assert sum(forfeit({0: 7, 1: 3}, 0, [0, 1]).values()) == 0


# -- "penalize" -------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", IDS)
def test_penalize_ignores_the_action_and_truncates_a_stuck_episode(env_id):
    rng = np.random.default_rng(2)
    env = _make(env_id, illegal_action="penalize", illegal_penalty=-2, max_illegal_steps=3)
    obs, info = env.reset(seed=7)
    ledger = _ledger(env)
    for _ in range(2):  # two in a row, then a legal move resets the count
        obs2, reward, terminated, truncated, info2 = env.step(_illegal(info["action_mask"]))
        assert reward == -2 and not terminated and not truncated and info2["illegal_action"]
        assert np.array_equal(obs2, obs) and np.array_equal(
            info2["action_mask"], info["action_mask"]
        )
        assert _ledger(env) == ledger
    obs, reward, done, truncated, info = env.step(_legal(rng, info["action_mask"]))
    assert "illegal_action" not in info
    while done:  # the episode ended on that move: start another
        obs, info = env.reset()
        done = False
    ledger = _ledger(env)
    for k in range(3):
        obs2, reward, terminated, truncated, info2 = env.step(_illegal(info["action_mask"]))
        assert reward == -2 and not terminated and truncated == (k == 2)
        assert np.array_equal(obs2, obs)
    assert not info2["action_mask"].any()
    assert _ledger(env) == ledger  # an unfinished game is not paid
    if ledger is not None:
        assert sum(ledger) == 0
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ("terminate", "penalize"))
def test_episode_statistics_count_the_penalties(env_id, mode):
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(_make(env_id, illegal_action=mode, max_illegal_steps=4))
    rng = np.random.default_rng(4)
    for episode in range(6):
        _, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            mask = info["action_mask"]
            a = _illegal(mask) if rng.random() < 0.3 else _legal(rng, mask)
            _, reward, terminated, truncated, info = env.step(a)
            total += reward
            done = terminated or truncated
        assert info["episode"]["r"] == pytest.approx(total, abs=1e-5)
    assert len(env.get_episode_rewards()) == 6


# -- the AEC envs -----------------------------------------------------------------------------


@pytest.mark.parametrize("module", AEC)
@pytest.mark.parametrize("mode", ("raise", "terminate", "penalize"))
def test_aec_api_holds_in_every_mode(module, mode):
    api_test(module.env(illegal_action=mode), num_cycles=30)


@pytest.mark.parametrize("module", AEC)
def test_aec_raise_is_the_default(module):
    env = module.env()
    env.reset(seed=0)
    obs, *_ = env.last()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(_illegal(obs["action_mask"]))


def _aec_play(env, rng, moves):
    """Up to ``moves`` legal moves; False when the game ended."""
    for _ in range(moves):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return False
        env.step(_legal(rng, obs["action_mask"].astype(bool)))
    obs, _, term, trunc, _ = env.last()
    return not (term or trunc)


@pytest.mark.parametrize("module", AEC)
def test_aec_terminate(module):
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(10):
        env = module.env(illegal_action="terminate", illegal_penalty=-3)
        env.reset(seed=seed)
        if not _aec_play(env, rng, int(rng.integers(0, 8))):
            continue
        raw = env.unwrapped
        agent = env.agent_selection
        seat = raw.possible_agents.index(agent)
        poker = hasattr(raw.match, "game")
        stakes = raw.match.game.stakes() if poker else None
        before = list(
            raw.match.chips if hasattr(raw.match, "chips") else getattr(raw.match, "net", [])
        )
        obs, *_ = env.last()
        env.step(_illegal(obs["action_mask"].astype(bool)))
        assert all(env.terminations.values())
        assert env.infos[agent]["illegal_action"] is True
        if poker:
            assert env.rewards[agent] == -3 - stakes[seat]
            # chips: the others take their stakes back and share the forfeit
            assert sum(env.rewards.values()) == -3
            after = list(raw.match.chips if hasattr(raw.match, "chips") else raw.match.net)
            assert sum(after) == 0 and after[seat] - before[seat] == -stakes[seat]
        else:
            assert env.rewards[agent] == -3 and sum(env.rewards.values()) == -3
        for other in env.agents:
            o, *_ = env.last() if other == env.agent_selection else (env.observe(other),)
            assert not o["action_mask"].any()
        while env.agents:  # every agent steps out as PettingZoo expects
            env.step(None)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("module", AEC)
def test_aec_penalize(module):
    env = module.env(illegal_action="penalize", illegal_penalty=-2, max_illegal_steps=3)
    env.reset(seed=1)
    agent = env.agent_selection
    obs, *_ = env.last()
    for k in range(3):
        env.step(_illegal(obs["action_mask"].astype(bool)))
        assert env.agent_selection == agent  # still to act
        assert env.rewards[agent] == -2 and env.infos[agent]["illegal_action"]
        assert sum(env.rewards.values()) == -2
        assert all(env.truncations.values()) == (k == 2)
        assert not any(env.terminations.values())
        if k < 2:
            obs2, *_ = env.last()
            assert np.array_equal(obs2["observation"], obs["observation"])
    while env.agents:
        env.step(None)


def test_aec_yahtzee_penalty_is_scaled():
    env = yahtzee_v0.env(reward="points", reward_scale=0.1, illegal_action="penalize")
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(_illegal(obs["action_mask"].astype(bool)))
    assert env.rewards["player_0"] == pytest.approx(-0.1)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ("terminate", "penalize"))
def test_the_checkers_pass_in_every_mode(env_id, mode):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    check_env(_make(env_id, illegal_action=mode).unwrapped, skip_render_check=True)
    sb3_check_env(_make(env_id, illegal_action=mode), warn=False)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("DicePoker-v0", {"episode": "circle"}),
        ("CardPoker-v0", {"episode": "session", "max_deals": 5}),
    ],
)
def test_a_series_returns_its_chips_plus_the_penalty(env_id, kwargs):
    """Over a circle or a session ended by an illegal action, the episode's return is the
    learner's net chips (earlier games included) plus the one penalty; chips sum to zero."""
    rng = np.random.default_rng(0)
    env = gym.make(env_id, illegal_action="terminate", opponents="random", **kwargs)
    ended_illegally = 0
    for episode in range(20):
        _, info = env.reset(seed=episode)
        total, done, k = 0.0, False, 0
        patience = int(rng.integers(1, 15))
        while not done:
            mask = info["action_mask"]
            k += 1
            a = _illegal(mask) if k > patience and (~mask).any() else _legal(rng, mask)
            _, reward, done, _, info = env.step(a)
            total += reward
        ledger = _ledger(env)
        penalty = -1.0 if info.get("illegal_action") else 0.0
        ended_illegally += penalty != 0
        assert sum(ledger) == 0
        assert total == pytest.approx(ledger[env.unwrapped.agent_seat] + penalty)
    assert ended_illegally > 0
