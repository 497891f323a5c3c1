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
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from agents.exact.fixed import fixed_policies  # noqa: E402
from agents.exact.games import MiniCardPoker  # noqa: E402
from agents.exact.solve import cfr  # noqa: E402
from agents.exact.tables import TreeTables, make_vec_env, observations, play_deals  # noqa: E402
from agents.exact.tree import GameTree  # noqa: E402
from envs.rules.card_poker_mini import MiniCardPokerRules  # noqa: E402


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
