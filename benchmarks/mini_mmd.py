"""Neural MMD self-play against plain self-play PPO on mini card poker, with the exact
exploitability of what the network plays along the way (docs/card_poker_research.md,
"Neural MMD self-play, exactly").

    python benchmarks/mini_mmd.py                                    # both methods, seeds 0 1
    python benchmarks/mini_mmd.py --methods mmd --seeds 0 --decisions 100000 --eval-every 2

The learner is :class:`train.common.mmd.MmdPPO` (MaskablePPO with MMD's reverse KL to a
magnet that follows the policy by Polyak steps) built on the ``ppo:`` section of
``configs/best_response.yaml`` as ``benchmarks/mini_br_curve.py`` builds its best response
(``--ppo key=value`` replaces a key), on the tables of :mod:`agents.exact.tables`: the flat
tree walked in numpy, the learner in a random seat of each deal, card poker's action
numbers as its outputs, its information set plus the hand's category and strength as its
observation. **Self-play:** the other seat plays the network's own current policy: at the
start of every rollout the network's softmax at every information set becomes the tables'
fixed policy (:func:`agents.exact.tables.model_policy`), so the opponent is the latest
snapshot. ``mmd`` uses ``--magnet-coef`` and ``--magnet-tau``; ``ppo`` is the same code
with the coefficient 0 (no magnet term: MaskablePPO's loss).

Every ``--eval-every`` PPO updates (and at the end) the network's policy, as it samples
(the last iterate, no averaging), is valued exactly: its exploitability through the tree
(:meth:`agents.exact.tree.GameTree.exploitability`: the mean of both seats' exact
best-response gains, chips per deal, ante 1; the pot starts at 2 chips, the scale of the
percentages), and the same for its greedy (most likely action) policy, the one
``make_agent("ppo:PATH")`` plays.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from agents.exact.games import MiniCardPoker  # noqa: E402
from agents.exact.tables import TreeTables, make_vec_env, model_policy, observations  # noqa: E402
from agents.exact.tree import GameTree  # noqa: E402
from envs.rules.card_poker_mini import MiniCardPokerRules  # noqa: E402
from train.common.best_response import ppo_section  # noqa: E402


def greedy(policy: np.ndarray) -> np.ndarray:
    """The pure policy of each information set's most likely action."""
    out = np.zeros_like(policy)
    out[np.arange(len(policy)), policy.argmax(axis=1)] = 1.0
    return out


def self_play(
    tree: GameTree,
    obs: np.ndarray,
    seed: int,
    decisions: int,
    ppo: dict,
    magnet_coef: float,
    magnet_tau: float,
    eval_every: int = 4,
    n_envs: int = 64,
    log=print,
) -> list[dict]:
    """One self-play run of ``decisions`` learner decisions (module docstring): a row per
    evaluation (decisions, updates, exact exploitability of the sampled and the greedy
    policy, seconds of training)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from train.common.mmd import MmdConfig, build_mmd_model
    from train.common.sb3 import setup_torch

    setup_torch(1)
    tables = TreeTables(tree, tree.uniform(), obs, n_envs, seed, game_actions=True)
    model = build_mmd_model(
        ppo, MmdConfig(magnet_coef=magnet_coef, magnet_tau=magnet_tau), make_vec_env(tables), seed
    )
    rows: list[dict] = []
    clock = {"train": 0.0, "since": time.perf_counter()}
    scale = 2 * tree.game.rules.ante

    def evaluate(policy: np.ndarray, updates: int) -> None:
        clock["train"] += time.perf_counter() - clock["since"]
        row = {
            "seed": seed,
            "decisions": int(model.num_timesteps),
            "updates": updates,
            "exploitability": tree.exploitability(policy),
            "greedy": tree.exploitability(greedy(policy)),
            "value_seat0": float(tree.value(policy)[0]),
            "train_s": clock["train"],
        }
        rows.append(row)
        log(
            f"  seed {seed} {row['decisions']:>8,} decisions ({updates} updates): "
            f"exploitability {row['exploitability']:.4f} "
            f"({100 * row['exploitability'] / scale:.2f}% of the pot), greedy "
            f"{row['greedy']:.4f}, seat 0 value {row['value_seat0']:+.4f}, "
            f"{row['train_s']:.0f} s"
        )
        clock["since"] = time.perf_counter()

    class Refresh(BaseCallback):
        """The opponent becomes the current policy at every rollout's start."""

        updates = 0

        def _on_rollout_start(self) -> None:
            policy = model_policy(self.model, tables)
            tables.policy = policy
            if self.model.num_timesteps and self.updates % eval_every == 0:
                evaluate(policy, self.updates)

        def _on_rollout_end(self) -> None:
            self.updates += 1

        def _on_step(self) -> bool:
            return True

    refresh = Refresh()
    evaluate(model_policy(model, tables), 0)
    model.learn(decisions, callback=refresh)
    if rows[-1]["decisions"] != model.num_timesteps:
        evaluate(model_policy(model, tables), refresh.updates)
    return rows


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="mmd,ppo", help="mmd, ppo (commas)")
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--decisions", type=int, default=300_000, help="per run")
    parser.add_argument("--eval-every", type=int, default=4, help="PPO updates")
    parser.add_argument("--magnet-coef", type=float, default=0.1, help="mmd's KL weight")
    parser.add_argument("--magnet-tau", type=float, default=0.05, help="mmd's magnet step")
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--ppo", action="append", default=[], help="key=value (YAML value)")
    parser.add_argument("--rule", action="append", default=[], help="an option, e.g. ranks=3")
    args = parser.parse_args(argv)
    methods = args.methods.split(",")
    bad = [m for m in methods if m not in ("mmd", "ppo")]
    if bad:
        parser.error(f"--methods: {bad[0]!r} is not one of mmd, ppo")
    rules = MiniCardPokerRules(**{k: int(v) for k, v in (r.split("=") for r in args.rule)})
    tree = GameTree(MiniCardPoker(rules))
    obs = observations(tree, rules)
    ppo = ppo_section(args.ppo)
    seeds = [int(s) for s in args.seeds.split(",")]
    scale = 2 * rules.ante
    print(f"{rules}: {tree.n_nodes:,} histories, {tree.n_infosets:,} information sets")
    print(f"ppo: {ppo}")
    out: dict = {}
    for method in methods:
        coef = args.magnet_coef if method == "mmd" else 0.0
        name = f"{method} (magnet_coef {coef}, magnet_tau {args.magnet_tau})"
        print(f"\n{name}")
        out[method] = [
            r
            for s in seeds
            for r in self_play(
                tree,
                obs,
                s,
                args.decisions,
                ppo,
                coef,
                args.magnet_tau,
                args.eval_every,
                args.n_envs,
            )
        ]
    print("\nexact exploitability, chips per deal (% of the 2-chip pot); greedy in brackets")
    cols = [(m, s) for m in methods for s in seeds]
    print("| decisions | " + " | ".join(f"{m} seed {s}" for m, s in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    steps = sorted({r["decisions"] for m in methods for r in out[m]})
    for d in steps:
        cells = []
        for m, s in cols:
            r = next((r for r in out[m] if r["seed"] == s and r["decisions"] == d), None)
            cells.append(
                ""
                if r is None
                else f"{r['exploitability']:.4f} ({100 * r['exploitability'] / scale:.1f}%) "
                f"[{r['greedy']:.3f}]"
            )
        print(f"| {d:,} | " + " | ".join(cells) + " |")
    for m, s in cols:
        rows = [r for r in out[m] if r["seed"] == s]
        best = min(rows, key=lambda r: r["exploitability"])
        print(
            f"{m} seed {s}: last {rows[-1]['exploitability']:.4f}, lowest "
            f"{best['exploitability']:.4f} at {best['decisions']:,} decisions, "
            f"{rows[-1]['train_s']:.0f} s of training"
        )
    return out


if __name__ == "__main__":
    main()
