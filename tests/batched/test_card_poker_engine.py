"""The batched card poker engine: seeding, bad input, memory, the single-agent table,
the batched opponents and the Gymnasium / SB3 wrappers."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.heuristic.card_poker_batch import CardPokerQuick
from agents.tables import BatchedVecEnv, make_engine, play_games
from envs.batched.card_poker import BatchedCardPoker, BatchedCardPokerTable
from envs.rules.card_poker import CardPokerRules
from envs.vector import BatchedVectorEnv


def random_actions(rng, mask):
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def play(engine: BatchedCardPoker, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    engine.reset()
    trace = []
    for _ in range(steps):
        obs, mask = engine.observe(), engine.action_masks()
        actions = random_actions(rng, mask)
        paid = engine.step(actions)
        trace.append((obs.tobytes(), actions.tobytes(), paid.tobytes()))
        done = engine.done
        if done.any():
            engine.reset(done)
    return trace


@pytest.mark.parametrize("n", [1, 7, 64])
def test_same_seed_and_n_same_trajectories(n):
    def make(seed):
        rules = CardPokerRules(deck=54)
        return BatchedCardPoker(n, rules, seed=seed, n_players=6, episode="session", max_deals=4)

    assert play(make(3), 60, 0) == play(make(3), 60, 0)
    assert play(make(3), 60, 0) != play(make(4), 60, 0)


def test_same_seed_same_single_agent_trajectories():
    def run(seed):
        vec = BatchedVecEnv("CardPoker-v0", 32, opponents=["random", "quick"], agent_seat="random")
        vec.seed(seed)
        obs = vec.reset()
        rng = np.random.default_rng(0)
        trace = [obs.tobytes()]
        for _ in range(40):
            obs, rewards, dones, infos = vec.step(random_actions(rng, vec.action_masks()))
            trace.append((obs.tobytes(), rewards.tobytes(), dones.tobytes()))
        return trace

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_state_is_at_most_two_kilobytes_per_table():
    big = BatchedCardPoker(10, CardPokerRules(deck=54), n_players=6)
    assert big.state_bytes() <= 2048
    assert BatchedCardPoker(10).state_bytes() <= big.state_bytes()


# -- bad input ----------------------------------------------------------------------------


def snapshot(engine):
    return [getattr(engine, name).copy() for name in engine.STATE]


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(4, dtype=np.int64), r"shape \(5,\)"),
        (np.zeros((5, 1), dtype=np.int64), r"shape \(5,\)"),
        (np.zeros(5, dtype=np.float64), "integer array"),
        (np.zeros(5, dtype=bool), "integer array"),
        ([0, 0, 0, 0, 0.5], "integer array"),
    ],
)
def test_bad_action_batches(actions, message):
    engine = BatchedCardPoker(5, seed=0)
    engine.reset()
    before = snapshot(engine)
    with pytest.raises(ValueError, match=message):
        engine.step(actions)
    assert same(before, snapshot(engine))


def test_an_illegal_action_in_any_table_names_it_and_nothing_moves():
    engine = BatchedCardPoker(6, CardPokerRules(draw_fee=30, stack=40), seed=0)
    engine.reset()
    before = snapshot(engine)
    actions = np.zeros(6, dtype=np.int64)
    actions[4] = 0b11111  # five cards cost 150 chips: not affordable
    with pytest.raises(
        ValueError,
        match=r"illegal action 31 at table 4 \(seat 0 to act\); "
        r"legal actions there are \[0, 1, 2, 4, 8, 16\] \(no table was advanced\)",
    ):
        engine.step(actions)
    assert same(before, snapshot(engine))
    actions[4] = 99
    with pytest.raises(ValueError, match="illegal action 99 at table 4"):
        engine.step(actions)
    engine.step(np.zeros(6, dtype=np.int64))  # and then the tables play on
    assert engine.to_act.tolist() == [1] * 6


def test_a_finished_table_takes_no_action():
    engine = BatchedCardPoker(2, n_players=2, seed=0)
    engine.reset()
    for _ in range(2):
        engine.step(np.zeros(2, dtype=np.int64))  # both draw nothing
    engine.step(np.array([33, 32]))  # reveal at table 0, pass at table 1: both deals end
    assert engine.done.all() and engine.to_act.tolist() == [-1, -1]
    assert not engine.action_masks().any()
    with pytest.raises(
        ValueError,
        match=r"at table 0 \(the match is over\); legal actions "
        r"there are \[\]",
    ):
        engine.step(np.zeros(2, dtype=np.int64))
    engine.step_some(np.zeros(2, dtype=np.int64), np.zeros(2, dtype=bool))  # nothing to do


@pytest.mark.parametrize(
    ("chance", "message"),
    [
        (np.zeros((3, 35), dtype=np.int64), r"shape \(3, 36\)"),
        (np.tile(np.arange(36.0), (3, 1)), "integer array"),
        (np.tile(np.arange(36), (3, 1)) * np.array([[1], [1], [0]]), r"chance\[2\] is not a perm"),
        (np.tile(np.arange(1, 37), (3, 1)), r"chance\[0\] is not a permutation .* 0..35"),
    ],
)
def test_bad_chance(chance, message):
    engine = BatchedCardPoker(3, seed=0)
    engine.reset()
    before = snapshot(engine)
    with pytest.raises(ValueError, match=message):
        engine.step(np.zeros(3, dtype=np.int64), chance)
    with pytest.raises(ValueError, match=message):
        engine.reset(chance=chance)
    assert same(before, snapshot(engine))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "integer >= 1"),
        ({"n": 2.0}, "integer >= 1"),
        ({"n": True}, "integer >= 1"),
        ({"n_players": 7}, "2-6 players"),
        ({"n_players": 1}, "2-6 players"),
        ({"episode": "match"}, "'deal' or 'session'"),
        ({"max_deals": 0}, "max_deals"),
        ({"first": 3}, "first must be a seat 0..2"),
        ({"rules": {"deck": 54}}, "CardPokerRules"),
    ],
)
def test_bad_engine_options(kwargs, message):
    kwargs = {"n": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        BatchedCardPoker(**kwargs)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: make_engine("CardPoker-v0", 0), ValueError, "num_envs must be an integer >= 1"),
        (
            lambda: gym.make_vec(
                "CardPoker-v0", num_envs=0, vectorization_mode="vector_entry_point"
            ),
            ValueError,
            "num_envs",
        ),
        (lambda: BatchedVecEnv("CardPoker-v0", -1), ValueError, "num_envs"),
        (lambda: make_engine("CardPoker-v0", 2, first_player=1), TypeError, r"\['first_player'\]"),
        (lambda: make_engine("CardPoker-v0", 2, decks=36), TypeError, r"\['decks'\]"),
        (lambda: make_engine("CardPoker-v0", 2, deck=37), ValueError, "deck must be 36 or 54"),
        (lambda: make_engine("CardPoker-v0", 2, opponents="nobody"), ValueError, "unknown agent"),
        (
            lambda: make_engine("CardPoker-v0", 2, opponents=["random"]),
            ValueError,
            "opponents lists 1 policies but 3 players need 2",
        ),
        (lambda: make_engine("CardPoker-v0", 2, agent_seat=3), ValueError, "agent_seat"),
        (lambda: make_engine("CardPoker-v0", 2, opponents=5), ValueError, "an opponent is"),
    ],
)
def test_bad_vector_options(make, error, message):
    with pytest.raises(error, match=message):
        make()


# -- the single-agent table ------------------------------------------------------------


def test_single_agent_table_seats_the_opponents_by_seat():
    """Each opponent policy is asked only for its own seat, sees that seat's observation
    and mask; the learner is to act whenever a table runs; its rewards are its chips."""
    n, p = 200, 4
    rules = CardPokerRules()
    quick = CardPokerQuick(**{})
    asked: list[list[tuple]] = [[] for _ in range(p - 1)]
    table: BatchedCardPokerTable

    def policy(j):
        def act(obs, masks):
            core = table.core
            t = np.flatnonzero(~core.over & (core.to_act != table.agent_seat))
            seat = core.to_act[t].astype(np.int64)
            mine = t[(seat - (seat > table.agent_seat[t])) == j]
            np.testing.assert_array_equal(obs, core.observe(core.to_act[mine], mine))
            np.testing.assert_array_equal(masks, core.action_masks(mine))
            asked[j].append(tuple(core.to_act[mine]))
            return quick.act_batch(obs, masks)

        return act

    table = BatchedCardPokerTable(
        n,
        rules,
        seed=1,
        n_players=p,
        opponents=[policy(j) for j in range(p - 1)],
        episode="session",
        max_deals=3,
    )
    table.reset()
    rng = np.random.default_rng(0)
    totals = np.zeros(n, dtype=np.int64)
    finished = np.zeros(n, dtype=bool)
    while not finished.all():
        live = ~table.done
        assert (table.core.to_act[live] == table.agent_seat[live]).all()
        np.testing.assert_array_equal(table.observe(), table.core.observe(table.agent_seat))
        mask = table.action_masks()
        assert not mask[~live].any()
        totals += table.step_some(random_actions(rng, mask), live)
        finished |= table.done
    np.testing.assert_array_equal(totals, table.core.net[np.arange(n), table.agent_seat])
    assert np.bincount(table.agent_seat, minlength=p).min() > 20  # seats drawn per table
    for j in range(p - 1):
        seats = {s for call in asked[j] for s in call}
        assert seats and all(0 <= s < p for s in seats)


def test_play_games_and_gym_make_vec():
    totals = play_games(CardPokerQuick().act_batch, "CardPoker-v0", 300, seed=0, opponents="random")
    assert totals.shape == (300,) and totals.mean() > 0  # beats random players
    assert totals.sum() != 0
    vec = gym.make_vec(
        "CardPoker-v0",
        num_envs=16,
        vectorization_mode="vector_entry_point",
        n_players=5,
        deck=54,
        opponents="quick",
        episode="session",
        max_deals=2,
    )
    assert isinstance(vec, BatchedVectorEnv)
    obs, info = vec.reset(seed=0)
    assert obs.shape == (16, 54 + 13 + 25) and obs.shape[1:] == vec.single_observation_space.shape
    assert vec.single_observation_space.contains(obs[0])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        obs, rewards, term, trunc, info = vec.step(random_actions(rng, info["action_mask"]))
        assert info["action_mask"].any(axis=1).all()  # finished tables restart at once
        ended += int(term.sum())
        for g in np.flatnonzero(term):
            assert info["final_obs"][g].shape == obs[g].shape
    assert ended > 0


# -- batched opponents ---------------------------------------------------------------------


def sample_observations(n_players, rules_kw, steps=40, n=64, seed=0):
    engine = BatchedCardPoker(
        n,
        CardPokerRules(**rules_kw),
        seed=seed,
        n_players=n_players,
        episode="session",
        max_deals=5,
    )
    rng = np.random.default_rng(seed)
    engine.reset()
    obs, masks = [], []
    for _ in range(steps):
        obs.append(engine.observe())
        masks.append(engine.action_masks())
        engine.step(random_actions(rng, masks[-1]))
        done = engine.done
        if done.any():
            engine.reset(done)
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize(
    ("n_players", "rules"),
    [(3, {}), (6, {"deck": 54}), (2, {"categories": "short", "draw_fee": 1, "stack": 6})],
)
def test_quick_bets_as_careful_does_and_draws_legally(n_players, rules):
    obs, masks = sample_observations(n_players, rules)
    quick = CardPokerQuick(**rules)
    careful = make_agent("careful", "card_poker", **rules)
    chosen = quick.act_batch(obs, masks)
    assert masks[np.arange(len(obs)), chosen].all()
    n_cards = 54 if rules.get("deck") == 54 else 36
    betting = obs[:, n_cards + 1] == 1  # phase: draw, bet, over
    assert betting.sum() > 100
    for o, m, a in zip(obs[betting], masks[betting], chosen[betting], strict=True):
        assert careful.act(o, m) == a
    for o, m, a in zip(obs[:50], masks[:50], chosen[:50], strict=True):
        assert quick.act(o, m) == a  # one at a time as in a batch


@pytest.mark.parametrize(
    ("n_players", "rules"),
    [(3, {}), (6, {"deck": 54}), (2, {"categories": "short", "draw_fee": 1, "stack": 6})],
)
def test_quick_table_policy_is_act_batch_on_the_tables_state(n_players, rules):
    """The shortcut past the observation chooses what act_batch chooses on the observation
    of every seat to move, over sessions of random play (draws and bets alike)."""
    engine = BatchedCardPoker(
        64, CardPokerRules(**rules), seed=1, n_players=n_players, episode="session"
    )
    quick = CardPokerQuick(**rules)
    act = quick.table_policy(engine)
    rng = np.random.default_rng(1)
    engine.reset()
    phases = set()
    for _ in range(60):
        t = np.flatnonzero(~engine.done)
        seats = engine.to_act[t].astype(np.int64)
        want = quick.act_batch(engine.observe(seats, t), engine.action_masks(t))
        np.testing.assert_array_equal(act(t, seats), want)
        phases |= set(engine.phase[t].tolist())
        engine.step(random_actions(rng, engine.action_masks()))
        engine.reset(engine.done)
    assert phases == {0, 1}
    assert CardPokerQuick(deck=54 if rules.get("deck") != 54 else 36).table_policy(engine) is None


def test_quick_draws_keep_what_is_made():
    rules = CardPokerRules()
    deck = rules.deck_cards
    engine = BatchedCardPoker(1, rules, n_players=2)

    def draw_for(cards):
        order = deck.indices(cards) + [c for c in range(36) if c not in deck.indices(cards)]
        engine.reset(chance=np.array([order]))
        return int(CardPokerQuick().act_batch(engine.observe(), engine.action_masks())[0])

    hand = sorted(deck.indices("9S 9H KD 7C 8D"))  # a pair of nines: keep them
    out = draw_for("9S 9H KD 7C 8D")
    kept = {hand[i] for i in range(5) if not out >> i & 1}
    assert kept == set(deck.indices("9S 9H"))
    assert draw_for("TS JH QD KC AD") == 0  # a straight stands pat
    hand = sorted(deck.indices("7H 9H JH KH AS"))  # four hearts, nothing paired
    out = draw_for("7H 9H JH KH AS")
    assert [hand[i] for i in range(5) if out >> i & 1] == deck.indices("AS")


def test_random_batch_is_legal_and_seeded():
    agent = make_agent("random", "card_poker")
    obs, masks = sample_observations(3, {}, steps=10)
    agent.seed(1)
    a = agent.act_batch(obs, masks)
    assert masks[np.arange(len(a)), a].all()
    agent.seed(1)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), a)
    with pytest.raises(ValueError, match="allows no action"):
        agent.act_batch(obs[:2], np.zeros_like(masks[:2]))


def test_any_callable_sits_at_the_table():
    calls = []

    def first_legal(obs, masks):
        calls.append(len(obs))
        return masks.argmax(axis=1)

    vec = BatchedVecEnv("CardPoker-v0", 8, opponents=first_legal, n_players=3)
    vec.seed(0)
    vec.reset()
    for _ in range(5):
        vec.step(random_actions(np.random.default_rng(0), vec.action_masks()))
    assert calls and sum(calls) > 0


def test_ppo_trains_card_poker_on_the_batched_engine(tmp_path):
    """train/ppo.py --config card_poker.yaml with run.engine: batched (a tiny budget)."""
    import json

    import yaml

    from train.common.config import find_config
    from train.common.sb3 import batched
    from train.ppo import load_config, main

    data = yaml.safe_load(find_config("card_poker.yaml").read_text())
    data["ppo"].update(n_steps=64, batch_size=128, n_epochs=1)
    data["run"].update(
        engine="batched",
        n_envs=8,
        total_timesteps=512,
        eval_every=512,
        eval_episodes=10,
        eval_opponents=["heuristic", "random"],
        final_eval_episodes=20,
        checkpoint_every=512,
        out_dir=str(tmp_path / "runs"),
    )
    data["run"]["self_play"]["snapshot_every"] = 256
    path = tmp_path / "card_batched.yaml"
    path.write_text(yaml.safe_dump(data))
    assert batched(load_config(str(path)))
    assert not batched(load_config("card_poker.yaml"))  # auto: self-play stays scalar
    run_dir = main(["--config", str(path), "--no-progress"])
    final = json.loads((run_dir / "final.json").read_text())
    assert set(final["ppo"]) >= {"heuristic_chips", "random_win_rate", "timesteps"}
    assert (run_dir / "model.zip").exists() and list((run_dir / "pool").glob("*.zip"))


@pytest.mark.parametrize("tables", [0, np.int64(2), slice(0, 3), None, np.array([4, 1])])
def test_an_action_mask_the_caller_changes_is_its_own_copy(tables):
    """``action_masks`` keeps every table's mask until the next move; what it returns, for
    all tables or some (an index, an int, a slice), is the caller's to change: the masks the
    engine checks and hands out next are unchanged."""
    engine = BatchedCardPoker(6, seed=1)
    engine.reset()
    fresh = engine._masks(engine._rows)
    got = engine.action_masks(tables)
    got[...] = ~got
    assert np.array_equal(engine.action_masks(), fresh)
    legal = fresh.argmax(axis=1)
    engine.check_actions(legal)  # the cached masks the step checks: still the true ones


def test_the_kept_masks_follow_moves_and_resets_of_finished_tables():
    """The masks kept per move are the state's after a step, and after the finished tables
    are reset in the same step (as the vector envs' autoreset does)."""
    engine = BatchedCardPoker(16, seed=2, episode="session", max_deals=3)
    engine.reset()
    rng = np.random.default_rng(0)
    resets = 0
    for _ in range(300):
        engine.step(random_actions(rng, engine.action_masks()))
        assert np.array_equal(engine.action_masks(), engine._masks(engine._rows))
        if engine.done.any():
            resets += 1
            engine.reset(engine.done)
            assert np.array_equal(engine.action_masks(), engine._masks(engine._rows))
    assert resets > 0
