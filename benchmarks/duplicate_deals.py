"""How much narrower the arena's 95% intervals get with duplicate deals, same number of games.

    python benchmarks/duplicate_deals.py                 # the tables of docs/duplicate_deals.md
    python benchmarks/duplicate_deals.py --card-deals 300 --dice-games 600   # a quick look

Each table plays the same agents the same number of games twice with one seed, seats
rotated, first with independent deals and then with duplicate deals (``run_arena(...,
duplicate=True)``: every deal replayed once per rotation of the seats), and prints per
agent the half-width of the chips-per-game interval both ways, their ratio, and how many
times more independent games would give the duplicate width (the ratio squared); the
same for the head-to-head differences (row minus column, same games).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import itertools
import time

from agents.arena import run_arena

TABLES = (
    ("card_poker", ("careful", "bluffer", "random"), {"deck": 36}),
    ("card_poker", ("careful", "bluffer", "random"), {"deck": 54}),
    ("card_poker", ("careful", "bluffer", "quick"), {"deck": 36}),
    ("dice_poker", ("heuristic", "optimal", "random"), {}),
)


def half(ci) -> float:
    return (ci[1] - ci[0]) / 2


def compare(game: str, specs, games: int, seed: int, workers: int, rules: dict) -> list[str]:
    runs = {}
    for dup in (False, True):
        start = time.perf_counter()
        runs[dup] = run_arena(
            game,
            list(specs),
            games,
            players=3,
            seed=seed,
            workers=workers,
            progress=False,
            duplicate=dup,
            **rules,
        )
        runs[dup].seconds = time.perf_counter() - start
    options = " ".join(f"{k}={v}" for k, v in rules.items())
    lines = [
        f"\n{game} {options}, 3 players, {games} games each way, seed {seed} "
        f"({runs[False].seconds:.0f} s, {runs[True].seconds:.0f} s)\n",
        "| chips/game of | independent: mean ± half-width | duplicate: mean ± half-width "
        "| width ratio | games factor |",
        "|---|---|---|---|---|",
    ]
    rows = {dup: runs[dup].summary() for dup in runs}
    for a, name in enumerate(runs[False].names):
        plain, dup = rows[False][a], rows[True][a]
        hp, hd = half(plain["chips_per_game_ci95"]), half(dup["chips_per_game_ci95"])
        lines.append(
            f"| {name} | {plain['chips_per_game']:+.3f} ± {hp:.3f} | "
            f"{dup['chips_per_game']:+.3f} ± {hd:.3f} | {hd / hp:.2f} | {(hp / hd) ** 2:.1f} |"
        )
    h2h = {dup: runs[dup].head_to_head() for dup in runs}
    for a, b in itertools.combinations(range(len(specs)), 2):
        names = runs[False].names
        hp = half(h2h[False]["difference_ci95"][a][b])
        hd = half(h2h[True]["difference_ci95"][a][b])
        dp, dd = h2h[False]["difference"][a][b], h2h[True]["difference"][a][b]
        lines.append(
            f"| {names[a]} − {names[b]} | {dp:+.3f} ± {hp:.3f} | {dd:+.3f} ± {hd:.3f} | "
            f"{hd / hp:.2f} | {(hp / hd) ** 2:.1f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--card-deals", type=int, default=3000)
    parser.add_argument("--dice-games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    for n, what in ((args.card_deals, "--card-deals"), (args.dice_games, "--dice-games")):
        if n < 6 or n % 3:
            parser.error(f"{what} must be a multiple of 3 (the players), at least 6, got {n}")
    for game, specs, rules in TABLES:
        games = args.card_deals if game == "card_poker" else args.dice_games
        print("\n".join(compare(game, specs, games, args.seed, args.workers, rules)), flush=True)


if __name__ == "__main__":
    main()
