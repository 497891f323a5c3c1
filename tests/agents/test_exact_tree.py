"""The exact tree walk on Kuhn poker (equilibrium known in closed form) and mini card
poker: values, best responses, exploitability, CFR+ and fictitious play."""

from __future__ import annotations

import numpy as np
import pytest

from agents.exact.games import KuhnPoker, MiniCardPoker
from agents.exact.solve import cfr, fictitious_play
from agents.exact.tree import GameTree
from envs.rules.card_poker_mini import MiniCardPokerRules

J, Q, K = 0, 1, 2


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(KuhnPoker())


def kuhn_equilibrium(tree, alpha):
    """The equilibria of Kuhn poker: player 0 bets J with alpha in [0, 1/3], K with
    3 alpha, calls with Q with alpha + 1/3; player 1 bluffs J a third of the time after a
    pass and calls a bet with Q a third of the time."""

    def choose(player, key, actions):
        card, history = key
        bet = {
            (0, ""): {J: alpha, Q: 0, K: 3 * alpha},
            (0, "pb"): {J: 0, Q: alpha + 1 / 3, K: 1},
            (1, "b"): {J: 0, Q: 1 / 3, K: 1},
            (1, "p"): {J: 1 / 3, Q: 0, K: 1},
        }[player, history][card]
        return [1 - bet, bet]

    return tree.policy_from(choose)


@pytest.mark.parametrize("alpha", [0, 0.1, 1 / 3])
def test_kuhn_equilibrium_value_and_zero_exploitability(kuhn, alpha):
    policy = kuhn_equilibrium(kuhn, alpha)
    np.testing.assert_allclose(kuhn.value(policy), [-1 / 18, 1 / 18], atol=1e-12)
    assert abs(kuhn.exploitability(policy)) < 1e-12
    for player in (0, 1):  # nobody can do better than the game's value
        br, _ = kuhn.best_response(policy, player)
        assert br == pytest.approx(kuhn.value(policy)[player], abs=1e-12)


def test_kuhn_uniform_policy(kuhn):
    assert kuhn.n_infosets == 12
    assert kuhn.exploitability(kuhn.uniform()) == pytest.approx(11 / 24)  # OpenSpiel's


def test_best_response_finds_a_player_who_always_bets(kuhn):
    always = kuhn.policy_from(lambda player, key, actions: [0, 1])
    value, response = kuhn.best_response(always, 1)
    # facing a bet: fold J (-1), call Q (J or K behind: 0), call K (+2)
    assert value == pytest.approx(1 / 3)
    folds = {key[1][0]: response[i, 1] for i, key in enumerate(kuhn.infoset_keys) if key[0] == 1}
    calls = {
        key[1][0]: response[i, 1]
        for i, key in enumerate(kuhn.infoset_keys)
        if key == (1, (key[1][0], "b"))
    }
    assert folds and calls == {J: 0.0, Q: 1.0, K: 1.0}


def test_cfr_plus_and_fictitious_play_on_kuhn(kuhn):
    policy, curve = cfr(kuhn, 300)
    assert curve[-1][1] < 1e-3
    np.testing.assert_allclose(kuhn.value(policy), [-1 / 18, 1 / 18], atol=2e-3)
    _, curve = fictitious_play(kuhn, 100)
    assert curve[-1][1] < 0.03 and curve[-1][1] < curve[0][1]


@pytest.mark.parametrize(
    "rules",
    [
        MiniCardPokerRules(max_draw=0),
        MiniCardPokerRules(ranks=2, hand_size=1, max_draw=1, max_bids=3),
    ],
)
def test_cfr_plus_solves_mini_card_poker(rules):
    tree = GameTree(MiniCardPoker(rules))
    # every terminal's chance of play sums to 1 under any policy, and the game is zero-sum
    reach = tree.reach(tree.uniform())
    assert reach[tree.kind == 0].sum() == pytest.approx(1.0)
    assert np.abs(tree.utility.sum(axis=1)).max() == 0
    start = tree.exploitability(tree.uniform())
    policy, curve = cfr(tree, 200)
    assert start > 0.3
    assert curve[-1][1] < 1e-3 * 2 * rules.ante  # under 0.1% of the antes' pot
    exploit = [e for _, e in curve]
    assert exploit[-1] < exploit[0] / 100
    # the seats' best-response gains are never negative, and sum to twice the figure
    gains = tree.best_response_gains(policy)
    assert (gains > -1e-12).all() and gains.mean() == pytest.approx(curve[-1][1])


def test_the_tree_is_the_game_that_the_rules_play():
    """The tree's chance (every deal alike, each draw's new cards any set of the stock
    alike) is the shuffled deck's: uniform play through ``play`` wins what the walk says."""
    from envs.rules import card_poker_mini as mini

    rules = MiniCardPokerRules(ranks=2, hand_size=1, max_draw=1, max_bids=3)
    tree = GameTree(MiniCardPoker(rules))
    exact = tree.value(tree.uniform())[0]
    rng = np.random.default_rng(0)

    def pick(state):
        legal = mini.legal_actions(state)
        return legal[int(rng.integers(len(legal)))]

    won = np.array([mini.play(rules, [pick, pick], rng)[0] for _ in range(8_000)])
    assert exact != 0 and abs(won.mean() - exact) < 4 * won.std() / np.sqrt(len(won))
