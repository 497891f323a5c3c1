"""A learner's tables over the flat tree of mini card poker: information-set observations
(:func:`observations`), ``n`` deals walked at once against a fixed policy
(:class:`TreeTables`), an SB3 ``VecEnv`` over them (:func:`make_vec_env`) and the chips of a
model's greedy play (:func:`play_deals`; :func:`play_each`: one deal per table, each from
its own seed, for duplicate deals) and the policy a model samples from, as a tree policy
(:func:`model_policy`). ``benchmarks/mini_best_response.py`` and
``benchmarks/mini_br_curve.py`` train and measure on them (docs/card_poker_research.md)."""

from __future__ import annotations

import itertools

import numpy as np

from agents.exact.tree import CHANCE, DECISION, TERMINAL, GameTree
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL
from envs.rules.card_poker_mini import MiniCardPokerRules, hand_key


def hand_features(rules: MiniCardPokerRules) -> dict[tuple[int, ...], tuple[float, float]]:
    """``{hand: (hand_rank, hand_strength)}`` for every hand of the deck, as card poker's
    observation gives them (``envs.obs.card_poker``): the hand's category (its place in
    the order of rank patterns, 0 = no pair) and the share of all hands of the deck it
    beats, ties counting half."""
    hands = list(itertools.combinations(range(rules.deck_size), rules.hand_size))
    keys = [hand_key(h, rules.suits) for h in hands]
    patterns = sorted({k[0] for k in keys})
    out = {}
    for h, k in zip(hands, keys, strict=True):
        beats = sum(1.0 if k > o else 0.5 if k == o else 0.0 for o in keys)
        out[h] = (float(patterns.index(k[0])), beats / len(keys))
    return out


def observations(tree: GameTree, rules: MiniCardPokerRules, strength: bool = True) -> np.ndarray:
    """One feature row per information set of mini card poker (module docstring); with
    ``strength`` (the default) the current hand's category and strength too, the two
    features card poker's own observation computes for the learner."""
    d = rules.deck_size
    n_bet = 2 + rules.max_bid - rules.min_bid + 1
    slots = rules.max_bids + 2
    width = 2 + 2 * d + 2 * (rules.max_draw + 2) + slots * n_bet
    features = hand_features(rules) if strength else None
    out = np.zeros((tree.n_infosets, width + 2 * strength), dtype=np.float32)
    for i, (seat, key) in enumerate(tree.infoset_keys):
        row = out[i]
        row[seat] = 1
        hand = list(key[0])
        row[2 + np.array(hand)] = 1
        bets = 0
        drawn = {0: -1, 1: -1}
        for event in key[1:]:
            if event[0] == "draw":
                out_cards = [c for j, c in enumerate(hand) if event[1] >> j & 1]
                hand = sorted([c for c in hand if c not in out_cards] + list(event[2]))
                drawn[seat] = event[1].bit_count()
            elif event[0] == "drew":
                drawn[event[1]] = event[2]
            else:
                action = event[1]
                kind = {PASS: 0, REVEAL: 1}.get(action, 2 + action - FIRST_BID)
                row[2 + 2 * d + 2 * (rules.max_draw + 2) + bets * n_bet + kind] = 1
                bets += 1
        row[2 + d + np.array(hand)] = 1
        for s in (0, 1):  # own exchange first, then the other's: 0 = not yet, k + 1 = k
            who = seat if s == 0 else 1 - seat
            row[2 + 2 * d + s * (rules.max_draw + 2) + drawn[who] + 1] = 1
        if features is not None:
            row[width:] = features[tuple(hand)]
    return out


class TreeTables:
    """``n`` deals walked down the flat tree at once, a learner in a random seat per deal
    and ``policy`` in the other (an SB3 ``VecEnv``, made by :func:`make_vec_env`); with
    ``seat`` the learner sits there in every deal.

    The learner's actions are **slots** (the ``i``-th legal action of its information set:
    a draw's "exchange the first card" and a bet's "reveal" are both slot 1) or, with
    ``game_actions``, card poker's action numbers made dense (:attr:`action_ids`: every
    action number of the tree its own output, as the full game's ``Discrete(42)`` gives
    every draw set and every bet its own).

    With ``seeds`` (one per table; ``n`` is then their number) each table draws its chance and
    the fixed policy's choices from its own stream (:class:`envs.batched.draws.GameDraws`, as
    the full game's engine does for ``reset(seed=[...])``), so tables of one seed meet the
    same deal whatever seat the learner holds."""

    def __init__(
        self,
        tree: GameTree,
        policy: np.ndarray,
        obs: np.ndarray,
        n: int,
        seed: int,
        seat: int | None = None,
        game_actions: bool = False,
        seeds: list[int] | None = None,
    ):
        from envs.batched.draws import GameDraws

        self.tree, self.policy, self.obs_table = tree, policy, obs
        self.draws = None if seeds is None else GameDraws(seeds)
        n = n if seeds is None else len(seeds)
        self.fixed_seat = seat
        self.game_actions = game_actions
        # the action numbers in use, and each information set's slot of each (-1: illegal)
        self.action_ids = sorted({a for acts in tree.actions for a in acts})
        index = {a: j for j, a in enumerate(self.action_ids)}
        self.slot_of = np.full((tree.n_infosets, len(self.action_ids)), -1, dtype=np.int64)
        for i, acts in enumerate(tree.actions):
            for slot, a in enumerate(acts):
                self.slot_of[i, index[a]] = slot
        self.legal = self.slot_of >= 0 if game_actions else tree.legal
        self.n_outputs = self.legal.shape[1]
        self.n = n
        self.rng = np.random.default_rng(seed)
        children = [[] for _ in range(tree.n_nodes)]
        for node in range(1, tree.n_nodes):
            children[tree.parent[node]].append(node)
        width = max(len(c) for c in children)
        self.child = np.zeros((tree.n_nodes, width), dtype=np.int64)
        cum = np.full((tree.n_nodes, width), 2.0)
        for node, kids in enumerate(children):
            if kids:
                kids = sorted(kids, key=lambda c: tree.slot[c])  # decision: slot order
                self.child[node, : len(kids)] = kids
                cum[node, : len(kids)] = np.cumsum(tree.chance_prob[kids])
                cum[node, len(kids) - 1] = 1.0  # a uniform below 1 always picks a child
        self.cum = cum
        self.node = np.zeros(n, dtype=np.int64)
        self.seat = np.zeros(n, dtype=np.int64)
        self.unplayed: list[np.ndarray] = []

    def _advance(self, rows: np.ndarray) -> None:
        tree = self.tree
        while True:
            nodes = self.node[rows]
            kind = tree.kind[nodes]
            chance = kind == CHANCE
            theirs = (kind == DECISION) & (tree.player[nodes] != self.seat[rows])
            if not (chance | theirs).any():
                return
            r, n = rows[chance], nodes[chance]
            u = self._uniform(r)
            j = (self.cum[n] < u[:, None]).sum(axis=1)
            self.node[r] = self.child[n, j]
            r, n = rows[theirs], nodes[theirs]
            cum = np.cumsum(self.policy[tree.infoset[n]], axis=1)
            u = self._uniform(r) * cum[:, -1]
            j = np.minimum((cum < u[:, None]).sum(axis=1), tree.max_actions - 1)
            self.node[r] = self.child[n, j]

    def _uniform(self, rows: np.ndarray) -> np.ndarray:
        """One uniform per row: from the engine's Generator, or each row's own stream."""
        if self.draws is None:
            return self.rng.random(len(rows))
        return self.draws.uniform(rows, 1)[:, 0]

    def reset_rows(self, rows: np.ndarray) -> None:
        """New deals at ``rows``; a deal that ends before the learner has a decision (the
        other seat passes or reveals first) is dealt again, its chips kept in
        ``unplayed`` (they count among the deals measured)."""
        while len(rows):
            self.node[rows] = 0
            if self.fixed_seat is None:
                self.seat[rows] = self.rng.integers(2, size=len(rows))
            else:
                self.seat[rows] = self.fixed_seat
            self._advance(rows)
            over = self.tree.kind[self.node[rows]] == TERMINAL
            self.unplayed.append(self.tree.utility[self.node[rows[over]], self.seat[rows[over]]])
            rows = rows[over]

    def observe(self) -> np.ndarray:
        return self.obs_table[self.tree.infoset[self.node]]

    def masks(self) -> np.ndarray:
        return self.legal[self.tree.infoset[self.node]]

    def as_policy(self, actions: np.ndarray) -> np.ndarray:
        """A pure tree policy from one learner action per information set (in the
        learner's action space: slots or action numbers)."""
        tree = self.tree
        sets = np.arange(tree.n_infosets)
        slots = self.slot_of[sets, actions] if self.game_actions else actions
        policy = np.zeros((tree.n_infosets, tree.max_actions))
        policy[sets, slots] = 1.0
        return policy

    def policy_of(self, probs: np.ndarray) -> np.ndarray:
        """A tree policy from probabilities over the learner's outputs at every information
        set (``(n_infosets, n_outputs)``, 0 where illegal): slots as they are, or action
        numbers moved to the slots of each set."""
        if not self.game_actions:
            return np.asarray(probs, dtype=np.float64)
        sets, outputs = np.nonzero(self.legal)
        policy = np.zeros((self.tree.n_infosets, self.tree.max_actions))
        policy[sets, self.slot_of[sets, outputs]] = probs[sets, outputs]
        return policy

    def play(self, actions: np.ndarray, rows: np.ndarray | None = None):
        """The learner's actions (slots) at ``rows`` (default all), then the others' until
        the learner is to move again or the deal is over: ``(reward, done)`` of ``rows``."""
        rows = np.arange(self.n) if rows is None else rows
        if self.game_actions:
            actions = self.slot_of[self.tree.infoset[self.node[rows]], actions]
        self.node[rows] = self.child[self.node[rows], actions]
        self._advance(rows)
        done = self.tree.kind[self.node[rows]] == TERMINAL
        reward = self.tree.utility[self.node[rows], self.seat[rows]] * done
        return reward, done


def play_deals(model, tables: TreeTables) -> np.ndarray:
    """The chips of one new deal per table, ``model``'s greedy policy in the learner's seat,
    each deal played to its end; the deals dealt again because the learner had no decision
    in them count too."""
    tables.reset_rows(np.arange(tables.n))
    chips, rows = list(tables.unplayed), np.arange(tables.n)
    while len(rows):
        a, _ = model.predict(
            tables.observe()[rows], deterministic=True, action_masks=tables.masks()[rows]
        )
        reward, done = tables.play(a, rows)
        chips.append(reward[done])
        rows = rows[~done]
    return np.concatenate(chips)


def play_each(model, tables: TreeTables) -> np.ndarray:
    """The chips of one deal per table in table order, ``model``'s greedy policy in the
    learner's seat, each deal played to its end; a deal that ends before the learner has a
    decision counts as it ended (it is not dealt again, so table ``i`` plays its own deal)."""
    if tables.fixed_seat is None:
        raise ValueError("play_each needs tables with the learner in one seat (seat=0 or 1)")
    rows = np.arange(tables.n)
    tables.node[rows] = 0
    tables.seat[rows] = tables.fixed_seat
    tables._advance(rows)
    chips = np.zeros(tables.n)
    while True:
        over = tables.tree.kind[tables.node[rows]] == TERMINAL
        done = rows[over]
        chips[done] = tables.tree.utility[tables.node[done], tables.seat[done]]
        rows = rows[~over]
        if not len(rows):
            return chips
        a, _ = model.predict(
            tables.observe()[rows], deterministic=True, action_masks=tables.masks()[rows]
        )
        tables.play(a, rows)


def model_policy(model, tables: TreeTables) -> np.ndarray:
    """The policy ``model`` samples from (the softmax of its masked logits) at every
    information set, as a tree policy: each set's observation (``tables.obs_table``)
    through the network at once (:func:`agents.ppo.masked_logits`)."""
    from agents.ppo import masked_logits

    logits = masked_logits(model, tables.obs_table, tables.legal)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    return tables.policy_of(probs / probs.sum(axis=1, keepdims=True))


def make_vec_env(tables: TreeTables):
    import gymnasium as gym
    from stable_baselines3.common.vec_env import VecEnv

    class TreeVecEnv(VecEnv):
        def __init__(self):
            width = tables.obs_table.shape[1]
            self.render_mode = None
            super().__init__(
                tables.n,
                gym.spaces.Box(0, 1, (width,), np.float32),
                gym.spaces.Discrete(tables.n_outputs),
            )

        def reset(self):
            tables.reset_rows(np.arange(tables.n))
            return tables.observe()

        def step_async(self, actions):
            self._actions = np.asarray(actions, dtype=np.int64)

        def step_wait(self):
            reward, done = tables.play(self._actions)
            final = tables.observe()
            infos = [{} for _ in range(tables.n)]
            rows = np.flatnonzero(done)
            for r in rows:
                infos[r]["terminal_observation"] = final[r]
            if len(rows):
                tables.reset_rows(rows)
            return tables.observe(), reward.astype(np.float32), done, infos

        def close(self):
            pass

        def get_attr(self, name, indices=None):
            return [getattr(self, name)] * self.num_envs

        def set_attr(self, name, value, indices=None):
            setattr(self, name, value)

        def env_method(self, name, *args, indices=None, **kwargs):
            if name == "action_masks":
                return list(tables.masks())
            raise AttributeError(name)

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * self.num_envs

        def has_attr(self, name):
            return name == "action_masks"

    return TreeVecEnv()
