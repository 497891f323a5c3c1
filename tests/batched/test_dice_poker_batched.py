"""Batched dice poker: opponents in batch choose what the scalar agents choose, seat win rates
of batched optimal players match the solver, seeding, the vector wrappers and bad input."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401
from agents import make_agent
from agents.tables import BatchedVecEnv, play_games
from benchmarks import batched_distributions
from envs.batched.dice_poker import BatchedDicePoker, BatchedDicePokerSingle
from envs.dice_poker import DicePokerEnv
from envs.rules.dice import multisets
from envs.rules.dice_poker import DicePokerRules


def _decisions(rules, n_players, n, steps, seed):
    """Observations and masks met in random play (a quarter of the moves stand)."""
    e = BatchedDicePoker(n, rules, seed=seed, n_players=n_players, episode="circle")
    e.reset()
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(steps):
        m = e.action_masks()
        obs.append(e.observe())
        masks.append(m)
        a = (rng.random(m.shape) * m).argmax(axis=1)
        e.step(np.where(rng.random(n) < 0.25, 0, a))
        done = e.done
        if done.any():
            e.reset(done)
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize(
    ("game", "options", "n_players"),
    [
        ("dice_poker", {}, 3),
        ("dice_poker", {"lock_kept_dice": False, "full_house_tiebreak": "triple"}, 5),
        ("dice_poker6", {}, 4),
        ("dice_poker6", {"pyramid": "any", "six_dice_low_hands": False}, 2),
    ],
)
@pytest.mark.parametrize("name", ["heuristic", "optimal"])
def test_batched_agents_choose_what_the_scalar_agents_choose(name, game, options, n_players):
    rules = DicePokerRules(n_dice=5 if game == "dice_poker" else 6, **options)
    obs, masks = _decisions(rules, n_players, 500, 12, seed=n_players)
    scalar = make_agent(name, game, **options)
    want = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
    got = make_agent(name, game, **options).act_batch(obs, masks)
    np.testing.assert_array_equal(got, want)


def test_batched_random_agent_is_the_same_generator_stream():
    """Same Generator state: act_batch picks what act picks row after row, and leaves the
    Generator where act leaves it."""
    obs, masks = _decisions(DicePokerRules(n_dice=6), 3, 300, 10, seed=1)
    a, b = make_agent("random", "dice_poker6"), make_agent("random", "dice_poker6")
    a.seed(5)
    b.seed(5)
    want = [a.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(b.act_batch(obs, masks), want)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    with pytest.raises(ValueError, match="row 1 allows no action"):
        b.act_batch(obs[:2], np.array([masks[0], masks[0] & False]))


def test_random_table_policy_is_act_batch_on_the_tables_state():
    """The random player's shortcut past the mask (``table_policy``) picks what act_batch
    picks on the same tables' masks, and leaves the Generator in the same state."""
    e = BatchedDicePoker(400, DicePokerRules(n_dice=6), seed=2, n_players=3)
    e.reset()
    rng = np.random.default_rng(0)
    for _ in range(6):
        a, b = make_agent("random", "dice_poker6"), make_agent("random", "dice_poker6")
        a.seed(9)
        b.seed(9)
        rows = np.flatnonzero(~e.done)
        want = a.act_batch(None, e.action_masks()[rows])
        np.testing.assert_array_equal(b.table_policy(e)(rows), want)
        assert a.rng.bit_generator.state == b.rng.bit_generator.state
        m = e.action_masks()
        e.step((rng.random(m.shape) * m).argmax(axis=1))
        e.reset(e.done)
    assert make_agent("random", "dice_poker6").table_policy(object()) is None


@pytest.mark.parametrize("n_dice", [5, 6])
def test_roll_numbers_are_fair_dice(n_dice):
    """A roll number ``u < 6**k`` is one roll of the ``k`` dice a re-roll bit set rolls: over
    all ``u`` every face tuple of those dice comes up exactly once, the turn tables read the
    multiset of those faces, and the faces read back give ``u`` (``chance`` and the
    engine's own draws are the same dice)."""
    e = BatchedDicePoker(1, DicePokerRules(n_dice=n_dice))
    t = e.turns
    subs = {m: i for i, m in enumerate(m for k in range(n_dice + 1) for m in multisets(k))}
    for a in range(2**n_dice):
        u = np.arange(int(t.roll_size[a]))
        numbers = np.stack([u, u % 6**n_dice], axis=1)
        faces = e.faces_of_rolls(numbers, np.full(len(u), a))
        rolled = faces[:, :n_dice][:, t.action_bits[a].astype(bool)]
        assert len({tuple(f) for f in rolled}) == len(u) == 6 ** rolled.shape[1]
        want = [subs[tuple(sorted(f))] for f in rolled.tolist()]
        np.testing.assert_array_equal(t.sub_of_roll[t.roll_start[a] + u], want)
        np.testing.assert_array_equal(e._rolls_of_faces(faces, np.full(len(u), a)), numbers)
    u = np.arange(6**n_dice)
    first = e.faces_of_rolls(np.stack([u, u], axis=1), np.zeros(len(u), dtype=np.int64))
    finals = {m: i for i, m in enumerate(multisets(n_dice))}
    want = [finals[tuple(sorted(f))] for f in first[:, n_dice:].tolist()]
    np.testing.assert_array_equal(t.final_of_roll, want)


@pytest.mark.parametrize(("n_players", "n_dice"), [(2, 5), (3, 5), (3, 6)])
def test_seat_win_rates_of_batched_optimal_players(n_players, n_dice):
    """Every seat played by the batched optimal player, seat 0 first: each seat's win rate is
    within 4 standard errors of the solver's win_probabilities (12,000 games; the benchmark
    runs 100,000)."""
    r = batched_distributions.optimal_dice_seats(n_players, n_dice, 12_000, seed=3)
    assert np.all(np.abs(r["z"]) < 4), r


def _trajectory(seed, n=64, steps=40, **options):
    env = BatchedVecEnv("DicePoker-v0", n, seed=seed, **options)
    env.seed(seed)
    out = [env.reset()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        m = env.action_masks()
        env.step_async((rng.random(m.shape) * m).argmax(axis=1))
        obs, reward, done, _ = env.step_wait()
        out += [obs, reward, done]
    return out


def test_same_seed_same_n_same_trajectories():
    opponents = ["random", "heuristic", "random"]
    a = _trajectory(4, n_players=4, opponents=opponents, episode="circle")
    b = _trajectory(4, n_players=4, opponents=opponents, episode="circle")
    c = _trajectory(5, n_players=4, opponents=opponents, episode="circle")
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_make_vec_and_vecenv_for_both_dice_ids():
    for env_id, size in (("DicePoker-v0", 34), ("DicePoker6-v0", 36)):
        env = gym.make_vec(
            env_id, num_envs=16, vectorization_mode="vector_entry_point", opponents="optimal"
        )
        obs, info = env.reset(seed=0)
        assert obs.shape == (16, size) and info["action_mask"].shape == (16, env.action_space[0].n)
        assert env.single_observation_space.contains(obs[0])
        for _ in range(30):
            m = env.action_masks()
            obs, reward, term, trunc, info = env.step(m.argmax(axis=1) * 0)  # always stand
            assert not trunc.any() and set(np.unique(reward)) <= {-1.0, 0.0, 2.0}


def test_table_options_default_to_the_envs():
    import inspect

    defaults = {
        k: p.default for k, p in inspect.signature(DicePokerEnv.__init__).parameters.items()
    }
    for key, value in BatchedDicePokerSingle.table_options.items():
        assert defaults[key] == value, key


def test_play_games_with_opponents_in_batch():
    heuristic = make_agent("heuristic", "dice_poker")
    totals = play_games(heuristic.act_batch, "DicePoker-v0", 400, seed=1, opponents="random")
    assert totals.shape == (400,) and totals.mean() > 0.5  # heuristic beats two random players


# -- bad input ------------------------------------------------------------------------------


def test_an_illegal_action_names_the_table_and_nothing_moves():
    e = BatchedDicePoker(5, DicePokerRules(), seed=0)
    e.reset()
    e.step(np.full(5, 0b00111))  # re-roll three dice: the other two are frozen now
    before = {k: v.copy() for k, v in vars(e).items() if isinstance(v, np.ndarray)}
    actions = np.zeros(5, dtype=np.int64)
    frozen = int(e.frozen[3].astype(int) @ (1 << np.arange(5)))
    actions[3] = frozen
    legal = np.flatnonzero(e.action_masks()[3]).tolist()
    with pytest.raises(ValueError, match=rf"illegal action {frozen} in table 3; legal .* {legal}"):
        e.step(actions)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(e, k), v, err_msg=k)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(4, dtype=np.int64), r"shape \(5,\)"),
        (np.zeros(5, dtype=np.float32), "integer array"),
        (np.zeros((5, 1), dtype=np.int64), r"shape \(5,\)"),
        (np.full(5, 32), "illegal action 32 in table 0"),
        (np.full(5, -1), "illegal action -1 in table 0"),
    ],
)
def test_bad_action_batches(actions, message):
    e = BatchedDicePoker(5, DicePokerRules(), seed=0)
    e.reset()
    with pytest.raises(ValueError, match=message):
        e.step(actions)


def test_bad_chance_and_seating():
    e = BatchedDicePoker(2, DicePokerRules(), seed=0, n_players=2)
    with pytest.raises(ValueError, match=r"chance must be an integer array of shape \(2, 5\)"):
        e.reset(chance=np.ones((2, 4), dtype=int))
    with pytest.raises(ValueError, match="faces must be 1..6"):
        e.reset(chance=np.full((2, 5), 7))
    tie = np.full((2, 1, 2), 4)
    with pytest.raises(ValueError, match=r"table 0 is still tied among seats \[0, 1\]"):
        e.reset(seating=tie)
    assert e.done.all()  # nothing started
    e.reset()
    with pytest.raises(ValueError, match=r"shape \(2, 10\)"):
        e.step(np.zeros(2, dtype=int), chance=np.ones((2, 5), dtype=int))


def test_a_finished_table_takes_no_action():
    e = BatchedDicePoker(1, DicePokerRules(), seed=0, n_players=2, first_player=0)
    with pytest.raises(ValueError, match="table 0 .*finished"):
        e.step(np.zeros(1, dtype=int))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_envs": 0}, ValueError, "num_envs must be an integer >= 1"),
        ({"num_envs": 2, "colour": "red"}, TypeError, r"unknown option\(s\) \['colour'\]"),
        ({"num_envs": 2, "max_deals": 3}, TypeError, "max_deals"),
        ({"num_envs": 2, "n_players": 7}, ValueError, "n_players must be 2..6"),
        ({"num_envs": 2, "episode": "match"}, ValueError, "episode must be one of"),
        ({"num_envs": 2, "agent_seat": 3}, ValueError, "agent_seat must be 'random' or 0..2"),
        ({"num_envs": 2, "first_player": True}, ValueError, "first_player must be 'roll'"),
        ({"num_envs": 2, "opponents": "wizard"}, ValueError, "unknown agent 'wizard'"),
        ({"num_envs": 2, "opponents": ["random"]}, ValueError, "lists 1 policies but 3 players"),
        ({"num_envs": 2, "opponents": 5}, ValueError, "an opponent is an agent name"),
        ({"num_envs": 2, "pyramid": "any"}, ValueError, "six dice only"),
    ],
)
def test_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        gym.make_vec("DicePoker-v0", vectorization_mode="vector_entry_point", **kwargs)


def test_an_opponent_that_plays_illegally_is_named():
    def cheat(obs, masks):
        return np.full(len(obs), 2**5, dtype=np.int64)

    table = BatchedDicePokerSingle(
        4, DicePokerRules(), seed=0, opponents=cheat, agent_seat=2, first_player=0
    )
    with pytest.raises(ValueError, match=r"cheat at seat 0 chose illegal action 32 at table 0"):
        table.reset()


def test_callable_opponents_sit_at_the_table():
    """Any callable on (observations, masks) plays, e.g. always standing."""
    table = BatchedDicePokerSingle(
        8, DicePokerRules(n_dice=6), seed=1, opponents=lambda o, m: np.zeros(len(o), int)
    )
    table.reset()
    reward = table.step(np.zeros(8, dtype=np.int64))
    assert reward.shape == (8,) and set(reward.tolist()) <= {-1, 0, 2}


def test_state_ids_is_the_public_read_only_view_table_policies_read():
    """``state_ids`` (the engine view of ``agents.base.TablePolicy``) gives each table's turn
    state: its legal set is the table's mask; an agent cannot write through it."""
    from agents.base import TablePolicy

    e = BatchedDicePoker(50, DicePokerRules(), seed=4, n_players=3)
    e.reset()
    ids = e.state_ids
    np.testing.assert_array_equal(e.legal_by_state[ids], e.action_masks())
    with pytest.raises(ValueError):
        ids[0] = 1
    for spec in ("random", "heuristic", "optimal"):
        agent = make_agent(spec, "dice_poker")
        assert isinstance(agent, TablePolicy) and callable(agent.table_policy(e))
