"""Speed of the batched engines: decisions per second at N = 1, 64, 1,024 and 16,384 games.

    python benchmarks/batched_speed.py                  # every section
    python benchmarks/batched_speed.py --only card card_eval --repeats 5

One core (the engines are single-threaded numpy; the thread variables below keep any
library from spreading out). Actions are random legal ones, drawn in batch from the
masks (``random_actions``), and that draw is part of the time. Every figure is the
median of ``--repeats`` runs, each running about ``--seconds`` seconds: the machine is
shared, so the median is the figure to quote (``--clock cpu`` times the process's CPU
time instead of wall time, which other work on the machine does not stretch). Each
game's section is its own function (``SECTIONS``), so every engine adds its rows without
touching the others.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.timing import random_actions  # noqa: E402

SIZES = (1, 64, 1_024, 16_384)
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = {"now": time.perf_counter}


def clock() -> float:
    """The clock every figure is timed with (``--clock``: wall time, or the CPU time of
    this process, steadier on a shared machine)."""
    return _clock["now"]()


def median_rate(run: Callable[[float], tuple[int, float]], repeats: int, seconds: float) -> float:
    """Median over ``repeats`` of ``count / elapsed``; ``run(seconds) -> (count, elapsed)``."""
    return float(np.median([c / e for c, e in (run(seconds) for _ in range(repeats))]))


def engine_run(engine, observe: bool = False) -> Callable:
    """``run(seconds) -> (steps, elapsed)`` of any batched engine: random legal actions for
    all its games, finished games restarted in the same step (as ``envs.vector`` does), and
    the observations encoded each step when ``observe``."""
    rng = np.random.default_rng(0)
    engine.reset()

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, clock()
        while (elapsed := clock() - start) < seconds or steps == 0:
            engine.step(random_actions(rng, engine.action_masks()))
            steps += engine.n
            done = engine.done
            if done.any():
                engine.reset(done)
            if observe:
                engine.observe()
        return steps, elapsed

    return run


# -- scorecard games ------------------------------------------------------------------------


def _scorecard_engine(n: int, rules: str) -> Callable:
    from envs.batched.scorecard import BatchedScorecard

    return engine_run(BatchedScorecard(n, rules, seed=0))


def _scorecard_scalar(env_id: str) -> Callable:
    """The Gymnasium env, one game per call (the scalar peer measured in the same run)."""
    import gymnasium as gym

    import envs  # noqa: F401

    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    state = {"info": env.reset(seed=0)[1]}

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, clock()
        info = state["info"]
        while (elapsed := clock() - start) < seconds or steps == 0:
            action = int(random_actions(rng, info["action_mask"][None])[0])
            _, _, done, _, info = env.step(action)
            steps += 1
            if done:
                info = env.reset()[1]
        state["info"] = info
        return steps, elapsed

    return run


def _pyhtzee() -> Callable | None:
    """pyhtzee (classic Yahtzee, one game per call), if installed: the outside peer."""
    try:
        from pyhtzee import Pyhtzee
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    state = {"game": Pyhtzee(seed=0)}

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, clock()
        game = state["game"]
        while (elapsed := clock() - start) < seconds or steps == 0:
            actions = game.get_possible_actions()
            game.take_action(actions[int(rng.integers(len(actions)))])
            steps += 1
            if game.is_finished():
                game = Pyhtzee(seed=int(rng.integers(2**31)))
        state["game"] = game
        return steps, elapsed

    return run


def scorecard_rows(repeats: int, seconds: float, sizes=SIZES) -> list[str]:
    """Scorecard games: steps per second of the batched engine (``envs.batched.scorecard``),
    beside the scalar env and pyhtzee measured in the same run."""
    from envs.batched.scorecard import BatchedScorecard

    head = " | ".join(f"N = {n:,}" for n in sizes)
    rows = [f"| steps/s | {head} |", "|---|" + "---|" * len(sizes)]
    for rules, name in (("classic", "YahtzeeClassic-v0"), ("russian", "PokerNaKostyah-v0")):
        cells = [
            f"{median_rate(_scorecard_engine(n, rules), repeats, seconds):,.0f}" for n in sizes
        ]
        rows.append(f"| {name} batched engine, random legal actions | " + " | ".join(cells) + " |")
    for env_id in ("YahtzeeClassic-v0", "PokerNaKostyah-v0"):
        rate = median_rate(_scorecard_scalar(env_id), repeats, seconds)
        rows.append(
            f"| {env_id} gym env, one game per call | {rate:,.0f} |" + " |" * (len(sizes) - 1)
        )
    peer = _pyhtzee()
    if peer is not None:
        rate = median_rate(peer, repeats, seconds)
        rows.append(
            f"| pyhtzee (classic), one game per call | {rate:,.0f} |" + " |" * (len(sizes) - 1)
        )
    engine = BatchedScorecard(1024, "russian")
    per_game = (
        sum(
            getattr(engine, a).nbytes
            for a in (
                "dice",
                "rolls_used",
                "open_",
                "scores",
                "upper_sum",
                "bonus",
                "yahtzee_bonus",
                "yahtzee_scored",
            )
        )
        / engine.n
    )
    rows.append(f"\nstate per game: {per_game:.0f} bytes (russian, 17 rows)")
    return rows


# -- prison dice poker -----------------------------------------------------------------------


def _state_bytes(*objects) -> int:
    return sum(v.nbytes for o in objects for v in vars(o).values() if isinstance(v, np.ndarray))


def dice_poker_rows(repeats: int, seconds: float, sizes=SIZES) -> list[str]:
    """Prison dice poker, 3 players, five and six dice: the single-agent table with random,
    heuristic and optimal opponents in batch (steps = the learner's steps), and the
    multi-seat engine (steps = moves of any seat)."""
    from agents.tables import make_engine
    from envs.batched.dice_poker import BatchedDicePoker
    from envs.rules.dice_poker import DicePokerRules

    head = " | ".join(f"N = {n:,}" for n in sizes)
    rows = [f"| steps/s | {head} | state bytes/game |", "|---|" + "---|" * (len(sizes) + 1)]
    for env_id, n_dice in (("DicePoker-v0", 5), ("DicePoker6-v0", 6)):
        cases = [
            (
                f"{env_id} vs 2 {opp}",
                lambda n, o=opp, e=env_id: make_engine(e, n, seed=0, opponents=o)[0],
            )
            for opp in ("random", "heuristic", "optimal")
        ]
        cases.append(
            (
                f"{env_id} multi-seat, every seat random",
                lambda n, d=n_dice: BatchedDicePoker(n, DicePokerRules(n_dice=d), seed=0),
            )
        )
        for name, make in cases:
            cells, memory = [], 0.0
            for n in sizes:
                engine = make(n)
                cells.append(f"{median_rate(engine_run(engine, True), repeats, seconds):,.0f}")
                parts = (engine, engine.core) if hasattr(engine, "core") else (engine,)
                memory = _state_bytes(*parts) / n
            rows.append(f"| {name} | " + " | ".join(cells) + f" | {memory:.0f} |")
    return rows


# -- card poker ---------------------------------------------------------------------------


def _card_multi_seat(n: int, n_players: int, episode: str, **rules) -> Callable:
    from envs.batched.card_poker import BatchedCardPoker
    from envs.rules.card_poker import CardPokerRules

    engine = BatchedCardPoker(
        n, CardPokerRules(**rules), seed=0, n_players=n_players, episode=episode
    )
    return engine_run(engine)


def _card_single_agent(n: int, opponents: str, **options) -> Callable:
    """Learner steps per second; ``run.decisions`` collects every seat's actions per
    second (the opponents' too) over the same runs."""
    from agents.tables import make_engine

    engine, _, _ = make_engine("CardPoker-v0", n, seed=0, opponents=opponents, **options)
    inner = engine_run(engine)

    def run(seconds: float) -> tuple[int, float]:
        before = engine.core.decisions
        steps, elapsed = inner(seconds)
        run.decisions.append((engine.core.decisions - before) / elapsed)
        return steps, elapsed

    run.decisions = []
    return run


def card_rows(repeats: int, seconds: float, sizes=SIZES) -> list[str]:
    """Card poker: decisions per second of the batched engine (``envs.batched.card_poker``)."""
    from envs.batched.card_poker import BatchedCardPoker
    from envs.rules.card_poker import CardPokerRules

    cases = [
        (
            "card poker, 36 cards, 3 players, deal: every seat random (multi-seat)",
            lambda n: _card_multi_seat(n, 3, "deal"),
        ),
        (
            "card poker, 54 cards, 6 players, session: every seat random (multi-seat)",
            lambda n: _card_multi_seat(n, 6, "session", deck=54),
        ),
        (
            "CardPoker-v0, 3 players, learner vs 2 random: learner steps (all decisions)",
            lambda n: _card_single_agent(n, "random"),
        ),
        (
            "CardPoker-v0, 3 players, learner vs 2 quick: learner steps (all decisions)",
            lambda n: _card_single_agent(n, "quick"),
        ),
        (
            "CardPoker-v0, 3 players, learner vs 2 careful: learner steps (all decisions)",
            lambda n: _card_single_agent(n, "careful"),
        ),
        (
            "CardPoker-v0, 3 players, learner vs 2 bluffer: learner steps (all decisions)",
            lambda n: _card_single_agent(n, "bluffer"),
        ),
    ]
    head = " | ".join(f"N = {n:,}" for n in sizes)
    rows = [f"| decisions/s | {head} |", "|---|" + "---|" * len(sizes)]
    for name, make in cases:
        cells = []
        for n in sizes:
            run = make(n)
            rate = median_rate(run, repeats, seconds)
            extra = getattr(run, "decisions", None)
            cells.append(f"{rate:,.0f}" + (f" ({np.median(extra):,.0f})" if extra else ""))
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    small = BatchedCardPoker(8, CardPokerRules(), n_players=3).state_bytes()
    big = BatchedCardPoker(8, CardPokerRules(deck=54), n_players=6).state_bytes()
    rows.append(
        f"\nstate per table: {small} bytes (36 cards, 3 players), {big} bytes (54 cards, 6 players)"
    )
    return rows


def card_eval_rows(repeats: int, seconds: float) -> list[str]:
    """The card evaluator: hands per second, batched and one at a time, and treys."""
    from envs.batched.card_hands import BatchedHandEvaluator
    from envs.rules.card_hands import evaluate_hand, get_evaluator

    rng = np.random.default_rng(0)
    rows = ["| evaluator | 36 cards | 54 cards |", "|---|---|---|"]
    results: dict[str, list[str]] = {}

    def timed(fn, count) -> Callable:
        def run(secs: float) -> tuple[int, float]:
            done, start = 0, clock()
            while (elapsed := clock() - start) < secs or done == 0:
                fn()
                done += count
            return done, elapsed

        return run

    for deck in (36, 54):
        ev = get_evaluator(deck=deck)
        batch = BatchedHandEvaluator(ev)
        hands = np.argsort(rng.random((1_000_000, ev.deck.size)), axis=1)[:, :5].astype(np.int8)
        few = hands[:20_000].tolist()
        texts = [[ev.deck.label(c).rstrip("*") for c in h] for h in few[:5_000]]
        for name, fn, count in [
            (
                "BatchedHandEvaluator.strengths, (N, 5) arrays of 1M hands",
                lambda b=batch, h=hands: b.strengths(h),
                len(hands),
            ),
            (
                "HandEvaluator.strengths (the rules' numpy batch)",
                lambda e=ev, h=hands: e.strengths(h),
                len(hands),
            ),
            (
                "HandEvaluator.strength, one hand per call",
                lambda e=ev, f=few: [e.strength(h) for h in f],
                len(few),
            ),
            (
                "evaluate_hand, one hand of card names per call",
                lambda t=texts, d=deck: [evaluate_hand(x, deck=d) for x in t],
                len(texts),
            ),
        ]:
            rate = median_rate(timed(fn, count), repeats, seconds)
            results.setdefault(name, []).append(f"{rate:,.0f}")
    try:
        from treys import Card, Evaluator
    except ImportError:
        results["treys (not installed)"] = ["-", "-"]
    else:
        treys = Evaluator()
        names = [r + s for r in "23456789TJQKA" for s in "shdc"]
        deck52 = [Card.new(n) for n in names]
        idx = np.argsort(rng.random((20_000, 52)), axis=1)[:, :5].tolist()
        cards = [[deck52[i] for i in h] for h in idx]
        rate = median_rate(
            timed(lambda: [treys.evaluate(c[:2], c[2:]) for c in cards], len(cards)),
            repeats,
            seconds,
        )
        results["treys Evaluator.evaluate, one hand per call (52 cards, no jokers)"] = [
            "-",
            f"{rate:,.0f}",
        ]
    for name, cells in results.items():
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return rows


SECTIONS: dict[str, Callable[[int, float], list[str]]] = {
    "scorecard": scorecard_rows,
    "dice_poker": dice_poker_rows,
    "card": card_rows,
    "card_eval": card_eval_rows,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(SECTIONS), help="sections to run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one run")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="time by wall or CPU time"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0:
        parser.error("--repeats must be >= 1 and --seconds > 0")
    _clock["now"] = CLOCKS[args.clock]
    cpu = ", CPU time" if args.clock == "cpu" else ""
    for name in args.only or list(SECTIONS):
        print(f"\n## {name} (median of {args.repeats} runs of {args.seconds} s, one core{cpu})\n")
        print("\n".join(SECTIONS[name](args.repeats, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
