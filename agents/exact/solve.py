"""Equilibrium finding on a :class:`agents.exact.tree.GameTree`: CFR, CFR+ and
fictitious play, each reporting the exact exploitability of its average policy as it
goes (docs/card_poker_research.md).

- :func:`cfr` — counterfactual regret minimisation (Zinkevich et al. 2007) with regret
  matching, full-width passes over the flat tree; ``plus=True`` is CFR+ (Tammelin 2014):
  regrets floored at 0 after every update, players updated in turn (alternating), and
  the average policy weighted by the iteration number.
- :func:`fictitious_play` — full-width extensive-form fictitious play (Heinrich et al.
  2015): every iteration each player's exact best response to the others' average
  policy, mixed into its average with weight ``1 / (t + 1)`` in sequence form (by each
  policy's own reach of the information set).

Both return ``(policy, curve)``: the average policy and ``[(iteration, exploitability)]``
at the iterations of ``eval_at``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.exact.tree import DECISION, TERMINAL, GameTree


def regret_matching(tree: GameTree, regret: np.ndarray) -> np.ndarray:
    """The policy playing each action in proportion to its positive regret (uniform over
    the legal actions where none is positive)."""
    positive = np.where(tree.legal, np.maximum(regret, 0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), tree.uniform())


def _normalise(tree: GameTree, weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=1, keepdims=True)
    return np.where(total > 0, weights / np.where(total > 0, total, 1.0), tree.uniform())


def counterfactual_values(tree: GameTree, policy: np.ndarray, player: int):
    """``(q, v, others)`` for ``player``'s information sets under ``policy``: each action's
    counterfactual value ``q(I, a)`` (the histories of ``I`` weighted by the chance of
    reaching them through chance and the others), the set's own ``v(I)``, and that chance
    summed over the set's histories (other players' rows: 0)."""
    edge = tree.edge_probs(policy)
    others = tree.reach(policy, [-1] + [p for p in range(tree.n_players) if p != player])
    value = tree.utility[:, player].copy()
    value[tree.kind != TERMINAL] = 0.0
    for nodes in reversed(tree.levels[1:]):
        np.add.at(value, tree.parent[nodes], edge[nodes] * value[nodes])
    # q(I, a) = sum over h in I of others(h) * v(h a); v(I) = sum others(h) * v(h)
    below = np.flatnonzero(tree.up_player == player)
    up = tree.parent[below]
    q = np.zeros((tree.n_infosets, tree.max_actions))
    np.add.at(q, (tree.up_infoset[below], tree.slot[below]), others[up] * value[below])
    mine = np.flatnonzero((tree.kind == DECISION) & (tree.player == player))
    v = np.zeros(tree.n_infosets)
    np.add.at(v, tree.infoset[mine], others[mine] * value[mine])
    belief = np.zeros(tree.n_infosets)
    np.add.at(belief, tree.infoset[mine], others[mine])
    return q, v, belief


def counterfactual_regrets(tree: GameTree, policy: np.ndarray, player: int):
    """``(regrets, own_reach)``: the instant counterfactual regret of every action of
    ``player``'s information sets under ``policy`` (rows of other players' sets are 0),
    and ``player``'s own reach of each information set."""
    q, v, _ = counterfactual_values(tree, policy, player)
    own = tree.reach(policy, [player])
    regret = np.where(tree.legal, q - v[:, None], 0.0)
    regret[tree.infoset_player != player] = 0.0
    return regret, own[tree.representative]


def _eval_points(eval_at: Iterable[int] | None, iterations: int) -> set[int]:
    if eval_at is None:
        eval_at = {int(x) for x in np.unique(np.geomspace(1, iterations, 20).astype(int))}
    return {int(x) for x in eval_at} | {iterations}


def cfr(
    tree: GameTree,
    iterations: int,
    plus: bool = True,
    eval_at: Iterable[int] | None = None,
) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """CFR (``plus=False``: simultaneous updates, uniform averaging) or CFR+ (module
    docstring); ``(average policy, [(iteration, exploitability of the average)])``."""
    regret = np.zeros((tree.n_infosets, tree.max_actions))
    average = np.zeros_like(regret)
    points, curve = _eval_points(eval_at, iterations), []
    rows = [tree.infoset_player == p for p in range(tree.n_players)]
    for t in range(1, iterations + 1):
        weight = float(t) if plus else 1.0
        if plus:  # alternating: each player answers the others' newest policy
            for p in range(tree.n_players):
                policy = regret_matching(tree, regret)
                r, own = counterfactual_regrets(tree, policy, p)
                average[rows[p]] += weight * (own[:, None] * policy)[rows[p]]
                regret = np.where(rows[p][:, None], np.maximum(regret + r, 0.0), regret)
        else:
            policy = regret_matching(tree, regret)
            for p in range(tree.n_players):
                r, own = counterfactual_regrets(tree, policy, p)
                average[rows[p]] += (own[:, None] * policy)[rows[p]]
                regret = regret + r
        if t in points:
            curve.append((t, tree.exploitability(_normalise(tree, average))))
    return _normalise(tree, average), curve


def fictitious_play(
    tree: GameTree, iterations: int, eval_at: Iterable[int] | None = None
) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """Full-width extensive-form fictitious play (module docstring)."""
    policy = tree.uniform()
    points, curve = _eval_points(eval_at, iterations), []
    rows = [tree.infoset_player == p for p in range(tree.n_players)]
    for t in range(1, iterations + 1):
        alpha = 1.0 / (t + 1)
        new = policy.copy()
        for p in range(tree.n_players):
            _, response = tree.best_response(policy, p)
            mine = tree.reach(policy, [p])[tree.representative][:, None]
            theirs = tree.reach(response, [p])[tree.representative][:, None]
            mixed = (1 - alpha) * mine * policy + alpha * theirs * response
            new[rows[p]] = _normalise(tree, mixed)[rows[p]]
        policy = new
        if t in points:
            curve.append((t, tree.exploitability(policy)))
    return policy, curve


__all__ = [
    "cfr",
    "counterfactual_regrets",
    "counterfactual_values",
    "fictitious_play",
    "regret_matching",
]
