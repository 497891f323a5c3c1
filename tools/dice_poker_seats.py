"""Dice poker by seat: an agent in each place of the turn order against two fixed players.

    python tools/dice_poker_seats.py --game dice_poker \\
        --agents handvalue:runs/dice_poker__dice_poker_handvalue__0/values.npz heuristic optimal \\
        --opponents heuristic optimal --games 100000

For every opponent kind and every agent: the agent sits in each place of the turn order
(0 = first to roll) of ``--games`` games with two copies of the opponent in the other
seats, on the batched engine (``envs.vector.play_games``, ``first_player=0``, the seat
fixed); a random seat is the mean over the places. Chips are per game, net of the ante
(with three players and ``ante=1``: +2 to the winner, -1 to the others), with 95%
intervals (mean ± 1.96 standard errors; the random-seat figure combines the places'
errors); win rates with Wilson intervals. Beside them the exact ``win_probabilities`` of
the dice-poker solver: the chance of each place when everybody plays optimally, which is
what the optimal player in that place wins against two optimal players (chips ``3w - 1``).
Every agent meets the same seeds, so the same dice as far as its own moves let them fall.
"""

from __future__ import annotations

if (
    not __package__
):  # run as a file (python tools/dice_poker_seats.py): this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from agents.seats import exact_seats, seat_results
from envs import games
from envs.cli import add_rule_argument, rule_options
from envs.rules.dice_poker import DicePokerRules


def markdown(results: list[dict], exact: list[float]) -> str:
    """One table per opponent kind: chips per game (random seat and by place) and win rates
    by place beside the exact ``win_probabilities``."""
    P = len(exact)
    places = " | ".join(f"place {p}: chips, win" for p in range(P))
    out = []
    for opp in dict.fromkeys(r["opponents"] for r in results):
        out += [
            f"\nAgainst two `{opp}` players ({results[0]['games_per_seat']} games per place):\n",
            f"| in the seat | chips/game, random seat | {places} |",
            "|---" * (P + 2) + "|",
        ]
        for r in (r for r in results if r["opponents"] == opp):
            cells = [
                f"{r['seat_chips'][p]:+.3f} ± {r['seat_chips_ci95'][p]:.3f}, "
                f"{100 * r['seat_win'][p]:.1f}%"
                for p in range(P)
            ]
            out.append(
                f"| {r['agent']} | {r['chips']:+.4f} ± {r['chips_ci95']:.4f} | "
                + " | ".join(cells)
                + " |"
            )
        if opp == "optimal":
            cells = [f"{P * w - 1:+.3f}, {100 * w:.1f}%" for w in exact]
            out.append("| optimal, exact (`win_probabilities`) | +0 | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dice_poker", help="dice_poker or dice_poker6")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs for the seat")
    parser.add_argument("--opponents", nargs="+", default=["heuristic", "optimal"])
    parser.add_argument("--games", type=int, default=100_000, help="games per place")
    parser.add_argument(
        "--players", type=int, default=None, help="seats at the table (default: the game's)"
    )
    parser.add_argument("--seed", type=int, default=0)
    add_rule_argument(parser)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    if args.game in games.names(aliases=True):
        args.game = games.get(args.game).name  # an alias plays as the registered name
    if args.game not in games.names_for(DicePokerRules):
        parser.error(f"--game must be one of {games.names_for(DicePokerRules)}, got {args.game!r}")
    rules = rule_options(
        parser, args, games.get(args.game).rule_options, games.get(args.game).make_rules
    )
    if args.players is None:
        args.players = games.get(args.game).default_players
    results = [
        seat_results(a, args.game, o, args.games, args.seed, args.players, **rules)
        for o in args.opponents
        for a in args.agents
    ]
    exact = exact_seats(args.game, args.players, **rules)
    print(markdown(results, exact))
    if args.json:
        Path(args.json).write_text(json.dumps({"exact_win": exact, "results": results}, indent=1))
    return results


def cli() -> None:
    """The command line: a bad option is one line and exit status 2."""
    try:
        main()
    except (ValueError, TypeError, FileNotFoundError) as err:
        print(f"dice_poker_seats.py: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    cli()
