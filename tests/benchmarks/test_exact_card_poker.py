"""benchmarks/exact_card_poker.py and benchmarks/mini_best_response.py: the fixed players,
and the tables that walk the flat tree (what they measure is the tree's exact value)."""

from __future__ import annotations

import numpy as np

from agents.exact.fixed import fixed_policies
from agents.exact.games import MiniCardPoker
from agents.exact.tree import GameTree
from benchmarks.mini_best_response import TreeTables, main, observations
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
    from benchmarks.mini_best_response import make_vec_env

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
