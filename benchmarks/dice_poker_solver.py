"""Exact optimal prison dice poker: solve times and the README tables.

    python benchmarks/dice_poker_solver.py                      # 2-6 players, 5 and 6 dice
    python benchmarks/dice_poker_solver.py --dice 5 --players 2 3 --rule lock_kept_dice=false
    python benchmarks/dice_poker_solver.py --dice 5 --targets   # one turn against every target

Prints markdown: the best one-turn chance of five (six) of a kind with and
without the frozen-dice rule, each seat's chance to win under optimal play by
everyone, and the time each game took to solve (from a cold cache; an
``n``-player game reuses the smaller games its play-offs need, so the
cumulative column is the cost of solving it from nothing).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import time

from tqdm import tqdm

from agents.optimal import dice_poker as solver
from envs import games
from envs.cli import add_rule_argument, rule_options

# the rule options a solve takes: every dice-poker option (the dice come with --dice)
SOLVER_OPTIONS = games.get("dice_poker6").rule_options


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``.variant`` holds the parsed ``--rule`` options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, nargs="+", choices=(5, 6), default=[5, 6])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
    add_rule_argument(parser, example="lock_kept_dice=false")
    parser.add_argument(
        "--targets", action="store_true", help="also print one turn's odds against every target"
    )
    args = parser.parse_args(argv)
    args.variant = rule_options(parser, args, SOLVER_OPTIONS)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    variant = args.variant
    variant_text = ", ".join(f"{k}={v!r}" for k, v in variant.items()) or "default rules"

    print(f"\n### Best chance of a single-face hand within one turn ({variant_text})\n")
    print("| dice | hand | frozen dice (default) | free re-rolls |")
    print("|---|---|---|---|")
    one_turn = {k: v for k, v in variant.items() if k != "lock_kept_dice"}
    for n in args.dice:
        locked = solver.hand_chance("poker", n, lock_kept_dice=True, **one_turn)
        free = solver.hand_chance("poker", n, lock_kept_dice=False, **one_turn)
        what = {5: "five of a kind", 6: "six of a kind"}[n]
        print(f"| {n} | {what} | {locked:.6f} ({locked:.3%}) | {free:.6f} ({free:.3%}) |")

    jobs = [(n, m) for n in args.dice for m in sorted(args.players)]
    results = {}
    cumulative = dict.fromkeys(args.dice, 0.0)
    for n, m in tqdm(jobs, desc="solving games", unit="game"):
        start = time.perf_counter()
        sol = solver.solve_game(m, n, **variant)
        took = time.perf_counter() - start
        cumulative[n] += took
        results[n, m] = sol, took, cumulative[n]

    width = max(args.players)
    for n in args.dice:
        print(f"\n### Win probability by seat, {n} dice, optimal play by all ({variant_text})\n")
        seats = " | ".join(f"seat {i + 1}" for i in range(width))
        print(f"| players | {seats} | first seat vs fair share | last minus first |")
        print("|---|" + "---|" * width + "---|---|")
        for m in sorted(args.players):
            win = results[n, m][0].win
            cells = [f"{w:.4f}" for w in win] + [""] * (width - m)
            edge = win[0] - 1 / m
            print(
                f"| {m} | {' | '.join(cells)} | {edge:+.4f} ({win[0] * m - 1:+.1%}) "
                f"| {win[-1] - win[0]:+.4f} |"
            )

    print(f"\n### Solve times ({variant_text})\n")
    print("| dice | players | turns solved | fixed-point passes | seconds | cumulative s |")
    print("|---|---|---|---|---|---|")
    for (n, m), (sol, took, cum) in results.items():
        print(f"| {n} | {m} | {sol.turns_solved} | {sol.iterations} | {took:.2f} | {cum:.2f} |")

    if args.targets:
        for n in args.dice:
            start = time.perf_counter()
            # P(beat or tie k) is P(beat k-1), so the informative pair is the chase of the
            # last of two players, for whom a tie is worth its play-off share.
            share = solver.win_probabilities(2, n, **variant)[1]
            best = solver.target_odds(n, 0.0, **variant)
            chase = solver.target_odds(n, share, **variant)
            took = time.perf_counter() - start
            print(f"\n### One turn against each target, {n} dice ({variant_text}, {took:.1f} s)\n")
            print(
                f"Last of two players: a tie leads to a play-off worth {share:.4f} to them.\n\n"
                "| target | best P(beat) | last of two: P(beat) | P(tie) | P(win the game) |\n"
                "|---|---|---|---|---|"
            )
            for i, label in enumerate(best.labels):
                b, t = chase.beat[i], chase.tie[i]
                print(f"| {label} | {best.beat[i]:.4f} | {b:.4f} | {t:.4f} | {b + share * t:.4f} |")


if __name__ == "__main__":
    main()
