"""benchmarks/exact_card_poker.py and benchmarks/mini_best_response.py: the fixed players,
and the tables that walk the flat tree (what they measure is the tree's exact value)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.exact.fixed import fixed_policies
from agents.exact.games import MiniCardPoker
from agents.exact.tables import TreeTables, observations
from agents.exact.tree import GameTree
from benchmarks.mini_best_response import main
from envs.rules.card_poker_mini import MiniCardPokerRules

RULES = MiniCardPokerRules(max_draw=0)


def test_tables_measure_the_tree_s_value():
    tree = GameTree(MiniCardPoker(RULES))
    fixed = fixed_policies(tree, RULES)["careful rule of thumb"]
    learner = tree.uniform()
    exact = np.mean(
        [
            tree.value(np.where((tree.infoset_player == p)[:, None], learner, fixed))[p]
            for p in (0, 1)
        ]
    )
    n = 20_000  # one deal per table, each to its end
    tables = TreeTables(tree, fixed, observations(tree, RULES), n, seed=0)
    tables.reset_rows(np.arange(n))
    rng, won, rows = np.random.default_rng(1), list(tables.unplayed), np.arange(n)
    while len(rows):
        masks = tables.masks()[rows]
        slots = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        reward, done = tables.play(slots, rows)
        won.append(reward[done])
        rows = rows[~done]
    won = np.concatenate(won)
    assert abs(won.mean() - exact) < 4 * won.std() / np.sqrt(len(won))


def test_a_tiny_trained_best_response_runs(capsys):
    main(["--steps", "1024", "--n-envs", "16", "--eval-deals", "500", "--rule", "max_draw=0"])
    out = capsys.readouterr().out
    assert "exact best response vs careful" in out and "trained (1,024 decisions" in out


def test_the_exact_best_response_played_from_observations_wins_its_value():
    """Through the VecEnv (observations in, slots out), the exact best response wins what
    the walk says: the observations tell the information sets apart, the tables are the
    tree's game."""
    from agents.exact.tables import make_vec_env

    rules = MiniCardPokerRules(ranks=2, hand_size=1, max_draw=1, max_bids=3)
    tree = GameTree(MiniCardPoker(rules))
    fixed = fixed_policies(tree, rules)["careful rule of thumb"]
    responses = [tree.best_response(fixed, p)[1] for p in (0, 1)]
    exact = np.mean([tree.best_response(fixed, p)[0] for p in (0, 1)])
    table = observations(tree, rules)
    assert len(np.unique(table, axis=0)) == tree.n_infosets
    lookup = {row.tobytes(): i for i, row in enumerate(table)}
    env = make_vec_env(TreeTables(tree, fixed, table, 256, seed=0))
    obs, won = env.reset(), []
    for _ in range(300):
        sets = np.array([lookup[row.tobytes()] for row in obs])
        seat = tree.infoset_player[sets]
        obs, reward, done, _ = env.step(
            np.where(seat == 0, responses[0][sets].argmax(1), responses[1][sets].argmax(1))
        )
        won += list(reward[done])
    won = np.array(won)
    assert abs(won.mean() - exact) < 4 * won.std() / np.sqrt(len(won))


def test_the_best_response_finds_a_player_who_never_folds():
    """A planted weakness: ``always bid`` never passes (it bids the lowest bid, else
    reveals). The exact best response bids the most with a pair of kings or aces (it is
    always called), never bluffs (no bid without a pair or an ace: it is always called),
    and wins what the walk says from both seats."""
    from envs.rules.card_poker import FIRST_BID, PASS

    tree = GameTree(MiniCardPoker(RULES))  # 6 cards, no draw: Q Q K K A A
    never_folds = fixed_policies(tree, RULES)["always bid (the lowest bid, else reveal)"]
    gains = tree.best_response_gains(never_folds)
    np.testing.assert_allclose(gains, [0.5888889, 0.4444444], atol=1e-6)
    top = FIRST_BID + RULES.max_bid - RULES.min_bid
    for seat in (0, 1):
        _, response = tree.best_response(never_folds, seat)
        for i, (who, key) in enumerate(tree.infoset_keys):
            # the seat's first bet, where the other seat's first bid is the lowest bid
            if who != seat or key[1:] != ((0, FIRST_BID),)[:seat]:
                continue
            hand, acts = key[0], tree.actions[i]
            choice = acts[int(response[i].argmax())]
            ranks = {c // RULES.suits for c in hand}
            if ranks in ({1}, {2}):  # K K, A A
                assert choice == top, (key, choice)
            if ranks == {0, 1}:  # Q K: the weakest no-pair hands
                assert choice == PASS, (key, choice)


def test_the_best_response_curve_runs_at_a_tiny_budget(capsys):
    from benchmarks.mini_br_curve import main as curve_main

    out = curve_main(
        [
            "--against",
            "careful",
            "--seeds",
            "0",
            "--budgets",
            "512,1024",
            "--n-envs",
            "16",
            "--eval-deals",
            "200",
            "--rule",
            "max_draw=0",
            "--ppo",
            "n_steps=32",
            "--ppo",
            "batch_size=256",
        ]
    )
    rows = out["careful"]["rows"]
    assert [r["decisions"] for r in rows] == [512, 1024]
    assert all(abs(r["measured"] - r["exact_greedy"]) < 4 * r["half"] + 0.2 for r in rows)
    assert "| careful | decisions |" in capsys.readouterr().out


def test_the_self_play_benchmark_runs_at_a_tiny_budget(capsys):
    from benchmarks.mini_selfplay import main as selfplay_main

    runs = selfplay_main(
        [
            "--psro-iterations",
            "3",
            "--mmd-iterations",
            "20",
            "--cfr-iterations",
            "20",
            "--rule",
            "max_draw=0",
        ]
    )
    assert len(runs) == 3
    for curve, _ in runs.values():
        assert curve[-1][1] < curve[0][1]
    assert "first at or under 1% of the pot" in capsys.readouterr().out


@pytest.mark.heavy
@pytest.mark.xfail(
    strict=True,
    reason="the trained best response flattens at +0.7222, 90% of the exact +0.8000 "
    "(docs/card_poker_research.md); strict: passing means the estimator is fixed",
)
def test_a_trained_best_response_recovers_the_exact_one_against_careful():
    """The estimator, validated: MaskablePPO as train/best_response.py builds it, 300k
    decisions, card poker's action numbers, wins the exact best response's value against
    the rule of thumb within its 95% interval (minutes)."""
    from benchmarks.mini_br_curve import main as curve_main

    out = curve_main(["--against", "careful", "--seeds", "0", "--budgets", "300000"])
    row, exact = out["careful"]["rows"][-1], out["careful"]["exact"]
    assert abs(row["measured"] - exact) <= row["half"]


def test_the_curve_measures_on_duplicate_deals_as_the_full_game_does():
    # benchmarks/mini_br_curve.py measures with train.common.best_response's evaluation: a
    # deal once in each seat. A learner that plays the fixed pure policy itself wins in one
    # seat what it loses in the other on the same deal (no draw: the deal is all the
    # chance), so every deal's mean is exactly 0, and so is the interval.
    from benchmarks.mini_br_curve import measure

    tree = GameTree(MiniCardPoker(RULES))
    fixed = fixed_policies(tree, RULES)["careful rule of thumb"]
    assert set(np.unique(fixed)) <= {0.0, 1.0}  # pure

    class PlaysFixed:  # a model whose observation is its information set, one-hot
        def predict(self, obs, deterministic, action_masks):
            return fixed[obs.argmax(axis=1)].argmax(axis=1), None

    obs = np.eye(tree.n_infosets, dtype=np.float32)
    mean, half = measure(PlaysFixed(), tree, fixed, obs, 500, seed=3, game_actions=False)
    assert mean == 0 and half == 0
    # the seats' results differ (acting first costs): only each deal's sum is 0
    from agents.exact.tables import play_each

    seeds = list(range(500))
    first = play_each(PlaysFixed(), TreeTables(tree, fixed, obs, 0, 0, 0, False, seeds))
    second = play_each(PlaysFixed(), TreeTables(tree, fixed, obs, 0, 0, 1, False, seeds))
    assert (first + second == 0).all() and (first != 0).any()
