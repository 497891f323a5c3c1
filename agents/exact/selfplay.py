"""Self-play methods that have a path to games too large to walk, run here full-width on
a :class:`agents.exact.tree.GameTree` so that their exact exploitability can be followed
(docs/card_poker_research.md, "Self-play methods side by side").

- :func:`psro` — policy-space response oracles (Lanctot et al. 2017): a population of
  policies per player, their empirical payoff matrix, its Nash equilibrium (the
  meta-strategy, :func:`matrix_nash`), and each iteration every player's best response to
  the others' meta-strategy mixture joins the population. Here the best response is the
  exact one of the tree walk (``oracle=None``) or any function ``oracle(tree, mixture,
  player) -> policy`` (a trained one). On the full game the oracle is a trained best
  response (``train/best_response.py``) and the payoff matrix is measured on deals.
- :func:`mmd` — magnetic mirror descent (Sokota et al. 2023) in behavioural form: every
  information set's softmax policy takes a mirror-descent step on its action values,
  pulled toward a magnet policy by a KL term of weight ``alpha``; with a fixed magnet the
  last iterate converges to a regularised (quantal-response) equilibrium, and a magnet
  that follows the policy (``magnet_rate``) or an ``alpha`` that decays moves it toward a
  Nash equilibrium. On the full game the same objective is a policy-gradient loss
  (reward, KL to the magnet) of a neural softmax policy: no tree needed.

Each returns ``(policy, curve)``: the policy played (PSRO: the meta-strategy mixture as a
behavioural policy; MMD: the last iterate) and ``[(iteration, exploitability)]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from agents.exact.solve import counterfactual_values
from agents.exact.tree import GameTree


def matrix_nash(
    payoff: np.ndarray, iterations: int = 20_000, tol: float = 1e-7
) -> tuple[np.ndarray, np.ndarray, float]:
    """A Nash equilibrium of the zero-sum matrix game ``payoff`` (the row player's gain):
    regret matching+ with alternating updates and linearly weighted averages (CFR+ on a
    matrix), at most ``iterations``, stopping once the gap is under ``tol`` (checked every
    200). ``(row mixture, column mixture, gap)``, the gap being the sum of both players'
    best-response gains against the mixtures (0 at an equilibrium)."""
    m, n = payoff.shape
    rx, ry = np.zeros(m), np.zeros(n)
    sx, sy = np.zeros(m), np.zeros(n)
    x, y = np.full(m, 1 / m), np.full(n, 1 / n)

    def match(r):
        pos = np.maximum(r, 0.0)
        total = pos.sum()
        return pos / total if total > 0 else np.full(len(r), 1 / len(r))

    for t in range(1, iterations + 1):
        x = match(rx)
        u = payoff @ y
        rx = np.maximum(rx + u - x @ u, 0.0)
        sx += t * x
        x = match(rx)
        w = -(x @ payoff)
        y = match(ry)
        ry = np.maximum(ry + w - y @ w, 0.0)
        sy += t * y
        if t % 200 == 0 or t == iterations:
            ax, ay = sx / sx.sum(), sy / sy.sum()
            gap = float((payoff @ ay).max() - (ax @ payoff).min())
            if gap < tol:
                break
    return ax, ay, gap


def mixture_policy(tree: GameTree, policies: list[np.ndarray], weights: np.ndarray, player: int):
    """The behavioural policy of ``player`` that plays like the mixture: pick policy ``k``
    with probability ``weights[k]`` before the deal, then follow it (Kuhn's theorem: at
    each information set, the policies' actions weighted by ``weights[k]`` times policy
    ``k``'s own reach of it). Rows of other players are those of ``policies[0]``."""
    rows = tree.infoset_player == player
    num = np.zeros((tree.n_infosets, tree.max_actions))
    for w, pol in zip(weights, policies, strict=True):
        if w <= 0:
            continue
        own = tree.reach(pol, [player])[tree.representative]
        num += w * own[:, None] * pol
    total = num.sum(axis=1, keepdims=True)
    mixed = np.where(total > 0, num / np.where(total > 0, total, 1.0), tree.uniform())
    return np.where(rows[:, None], mixed, policies[0])


def combine(tree: GameTree, per_player: list[np.ndarray]) -> np.ndarray:
    """One policy array: each player's rows from its own entry of ``per_player``."""
    out = per_player[0].copy()
    for p, pol in enumerate(per_player):
        rows = tree.infoset_player == p
        out[rows] = pol[rows]
    return out


def psro(
    tree: GameTree,
    iterations: int,
    oracle: Callable[[GameTree, np.ndarray, int], np.ndarray] | None = None,
    meta_iterations: int = 20_000,
    log: Callable[[str], None] | None = None,
) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """PSRO for two players (module docstring), from the uniform policy; the curve has the
    exact exploitability of the meta-strategy mixture after every iteration (iteration 0:
    the uniform policy alone)."""
    if tree.n_players != 2:
        raise ValueError("psro here is for two-player zero-sum games")
    if oracle is None:

        def oracle(tree, policy, player):
            return tree.best_response(policy, player)[1]

    pops = [[tree.uniform()], [tree.uniform()]]
    payoff = np.array([[tree.value(tree.uniform())[0]]])
    weights = [np.ones(1), np.ones(1)]
    mixed = tree.uniform()
    curve = [(0, tree.exploitability(mixed))]
    for it in range(1, iterations + 1):
        new = [oracle(tree, mixed, p) for p in (0, 1)]
        # the new rows and columns of the payoff matrix (player 0's value)
        col = [tree.value(combine(tree, [a, new[1]]))[0] for a in pops[0]]
        pops[0].append(new[0])
        row = [tree.value(combine(tree, [new[0], b]))[0] for b in pops[1]]
        row.append(tree.value(combine(tree, new))[0])
        pops[1].append(new[1])
        payoff = np.vstack([np.column_stack([payoff, col]), row])
        x, y, gap = matrix_nash(payoff, meta_iterations)
        weights = [x, y]
        mixed = combine(tree, [mixture_policy(tree, pops[p], weights[p], p) for p in (0, 1)])
        curve.append((it, tree.exploitability(mixed)))
        if log is not None:
            log(
                f"PSRO {it}: population {len(pops[0])}, meta gap {gap:.1e}, "
                f"exploitability {curve[-1][1]:.6f}"
            )
    return mixed, curve


def action_values(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Every information set's action values under ``policy``: the expected payoff of its
    player for taking each action there and following ``policy`` after, the histories of
    the set weighted by the chance of reaching them through chance and the others (the
    beliefs). 0 where the set is never reached by chance and the others."""
    q = np.zeros((tree.n_infosets, tree.max_actions))
    for player in range(tree.n_players):
        cf, _, belief = counterfactual_values(tree, policy, player)
        rows = tree.infoset_player == player
        q[rows] = (cf / np.where(belief > 0, belief, 1.0)[:, None])[rows]
    return q


def mmd(
    tree: GameTree,
    iterations: int,
    eta: float = 0.5,
    alpha: float = 0.05,
    magnet_rate: float = 0.0,
    alpha_decay: bool = False,
    eval_at: Iterable[int] | None = None,
) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """Magnetic mirror descent, behavioural form, all players at once (module docstring):
    ``pi <- softmax((log pi + eta * alpha * log rho + eta * q) / (1 + eta * alpha))`` at
    every information set, over its legal actions, with ``q`` the action values of
    :func:`action_values` and ``rho`` the magnet (uniform at the start). ``magnet_rate``
    > 0 moves the magnet toward the policy each iteration (``log rho <- (1 - r) log rho +
    r log pi``); ``alpha_decay`` uses ``alpha / sqrt(t)``. The curve has the exact
    exploitability of the last iterate."""
    legal = tree.legal
    log_pi = np.where(legal, np.log(tree.uniform(), where=legal, out=np.zeros(legal.shape)), 0)
    log_rho = log_pi.copy()
    points = (
        {int(x) for x in np.unique(np.geomspace(1, iterations, 20).astype(int))}
        if eval_at is None
        else {int(x) for x in eval_at}
    ) | {iterations}
    curve = []
    policy = tree.uniform()
    for t in range(1, iterations + 1):
        a = alpha / np.sqrt(t) if alpha_decay else alpha
        q = action_values(tree, policy)
        z = (log_pi + eta * a * log_rho + eta * q) / (1 + eta * a)
        z = np.where(legal, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.where(legal, np.exp(z), 0.0)
        total = e.sum(axis=1, keepdims=True)
        policy = e / total
        log_pi = np.where(legal, z - np.log(total), 0.0)  # exact even where exp underflows
        if magnet_rate:
            log_rho = (1 - magnet_rate) * log_rho + magnet_rate * log_pi
        if t in points:
            curve.append((t, tree.exploitability(policy)))
    return policy, curve


__all__ = ["action_values", "combine", "matrix_nash", "mixture_policy", "mmd", "psro"]
