"""Steps per second of the batched engines at N = 1, 64, 1,024 and 16,384 games, one core.

    python benchmarks/batched_speed.py                 # every game's rows
    python benchmarks/batched_speed.py --games dice_poker --repeats 5 --seconds 2

The acting player's moves are random legal actions drawn in batch (``RandomAgent.act_batch``
on the masks); finished games restart in the same step, as in ``envs.vector``. Each row is
the median of ``--repeats`` timings of at least ``--seconds`` each, and the state memory per
game (bytes of the engine's arrays / N). Each game's rows come from its own function.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

SIZES = (1, 64, 1_024, 16_384)


def _state_bytes(*objects) -> int:
    return sum(v.nbytes for o in objects for v in vars(o).values() if isinstance(v, np.ndarray))


def _time(step: Callable[[], int], seconds: float, repeats: int) -> float:
    """Median steps/s of ``repeats`` runs of ``step`` (which returns the steps it made)."""
    rates = []
    for _ in range(repeats):
        steps, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds or steps == 0:
            steps += step()
        rates.append(steps / elapsed)
    return statistics.median(rates)


def dice_poker_rows(seconds: float, repeats: int) -> list[tuple[str, int, float, float]]:
    """Prison dice poker (3 players, five and six dice): the single-agent table with random,
    heuristic and optimal opponents in batch (steps = the learner's steps), and the
    multi-seat engine (steps = moves of any seat)."""
    from agents.random_agent import RandomAgent
    from envs.batched.dice_poker import BatchedDicePoker
    from envs.rules.dice_poker import DicePokerRules
    from envs.vector import make_engine

    rows = []
    for env_id in ("DicePoker-v0", "DicePoker6-v0"):
        for opponents in ("random", "heuristic", "optimal"):
            for n in SIZES:
                engine, _, _ = make_engine(env_id, n, seed=0, opponents=opponents)
                learner = RandomAgent()
                learner.seed(1)
                engine.reset()

                def step(engine=engine, learner=learner, n=n) -> int:
                    engine.step(learner.act_batch(None, engine.action_masks()))
                    done = engine.done
                    if done.any():
                        engine.reset(done)
                    engine.observe()
                    return n

                rate = _time(step, seconds, repeats)
                memory = _state_bytes(engine, engine.core) / n
                rows.append((f"{env_id} vs {opponents}", n, rate, memory))
        n_dice = 5 if env_id == "DicePoker-v0" else 6
        for n in SIZES:
            core = BatchedDicePoker(n, DicePokerRules(n_dice=n_dice), seed=0)
            mover = RandomAgent()
            mover.seed(1)
            core.reset()

            def move(core=core, mover=mover, n=n) -> int:
                core.step(mover.act_batch(None, core.action_masks()))
                done = core.done
                if done.any():
                    core.reset(done)
                core.observe()
                return n

            rows.append(
                (f"{env_id} multi-seat", n, _time(move, seconds, repeats), _state_bytes(core) / n)
            )
    return rows


GAMES: dict[str, Callable[[float, int], list[tuple[str, int, float, float]]]] = {
    "dice_poker": dice_poker_rows,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=sorted(GAMES))
    parser.add_argument("--seconds", type=float, default=1.0, help="minimum time of one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (median)")
    args = parser.parse_args(argv)
    print(f"| engine | N | steps/s (median of {args.repeats}) | state bytes/game |")
    print("|---|---:|---:|---:|")
    for game in args.games:
        for name, n, rate, memory in GAMES[game](args.seconds, args.repeats):
            print(f"| {name} | {n:,} | {rate:,.0f} | {memory:.0f} |", flush=True)


if __name__ == "__main__":
    main()
