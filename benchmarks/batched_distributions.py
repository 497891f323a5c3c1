"""Distribution checks of the batched engines that need no shared chance: the optimal
players, playing in batch on the engines' own dice, score what the solvers say they score.

    python benchmarks/batched_distributions.py                 # 100,000 games each
    python benchmarks/batched_distributions.py --games 20000 --seed 2

- Scorecard games (russian and classic): the optimal player (``agents.optimal.scorecard``,
  its ``act_batch``) plays ``--games`` games on ``BatchedScorecard``; its mean total against
  the solver's exact expected score, with the 95% confidence interval of the mean and the
  z-score.
- Prison dice poker (2 and 3 players, five and six dice): every seat played by the batched
  optimal player (seat 0 first) for ``--games`` games on ``BatchedDicePoker``; each seat's
  win rate against the solver's ``win_probabilities``, with its z-score.

The test suite runs the same functions on fewer games (``tests/batched/``).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401


def optimal_scorecard(rules: str, n_games: int, seed: int, chunk: int = 20_000) -> dict:
    """``n_games`` games of the optimal player on the batched scorecard engine, ``chunk``
    tables at a time: ``{"mean", "se", "expected", "z"}`` (``se``: the standard error of
    the mean; ``z``: (mean - expected) / se)."""
    from agents import make_agent
    from agents.arena import mean_interval
    from envs.batched.scorecard import BatchedScorecard

    agent = make_agent("optimal", "yahtzee" if rules == "russian" else "yahtzee_classic")
    rng = np.random.default_rng(seed)
    totals = []
    for start in range(0, n_games, chunk):
        n = min(chunk, n_games - start)
        engine = BatchedScorecard(n, agent.rules, seed=rng)
        engine.reset()
        while not engine.done.all():
            live = ~engine.done
            actions = np.zeros(n, dtype=np.int64)
            actions[live] = agent.act_batch(engine.observe()[live], engine.action_masks()[live])
            engine.step_some(actions, live)
        totals.append(engine.total.astype(np.float64))
    mean, _, upper = mean_interval(np.concatenate(totals), z=1.0)  # mean ± one standard error
    se = upper - mean
    expected = agent.solution.expected_score
    return {"mean": mean, "se": se, "expected": expected, "z": (mean - expected) / se}


def optimal_dice_seats(n_players: int, n_dice: int, n_games: int, seed: int) -> dict:
    """Every seat of ``n_games`` games of prison dice poker played by the batched optimal
    player, seat 0 first: ``{"rate", "p", "z"}`` per seat (the win rate, the solver's
    ``win_probabilities``, the z-score of the difference)."""
    from agents import make_agent
    from agents.optimal.dice_poker import win_probabilities
    from envs.batched.dice_poker import BatchedDicePoker
    from envs.rules.dice_poker import DicePokerRules

    engine = BatchedDicePoker(
        n_games, DicePokerRules(n_dice=n_dice), seed=seed, n_players=n_players, first_player=0
    )
    player = make_agent("optimal", "dice_poker" if n_dice == 5 else "dice_poker6")
    engine.reset()
    wins = np.zeros(n_players)
    while not engine.done.all():
        live = ~engine.done
        actions = np.zeros(n_games, dtype=np.int64)
        actions[live] = player.act_batch(engine.observe()[live], engine.action_masks()[live])
        wins += (engine.step_some(actions, live) > 0).sum(axis=0)
    rate = wins / n_games
    p = np.array(win_probabilities(n_players, n_dice))
    return {"rate": rate, "p": p, "z": (rate - p) / np.sqrt(p * (1 - p) / n_games)}


def main(argv: list[str] | None = None) -> list[str]:
    from agents.arena import Z95

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per check")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error(f"--games must be >= 2, got {args.games}")
    lines = [
        f"| optimal player, {args.games:,} games on the batched engine | mean (95% CI) "
        "| solver's exact value | z |",
        "|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    out = []
    for rules in ("russian", "classic"):
        r = optimal_scorecard(rules, args.games, args.seed)
        lo, hi = r["mean"] - Z95 * r["se"], r["mean"] + Z95 * r["se"]
        out.append(
            f"| {rules} scorecard: final total | {r['mean']:.2f} ({lo:.2f} to {hi:.2f}) "
            f"| {r['expected']:.2f} | {r['z']:+.2f} |"
        )
        print(out[-1], flush=True)
    for n_players, n_dice in ((2, 5), (3, 5), (2, 6), (3, 6)):
        r = optimal_dice_seats(n_players, n_dice, args.games, args.seed)
        for seat in range(n_players):
            rate, p = r["rate"][seat], r["p"][seat]
            half = Z95 * math.sqrt(p * (1 - p) / args.games)
            out.append(
                f"| dice poker, {n_dice} dice, {n_players} players: seat {seat} wins "
                f"| {rate:.4f} ({rate - half:.4f} to {rate + half:.4f}) | {p:.4f} "
                f"| {r['z'][seat]:+.2f} |"
            )
            print(out[-1], flush=True)
    return lines + out


if __name__ == "__main__":
    main()
