"""The trained best response's curve on mini card poker, checked against the exact best
response at every budget (docs/card_poker_research.md, "A trained best response against
the exact one").

    python benchmarks/mini_br_curve.py                         # careful and CFR+, 3 seeds
    python benchmarks/mini_br_curve.py --against careful --seeds 0 --budgets 30000,100000

The learner is MaskablePPO built as ``train/best_response.py`` builds it
(:func:`train.common.sb3.build_model` on the ``ppo:`` section of
``configs/best_response.yaml``; ``--ppo key=value`` replaces a key, the value read as
YAML), on the tables of ``benchmarks/mini_best_response.py`` (the flat tree walked in
numpy, the learner in a random seat, the fixed policy in the other), seeing its
information set plus the current hand's category and strength, as card poker's own
observation gives them. One training run per seed; at each budget of ``--budgets`` its
greedy policy is

- **measured** on ``--eval-deals`` duplicate deals, each played once in each seat (the 95%
  interval over the deals), by the evaluation code of the full game's best response
  (``train.common.best_response``: :func:`rotated_blocks`, :func:`summarise_blocks`), and
- valued **exactly** through the tree (no sampling noise),

beside the exact best response's value (chips per deal, ante 1, over a random seat). The
question: does the measured interval hold the exact best response's value, and how far
below it does the trained curve sit at each budget (``below``: exact minus measured, and
as a share of the exact gain)? The fixed
policies: ``careful`` (the rule of thumb of ``benchmarks/exact_card_poker.py``) and
``cfr`` (CFR+'s average policy after ``--cfr-iterations``, exploitability printed).
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
from agents.exact.tables import (  # noqa: E402
    TreeTables,
    make_vec_env,
    observations,
    play_each,
)
from agents.exact.tree import GameTree  # noqa: E402
from envs.rules.card_poker_mini import MiniCardPokerRules  # noqa: E402
from train.common.best_response import (  # noqa: E402
    budget_callback,
    ppo_section,
    rotated_blocks,
    summarise_blocks,
)

EVAL_SEED = 10_000_000


def greedy_policy(model, obs: np.ndarray, tables: TreeTables) -> np.ndarray:
    """The learner's greedy choice at every information set, as a tree policy."""
    actions, _ = model.predict(obs, deterministic=True, action_masks=tables.legal)
    return tables.as_policy(actions)


def exact_values(tree: GameTree, learner: np.ndarray, fixed: np.ndarray) -> list[float]:
    """What ``learner`` wins exactly in each seat against ``fixed`` in the other."""
    return [
        tree.value(np.where((tree.infoset_player == p)[:, None], learner, fixed))[p]
        for p in range(tree.n_players)
    ]


def measure(
    model, tree, fixed, obs, n: int, seed: int, game_actions: bool = True
) -> tuple[float, float]:
    """The greedy learner's chips per deal on ``n`` duplicate deals, each played once in
    each seat (to its end; a deal where it has no decision counts), measured by the
    evaluation the full game's best response uses (:func:`rotated_blocks`,
    :func:`summarise_blocks` of ``train.common.best_response``): ``(mean, 95% half-width
    over the deals)``."""

    def play_seat(seat: int, seeds: list[int]) -> np.ndarray:
        return play_each(model, TreeTables(tree, fixed, obs, 0, 0, seat, game_actions, seeds))

    s = summarise_blocks(rotated_blocks(play_seat, tree.n_players, n, seed))
    lo, hi = s["chips_per_game_ci95"]
    return s["chips_per_game"], (hi - lo) / 2


def curve(
    tree: GameTree,
    fixed: np.ndarray,
    obs: np.ndarray,
    seed: int,
    budgets: list[int],
    ppo: dict,
    n_envs: int = 64,
    eval_deals: int = 20_000,
    game_actions: bool = True,
    log=print,
) -> list[dict]:
    """One training run of ``max(budgets)`` decisions; a row per budget (module docstring)."""
    from train.common.sb3 import build_model, setup_torch

    setup_torch(1)
    tables = TreeTables(tree, fixed, obs, n_envs, seed, game_actions=game_actions)
    env = make_vec_env(tables)
    model = build_model(ppo, env, seed)
    rows: list[dict] = []
    start = time.perf_counter()

    def evaluate(budget: int | None = None, step: int | None = None):
        took = time.perf_counter() - start
        greedy = greedy_policy(model, obs, tables)
        exact = exact_values(tree, greedy, fixed)
        mean, half = measure(model, tree, fixed, obs, eval_deals, EVAL_SEED, game_actions)
        row = {
            "seed": seed,
            "budget": budget,
            "decisions": int(model.num_timesteps),
            "measured": mean,
            "half": half,
            "exact_greedy": float(np.mean(exact)),
            "exact_greedy_seats": exact,
            "train_s": took,
        }
        rows.append(row)
        log(
            f"  seed {seed} {row['decisions']:>8,} decisions: measured {mean:+.4f} ± {half:.4f}, "
            f"greedy exact {row['exact_greedy']:+.4f} (seats {exact[0]:+.4f} {exact[1]:+.4f}), "
            f"{took:.0f} s"
        )

    todo = sorted(budgets)
    model.learn(max(budgets), callback=budget_callback(todo, evaluate))
    if len(rows) < len(todo):  # the last budget past the last step
        evaluate(todo[-1], int(model.num_timesteps))
    return rows


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="careful,cfr", help="careful, cfr, uniform (commas)")
    parser.add_argument("--cfr-iterations", type=int, default=300)
    parser.add_argument("--budgets", default="30000,100000,300000")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--eval-deals", type=int, default=20_000, help="per seat")
    parser.add_argument("--ppo", action="append", default=[], help="key=value (YAML value)")
    parser.add_argument("--bare", action="store_true", help="no hand category and strength")
    parser.add_argument(
        "--slots", action="store_true", help="slots as actions (a draw and a bet share outputs)"
    )
    parser.add_argument("--rule", action="append", default=[], help="an option, e.g. ranks=3")
    args = parser.parse_args(argv)
    rules = MiniCardPokerRules(**{k: int(v) for k, v in (r.split("=") for r in args.rule)})
    tree = GameTree(MiniCardPoker(rules))
    obs = observations(tree, rules, strength=not args.bare)
    ppo = ppo_section(args.ppo)
    budgets = [int(b) for b in args.budgets.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"ppo: {ppo}")
    out: dict = {}
    for against in args.against.split(","):
        if against == "cfr":
            fixed, c = cfr(tree, args.cfr_iterations, eval_at=[args.cfr_iterations])
            print(f"CFR+ {args.cfr_iterations} iterations: exploitability {c[-1][1]:.6f}")
        else:
            names = {"careful": "careful rule of thumb", "uniform": "uniform"}
            fixed = fixed_policies(tree, rules)[names[against]]
        best = [tree.best_response(fixed, p)[0] for p in (0, 1)]
        target = float(np.mean(best))
        print(
            f"against {against}: exact best response {target:+.4f} chips per deal "
            f"(seat 0 {best[0]:+.4f}, seat 1 {best[1]:+.4f})"
        )
        rows = [
            r
            for s in seeds
            for r in curve(
                tree, fixed, obs, s, budgets, ppo, args.n_envs, args.eval_deals, not args.slots
            )
        ]
        print(
            f"\n| {against} | decisions | measured (95% CI) | greedy, exact | "
            "exact BR | below the exact BR | inside the CI |"
        )
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            r["below"] = target - r["measured"]
            inside = abs(r["below"]) <= r["half"]
            share = f" ({r['below'] / abs(target):.0%})" if abs(target) > 1e-3 else ""
            print(
                f"| seed {r['seed']} | {r['decisions']:,} | {r['measured']:+.4f} ± "
                f"{r['half']:.4f} | {r['exact_greedy']:+.4f} | {target:+.4f} | "
                f"{r['below']:+.4f}{share} | {'yes' if inside else 'no'} |"
            )
        out[against] = {"exact": target, "rows": rows}
    return out


if __name__ == "__main__":
    main()
