"""Benchmark agents against each other at any game: seats rotated, 95% intervals, ratings.

    python tools/benchmark.py --game dice_poker --agents random heuristic optimal --games 6000
    python tools/benchmark.py --game card_poker --agents random careful bluffer --players 4
    python tools/benchmark.py --game card_poker --agents careful random --duplicate --games 300
    python tools/benchmark.py --game yahtzee --agents random heuristic optimal ppo:runs/x/model.zip
    python tools/benchmark.py --game yahtzee_classic --agents heuristic optimal --rule joker=free
    python tools/benchmark.py --game dice_poker --agents optimal heuristic --record game.gif

Any agent spec of ``agents.make_agent`` takes any seat (``ppo:PATH`` loads a trained
model). ``--players`` seats are filled by the specs in turn (seat k gets spec
k mod the number of specs), so there must be at least as many seats as specs; seats
are rotated so every agent plays every position equally. Poker games report win rate,
chips per game and a head-to-head matrix; the scorecard games report mean scores
(every agent on the same dice; with ``--players`` > 1 also the settlement, total minus
the table mean). Every figure has a 95% confidence interval, and every agent an
openskill rating from the same games. The same ``--seed`` gives the same result for
any ``--workers``; see :mod:`agents.arena` for the details.

``--batched`` (scorecard games) plays every agent alone over ``--games`` games on the batched
engine instead, as a trainer's evaluation plays them (``train.common.sb3.evaluate``): the same
games as a run's final evaluation of seed ``--seed`` (``EVAL_SEED + seed``), so the heuristic's
figure there is the ``heuristic_in_its_place`` of that run's ``final.json``. It prints the mean
score, the % of the exact optimum and the card-bonus rates (upper bonus / stage-1 bonus, classic
Yahtzee bonuses per game) of each agent, with its seconds:

    python tools/benchmark.py --game yahtzee_classic --batched --games 10000 \\
        --agents ppo:runs/yahtzee_classic__yahtzee_classic_long__0/model.zip heuristic optimal

``--duplicate`` (poker games) replays every deal once per rotation of the seats: the
same shuffled deck, or the same dice roll by roll (common dice), with every agent in
every position of it; the intervals then count each block of ``--players`` games as
one draw. For the same number of games the intervals are narrower where the cards or
dice decide much of a game (docs/duplicate_deals.md has the measurements). It is off
by default so that the figures of a seed stay those measured before it existed.

Writes a markdown table to stdout and ``results.csv``, ``results.json`` and
``chart.png`` to ``--out`` (default ``benchmarks/results/{game}__{seed}/``).
``--record OUT.gif|OUT.mp4`` also records one game of the agents at one table (seat k
plays agent k mod the number of specs; scorecard games played alone put every agent at
one table, each with their own card), as :func:`envs.render.record.record_game` draws it.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

from agents import AGENTS, TRAINED_SPECS
from agents.arena import (
    ArenaResult,
    build_agents,
    check_fits,
    check_games,
    check_spec,
    default_workers,
    make_setup,
    run_arena,
)
from agents.atomic import atomic_write, json_safe, write_text
from envs import games
from envs.cli import add_rule_argument, rule_options

ROOT = Path(__file__).resolve().parent.parent


OUTPUTS = ("results.json", "results.csv", "chart.png")


def check_out(out: Path, outputs: tuple[str, ...] = OUTPUTS) -> None:
    """Fail before any game is played if the results (``outputs``) could not be written to
    ``out``."""
    if out.exists() and not out.is_dir():
        raise ValueError(
            f"--out {str(out)!r} is a file; give a folder (it receives {', '.join(outputs)})"
        )
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"--out {str(out)!r}: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"--out {str(out)!r}: no permission to write in {str(existing)!r}")
    for name in outputs:
        if (out / name).is_dir():
            raise ValueError(f"--out {str(out)!r}: {name} there is a folder; results go in files")


def write_outputs(result: ArenaResult, out: Path, chart: bool = True) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "results.csv"]
    write_text(paths[0], json.dumps(json_safe(result.to_json()), indent=1) + "\n")
    rows = result.csv_rows()
    with atomic_write(paths[1], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if chart:
        paths.append(out / "chart.png")
        result.chart(paths[-1])
    return paths


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmark.py",
        description="Agents against agents at any game: seats rotated, 95%% intervals, ratings.",
    )
    parser.add_argument("--game", required=True, choices=games.names(aliases=True))
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help=f"agent specs: {', '.join(sorted(AGENTS))}, {TRAINED_SPECS}",
    )
    parser.add_argument("--games", type=int, default=2000, help="games (deals) to play")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats at the table, filled by the specs in turn (default: one per agent, "
        "at least 2; scorecard games: 1 = every agent plays alone on the same dice)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--batched",
        action="store_true",
        help="scorecard games: each agent alone on the batched engine, a trainer's final "
        "evaluation of seed --seed (score, %% of the optimum, card-bonus rates)",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="poker games: duplicate deals, each deal replayed once per rotation of the "
        "seats (--games a multiple of the players); intervals over those blocks",
    )
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="processes (default %(default)s)"
    )
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    add_rule_argument(parser, example="joker=free")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--no-chart", action="store_true")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="OUT.gif|OUT.mp4",
        help="also record one game of these agents as an animated GIF or an MP4",
    )
    return parser


def record_one_game(args: argparse.Namespace, players: int, rules: dict) -> Path:
    """One game of ``args.agents`` at one table (alone-play: all of them at one table)."""
    from agents.tables import record_game

    if players == 1:
        players = len(args.agents)
    return record_game(args.game, args.agents, args.record, players, seed=args.seed, **rules)


def main(argv: list[str] | None = None) -> ArenaResult | list[dict]:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.game = games.get(args.game).name  # an alias plays as the registered name
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    if args.seed < 0:
        parser.error(f"--seed must be a whole number >= 0, got {args.seed}")
    out = args.out or ROOT / "benchmarks" / "results" / f"{args.game}__{args.seed}"
    rules = rule_options(parser, args, games.get(args.game).rule_options)
    if args.batched:
        return batched_evaluation(parser, args, out, rules)
    try:
        for spec in args.agents:
            check_spec(spec, args.game)
        check_out(out)
        setup = make_setup(args.game, args.agents, args.players, args.duplicate, **rules)
        check_games(setup, args.games)
        if args.record is not None:
            from envs.render.record import check_path

            check_path(args.record)
        agents = build_agents(setup)
        for agent in agents:
            check_fits(agent, args.game, setup.players, rules)
    except (ValueError, TypeError, FileNotFoundError) as err:
        parser.error(str(err))
    start = time.perf_counter()
    result = run_arena(
        args.game,
        args.agents,
        args.games,
        players=setup.players,
        seed=args.seed,
        workers=args.workers,
        progress=not args.no_progress,
        agents=agents,
        duplicate=args.duplicate,
        **rules,
    )
    elapsed = time.perf_counter() - start
    mode = "alone on the same dice" if setup.solo else f"{setup.players} players, seats rotated"
    if args.duplicate:
        mode += ", duplicate deals"
    options = ", ".join(f"{k}={v}" for k, v in rules.items()) or "default rules"
    print(f"{args.game}: {args.games} games, {mode}, {options}, seed {args.seed}\n")
    print(result.markdown())
    if setup.scorecard:
        print("\n" + arena_bonuses(result, games.get(args.game).make_rules(**rules)))
    paths = write_outputs(result, out, chart=not args.no_chart)
    if args.record is not None:
        paths.append(record_one_game(args, setup.players, rules))
    print(
        f"\n({elapsed:.0f} s, {args.workers} workers; wrote {', '.join(map(str, paths))})",
        file=sys.stderr,
    )
    return result


def arena_bonuses(result: ArenaResult, rules) -> str:
    """The card-bonus figures of each agent of a scorecard arena, one line each."""
    from train.common.results import bonus_figures, bonus_text

    rec = result.records
    yahtzee = rec.value - rec.rows.sum(axis=-1) - rec.bonus  # a card's total is rows + bonuses
    lines = []
    for a, name in enumerate(result.names):
        held = rec.agent == a
        if held.sum() >= 2:
            figures = bonus_figures(rules, rec.bonus[held], yahtzee[held])
            lines.append(f"{name}: {bonus_text(figures)}")
    return "\n".join(lines)


def batched_evaluation(parser, args, out: Path, rules: dict) -> list[dict]:
    """``--batched``: each agent alone over ``--games`` games of the batched engine (the
    games of a run's final evaluation, seed ``--seed``); the table printed, ``results.json``
    and ``results.csv`` written to ``out``; the rows returned."""
    from agents import make_agent
    from agents.optimal.scorecard import solve
    from agents.tables import play_games
    from train.common.results import BONUS_WORDS, EVAL_SEED, bonus_figures, mean_ci

    record = games.get(args.game)
    if record.result != "points" or not record.batched_engine:
        parser.error(f"--batched plays the scorecard games only, not {args.game!r}")
    if args.games < 2:
        parser.error(f"--batched needs --games of at least 2, got {args.games}")
    try:
        for spec in args.agents:
            check_spec(spec, args.game)
        check_out(out, ("results.json", "results.csv"))
        players = [make_agent(spec, args.game, **rules) for spec in args.agents]
    except (ValueError, TypeError, FileNotFoundError) as err:
        parser.error(str(err))
    card_rules = record.make_rules(**rules)
    best = solve(card_rules).expected_score
    seed = EVAL_SEED + args.seed
    rows = []
    for spec, agent in zip(args.agents, players, strict=True):
        start = time.perf_counter()
        cards: dict = {}
        totals = play_games(agent.act_batch, record.gym_id, args.games, seed, cards, **rules)
        score, ci = mean_ci(totals)
        row = {"agent": spec, "games": args.games, "score": score, "score_ci95": ci}
        row["pct_optimal"] = 100 * score / best
        row.update(bonus_figures(card_rules, cards["card_bonus"], cards["yahtzee_bonus"]))
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
    names = [k for k in BONUS_WORDS if k in rows[0]]
    head = ["agent", "mean score (95% CI)", "% of optimum", *(BONUS_WORDS[k] for k in names), "s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["agent"], f"{r['score']:.2f} ± {r['score_ci95']:.2f}", f"{r['pct_optimal']:.2f}"]
        cells += [f"{r[k]:.3f} ± {r[f'{k}_ci95']:.3f}" for k in names]
        lines.append("| " + " | ".join([*cells, f"{r['seconds']:.0f}"]) + " |")
    options = ", ".join(f"{k}={v}" for k, v in rules.items()) or "default rules"
    print(
        f"{args.game}: {args.games} games on the batched engine, each agent alone on the games "
        f"of seed {args.seed} (play_games seed {seed}), {options}; optimum {best:.2f}\n"
    )
    print("\n".join(lines))
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "results.json", json.dumps({"optimal": best, "rows": rows}, indent=1) + "\n")
    with atomic_write(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"\n(wrote {out / 'results.json'}, {out / 'results.csv'})", file=sys.stderr)
    return rows


def cli() -> None:
    """The command line (``dicepoker-bench``)."""
    main()


if __name__ == "__main__":
    cli()
