"""Exact game-tree walks of small imperfect-information games: a policy's value, the exact
best response, exploitability (docs/card_poker_research.md).

A game is given through :class:`TreeGame` (an interface in the spirit of OpenSpiel's:
chance nodes with their outcomes, decision nodes with their player, legal actions and
the information set of the player to move, terminals with each player's payoff).
:class:`GameTree` walks it once and stores it flat, as numpy arrays (nodes in depth-first
order, each with its parent, depth, kind, player, information set and the slot of the
action that led to it), so every later pass (values, reach probabilities, best responses,
CFR's updates) is a handful of numpy operations per depth level.

A policy is an ``(n_infosets, max_actions)`` array of probabilities over each information
set's legal actions, in the order :meth:`TreeGame.actions` lists them (``GameTree.actions``
keeps them); the slots past an information set's actions are 0.

Perfect recall is assumed, and checked as far as the walk needs it: every history of an
information set lies at the same depth and has the same legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

import numpy as np

TERMINAL, CHANCE, DECISION = 0, 1, 2


class TreeGame(Protocol):
    """What :class:`GameTree` asks of a game. States are any objects."""

    n_players: int

    def root(self) -> Any: ...

    def is_terminal(self, state) -> bool: ...

    def returns(self, state) -> Sequence[float]: ...  # each player's payoff, at a terminal

    def is_chance(self, state) -> bool: ...

    def chance_outcomes(self, state) -> Sequence[tuple[Any, float]]: ...  # (child, prob)

    def player(self, state) -> int: ...

    def actions(self, state) -> Sequence[int]: ...

    def child(self, state, action: int) -> Any: ...

    def infoset(self, state) -> Hashable: ...  # what the player to move knows


class GameTree:
    """The whole tree of a :class:`TreeGame`, flat (module docstring)."""

    def __init__(self, game: TreeGame) -> None:
        self.game = game
        self.n_players = n_players = game.n_players
        kind, player, parent, depth, slot, prob, infoset = [], [], [], [], [], [], []
        payoff: dict[int, Sequence[float]] = {}
        self.infoset_keys: list[Hashable] = []
        self.actions: list[tuple[int, ...]] = []
        self.infoset_player: list[int] = []
        index: dict[Hashable, int] = {}
        depth_of: dict[int, int] = {}
        stack = [(game.root(), -1, 0, -1, 1.0)]
        while stack:
            state, up, d, s, p = stack.pop()
            n = len(kind)
            parent.append(up)
            depth.append(d)
            slot.append(s)
            prob.append(p)
            if game.is_terminal(state):
                kind.append(TERMINAL)
                player.append(-1)
                infoset.append(-1)
                payoff[n] = game.returns(state)
                continue
            if game.is_chance(state):
                kind.append(CHANCE)
                player.append(-1)
                infoset.append(-1)
                children = [(c, -1, q) for c, q in game.chance_outcomes(state)]
            else:
                kind.append(DECISION)
                who = game.player(state)
                player.append(who)
                key = (who, game.infoset(state))
                acts = tuple(game.actions(state))
                i = index.get(key)
                if i is None:
                    i = index[key] = len(self.infoset_keys)
                    self.infoset_keys.append(key)
                    self.actions.append(acts)
                    self.infoset_player.append(who)
                    depth_of[i] = d
                elif self.actions[i] != acts or depth_of[i] != d:
                    raise ValueError(f"information set {key!r} is not one of perfect recall")
                infoset.append(i)
                children = [(game.child(state, a), j, 1.0) for j, a in enumerate(acts)]
            for c, j, q in reversed(children):
                stack.append((c, n, d + 1, j, q))
        self.n_nodes = len(kind)
        self.kind = np.array(kind, dtype=np.int8)
        self.player = np.array(player, dtype=np.int64)
        self.parent = np.array(parent, dtype=np.int64)
        self.depth = np.array(depth, dtype=np.int64)
        self.slot = np.array(slot, dtype=np.int64)
        self.chance_prob = np.array(prob)
        self.infoset = np.array(infoset, dtype=np.int64)
        self.utility = np.zeros((self.n_nodes, n_players))
        for n, u in payoff.items():
            self.utility[n] = u
        self.n_infosets = len(self.infoset_keys)
        self.max_actions = max((len(a) for a in self.actions), default=1)
        self.legal = np.zeros((self.n_infosets, self.max_actions), dtype=bool)
        for i, acts in enumerate(self.actions):
            self.legal[i, : len(acts)] = True
        self.infoset_player = np.array(self.infoset_player, dtype=np.int64)
        # per depth: the nodes there, and for the nodes below the root, their parents
        self.levels = [np.flatnonzero(self.depth == d) for d in range(self.depth.max() + 1)]
        # the parent's infoset and player for every node below a decision (else -1)
        up = np.maximum(self.parent, 0)
        below_decision = (self.parent >= 0) & (self.kind[up] == DECISION)
        self.up_infoset = np.where(below_decision, self.infoset[up], -1)
        self.up_player = np.where(below_decision, self.player[up], -1)
        # one history per information set (its own reach is that of every other one)
        self.representative = np.zeros(self.n_infosets, dtype=np.int64)
        decisions = np.flatnonzero(self.kind == DECISION)
        self.representative[self.infoset[decisions][::-1]] = decisions[::-1]

    # -- policies ------------------------------------------------------------------------
    def uniform(self) -> np.ndarray:
        """The policy that plays every legal action alike."""
        return self.legal / self.legal.sum(axis=1, keepdims=True)

    def policy_from(self, choose: Callable[[int, Hashable, tuple[int, ...]], Sequence[float]]):
        """A policy from ``choose(player, infoset_key, actions) -> probabilities``."""
        policy = np.zeros((self.n_infosets, self.max_actions))
        for i, ((who, key), acts) in enumerate(zip(self.infoset_keys, self.actions, strict=True)):
            probs = np.asarray(choose(who, key, acts), dtype=np.float64)
            if probs.shape != (len(acts),) or abs(probs.sum() - 1) > 1e-9 or (probs < 0).any():
                raise ValueError(f"bad probabilities {probs} at {key!r} over {acts}")
            policy[i, : len(acts)] = probs
        return policy

    def edge_probs(self, policy: np.ndarray) -> np.ndarray:
        """The probability of the edge into every node: chance's, or the policy's."""
        edge = self.chance_prob.copy()
        below = self.up_infoset >= 0
        edge[below] = policy[self.up_infoset[below], self.slot[below]]
        return edge

    # -- passes over the tree ------------------------------------------------------------
    def reach(self, policy: np.ndarray, players: Sequence[int] | None = None) -> np.ndarray:
        """Every node's reach probability counting only the edges of ``players`` (chance's
        edges count when ``players`` is None: the full reach; give ``[-1, ...]`` to count
        chance with some players)."""
        edge = self.edge_probs(policy)
        if players is not None:
            owner = np.where(self.up_infoset >= 0, self.up_player, -1)
            edge = np.where(np.isin(owner, list(players)), edge, 1.0)
        reach = np.ones(self.n_nodes)
        for nodes in self.levels[1:]:
            reach[nodes] = reach[self.parent[nodes]] * edge[nodes]
        return reach

    def value(self, policy: np.ndarray) -> np.ndarray:
        """Each player's expected payoff when every player plays ``policy``."""
        edge = self.edge_probs(policy)
        out = []
        for i in range(self.n_players):
            value = self.utility[:, i].copy()
            value[self.kind != TERMINAL] = 0.0
            for nodes in reversed(self.levels[1:]):
                np.add.at(value, self.parent[nodes], edge[nodes] * value[nodes])
            out.append(value[0])
        return np.array(out)

    def best_response(self, policy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
        """``(value, response)``: the most ``player`` can expect against the others playing
        ``policy``, and a pure policy for ``player`` (rows of its information sets; the
        other rows are ``policy``'s) that gets it, by backward induction over its
        information sets (each picks the action of the highest counterfactual value)."""
        edge = self.edge_probs(policy)
        others = self.reach(policy, [-1] + [p for p in range(self.n_players) if p != player])
        value = self.utility[:, player].copy()
        value[self.kind != TERMINAL] = 0.0
        response = policy.copy()
        mine = self.up_player == player
        for nodes in reversed(self.levels[1:]):
            up = self.parent[nodes]
            own = mine[nodes]
            # chance and the others: expected values
            rest = nodes[~own]
            np.add.at(value, self.parent[rest], edge[rest] * value[rest])
            ours = nodes[own]
            if not len(ours):
                continue
            # own decisions: the action of the best counterfactual value per information set
            sets = self.up_infoset[ours]
            q = np.zeros((self.n_infosets, self.max_actions))
            np.add.at(q, (sets, self.slot[ours]), others[up[own]] * value[ours])
            touched = np.unique(sets)
            q_t = np.where(self.legal[touched], q[touched], -np.inf)
            best = q_t.argmax(axis=1)
            response[touched] = 0.0
            response[touched, best] = 1.0
            pick = self.slot[ours] == response[sets].argmax(axis=1)
            value[self.parent[ours[pick]]] = value[ours[pick]]
        return float(value[0]), response

    def exploitability(self, policy: np.ndarray) -> float:
        """The mean over players of the best response's gain: ``(sum_i BR_i - sum_i v_i) / n``
        (NashConv / n; for two players zero-sum, the mean of both seats' best-response
        values). 0 exactly at a Nash equilibrium."""
        gains = self.best_response_gains(policy)
        return float(np.mean(gains))

    def best_response_gains(self, policy: np.ndarray) -> np.ndarray:
        """Per player: the best response's value minus the policy's own value there."""
        own = self.value(policy)
        return np.array([self.best_response(policy, i)[0] - own[i] for i in range(self.n_players)])


__all__ = ["CHANCE", "DECISION", "TERMINAL", "GameTree", "TreeGame"]
