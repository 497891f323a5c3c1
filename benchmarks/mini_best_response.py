"""Does a trained best response find the exact one? MaskablePPO against a fixed policy on
mini card poker, checked against the exact best response of the tree walk
(docs/card_poker_research.md).

    python benchmarks/mini_best_response.py --against careful --steps 200000
    python benchmarks/mini_best_response.py --against cfr --cfr-iterations 200

The learner plays a random seat each deal against the fixed policy (``careful``: the
rule of thumb of ``benchmarks/exact_card_poker.py``; ``cfr``: CFR+'s average policy;
``uniform``). It sees its information set (``MiniObservation``: its seat, dealt and
current cards, each player's exchange count, the bets in order) and picks among the
legal actions. Reported, in chips per deal over a random seat: the exact best response's
value, the trained learner's value measured on ``--eval-deals`` deals (95% interval),
and the learner's greedy policy's exact value through the tree (no sampling noise).

The tables are a VecEnv over the flat tree itself (chance and the fixed policy sampled
in numpy, all tables at once), so the game played is the tree's, node for node.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import itertools
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from agents.exact.fixed import fixed_policies  # noqa: E402
from agents.exact.games import MiniCardPoker  # noqa: E402
from agents.exact.solve import cfr  # noqa: E402
from agents.exact.tree import CHANCE, DECISION, TERMINAL, GameTree  # noqa: E402
from envs.rules.card_poker import FIRST_BID, PASS, REVEAL  # noqa: E402
from envs.rules.card_poker_mini import MiniCardPokerRules, hand_key  # noqa: E402


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
    every draw set and every bet its own)."""

    def __init__(
        self,
        tree: GameTree,
        policy: np.ndarray,
        obs: np.ndarray,
        n: int,
        seed: int,
        seat: int | None = None,
        game_actions: bool = False,
    ):
        self.tree, self.policy, self.obs_table = tree, policy, obs
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
            u = self.rng.random(len(r))
            j = (self.cum[n] < u[:, None]).sum(axis=1)
            self.node[r] = self.child[n, j]
            r, n = rows[theirs], nodes[theirs]
            cum = np.cumsum(self.policy[tree.infoset[n]], axis=1)
            u = self.rng.random(len(r)) * cum[:, -1]
            j = np.minimum((cum < u[:, None]).sum(axis=1), tree.max_actions - 1)
            self.node[r] = self.child[n, j]

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


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="careful", choices=["careful", "cfr", "uniform"])
    parser.add_argument("--cfr-iterations", type=int, default=200)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--eval-deals", type=int, default=20_000)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--curve-every", type=int, default=0, help="print the exact value")
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument(
        "--bare", action="store_true", help="no hand category and strength in the observation"
    )
    parser.add_argument("--rule", action="append", default=[], help="an option, e.g. ranks=3")
    args = parser.parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    rules = MiniCardPokerRules(**{k: int(v) for k, v in (r.split("=") for r in args.rule)})
    tree = GameTree(MiniCardPoker(rules))
    if args.against == "cfr":
        fixed, curve = cfr(tree, args.cfr_iterations, eval_at=[args.cfr_iterations])
        print(f"CFR+ {args.cfr_iterations} iterations: exploitability {curve[-1][1]:.6f}")
    else:
        fixed = fixed_policies(tree, rules)[
            "uniform" if args.against == "uniform" else "careful rule of thumb"
        ]
    exact = [tree.best_response(fixed, p)[0] for p in (0, 1)]
    own = tree.value(fixed)
    print(
        f"exact best response vs {args.against}: seat 0 {exact[0]:+.4f}, seat 1 "
        f"{exact[1]:+.4f}, random seat {np.mean(exact):+.4f} chips per deal "
        f"(the fixed policy in its own place: {own.mean():+.4f})"
    )
    obs = observations(tree, rules, strength=not args.bare)
    tables = TreeTables(tree, fixed, obs, args.n_envs, args.seed)
    env = make_vec_env(tables)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=512,
        n_epochs=4,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=args.ent_coef,
        learning_rate=args.lr,
        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [64, 64]}},
        seed=args.seed,
        verbose=0,
    )
    from stable_baselines3.common.callbacks import BaseCallback

    def greedy_values(stochastic: bool = False) -> list[float]:
        """The greedy learner as a tree policy (its choice at each of its information
        sets; with ``stochastic`` its action probabilities), valued exactly in each seat
        against the fixed policy."""
        if stochastic:
            with torch.no_grad():
                dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=tree.legal)
                learner = dist.distribution.probs.numpy().astype(np.float64)
        else:
            actions, _ = model.predict(obs, deterministic=True, action_masks=tree.legal)
            learner = np.zeros_like(fixed)
            learner[np.arange(tree.n_infosets), actions] = 1.0
        return [
            tree.value(np.where((tree.infoset_player == p)[:, None], learner, fixed))[p]
            for p in (0, 1)
        ]

    class Curve(BaseCallback):
        """The greedy policy's exact value every ``--curve-every`` decisions."""

        def __init__(self):
            super().__init__()
            self.next = args.curve_every

        def _on_step(self) -> bool:
            if args.curve_every and self.num_timesteps >= self.next:
                self.next += args.curve_every
                value = np.mean(greedy_values())
                print(f"  {self.num_timesteps:>9,} decisions: exact value {value:+.4f}", flush=True)
            return True

    start = time.perf_counter()
    model.learn(args.steps, callback=Curve())
    took = time.perf_counter() - start
    trained = greedy_values()
    sampling = np.mean(greedy_values(stochastic=True))
    print(f"the learner's own (sampling) policy, exact: {sampling:+.4f} over a random seat")
    # and measured on deals, as a best response is measured on the full game: one deal
    # per table, each played to its end (no table's short deals counted more often)
    evaluation = TreeTables(tree, fixed, obs, args.eval_deals, 10_000_000 + args.seed)
    won = play_deals(model, evaluation)
    half = 1.96 * won.std(ddof=1) / np.sqrt(len(won))
    print(
        f"trained ({args.steps:,} decisions, {args.steps / took:,.0f} steps/s): measured "
        f"{won.mean():+.4f} ± {half:.4f} over {len(won):,} deals; its greedy policy's exact "
        f"value seat 0 {trained[0]:+.4f}, seat 1 {trained[1]:+.4f}, random seat "
        f"{np.mean(trained):+.4f}; exact best response {np.mean(exact):+.4f}"
        + (
            f": recovered {100 * (np.mean(trained) - own.mean()) / gain:.1f}% of the gain"
            if (gain := np.mean(exact) - own.mean()) > 0.01
            else ""
        )
        + f"; exact figure inside the interval: {abs(won.mean() - np.mean(exact)) <= half}"
    )
    return {"model": model, "tree": tree, "fixed": fixed, "obs": obs, "exact": exact}


if __name__ == "__main__":
    main()
