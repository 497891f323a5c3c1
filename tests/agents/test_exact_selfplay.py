"""agents.exact.selfplay: the meta-game solver, the mixture of policies as a behavioural
policy (Kuhn's theorem, exactly), PSRO and MMD at tiny budgets on Kuhn poker (equilibrium
known in closed form) and on a small mini card poker."""

from __future__ import annotations

import numpy as np
import pytest

from agents.exact.games import KuhnPoker, MiniCardPoker
from agents.exact.selfplay import action_values, combine, matrix_nash, mixture_policy, mmd, psro
from agents.exact.tree import GameTree
from envs.rules.card_poker_mini import MiniCardPokerRules


@pytest.fixture(scope="module")
def kuhn():
    return GameTree(KuhnPoker())


def test_matrix_nash_of_rock_paper_scissors_and_of_a_saddle():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    x, y, gap = matrix_nash(rps)
    np.testing.assert_allclose(x, 1 / 3, atol=1e-3)
    np.testing.assert_allclose(y, 1 / 3, atol=1e-3)
    assert gap < 1e-6
    saddle = np.array([[3.0, 1.0], [4.0, 2.0]])  # row 1 dominates, column 1 answers it
    x, y, gap = matrix_nash(saddle)
    assert x.argmax() == 1 and y.argmax() == 1 and gap < 1e-6


def test_a_mixture_of_policies_plays_as_its_weighted_values(kuhn):
    """The behavioural policy of a mixture wins exactly the weighted mean of its members'
    values against any opponent (Kuhn's theorem; perfect recall)."""
    rng = np.random.default_rng(0)
    members = []
    for _ in range(3):
        raw = np.where(kuhn.legal, rng.random(kuhn.legal.shape), 0)
        members.append(raw / raw.sum(axis=1, keepdims=True))
    weights = np.array([0.5, 0.3, 0.2])
    opponent = kuhn.uniform()
    for player in (0, 1):
        mixed = mixture_policy(kuhn, members, weights, player)
        alone = [kuhn.value(combine(kuhn, _seats(m, opponent, player)))[player] for m in members]
        got = kuhn.value(combine(kuhn, _seats(mixed, opponent, player)))[player]
        assert got == pytest.approx(weights @ alone, abs=1e-12)


def _seats(mine, other, player):
    return [mine, other] if player == 0 else [other, mine]


def test_action_values_average_to_the_policy_s_value(kuhn):
    """At the first decision (one history per card, reached by chance alone) the action
    values weighted by the policy give the player's value."""
    policy = kuhn.uniform()
    q = action_values(kuhn, policy)
    first = [i for i, key in enumerate(kuhn.infoset_keys) if key[0] == 0 and key[1][1] == ""]
    value = np.mean([(q[i] * policy[i]).sum() for i in first])
    assert value == pytest.approx(kuhn.value(policy)[0], abs=1e-12)


# heavy (10 s CPU): PSRO's fast cousin is the mini card poker test below
@pytest.mark.heavy
def test_psro_with_exact_best_responses_solves_kuhn(kuhn):
    policy, curve = psro(kuhn, 10)
    assert curve[0][1] == pytest.approx(11 / 24)  # the uniform policy alone
    assert curve[-1][1] < 2e-3
    np.testing.assert_allclose(kuhn.value(policy), [-1 / 18, 1 / 18], atol=5e-3)


def test_mmd_last_iterate_solves_kuhn(kuhn):
    policy, curve = mmd(kuhn, 1500, eta=0.1, alpha=0.1, magnet_rate=0.01)
    assert curve[-1][1] < 1e-3 and curve[-1][1] < curve[0][1] / 100
    np.testing.assert_allclose(kuhn.value(policy), [-1 / 18, 1 / 18], atol=2e-3)


def test_both_methods_lower_exploitability_on_a_small_mini_card_poker():
    tree = GameTree(MiniCardPoker(MiniCardPokerRules(max_draw=0)))
    start = tree.exploitability(tree.uniform())
    _, curve = psro(tree, 6)
    assert curve[-1][1] < start / 3
    _, curve = mmd(tree, 100, eta=0.1, alpha=0.1, magnet_rate=0.01, eval_at=[100])
    assert curve[-1][1] < start / 3
