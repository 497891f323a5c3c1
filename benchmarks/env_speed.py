"""Single-env speed beside the peers, in one run: steps/s with random legal actions.

    python benchmarks/env_speed.py [--steps 4000] [--repeats 5] [--hands 20000]

Every Gymnasium id (``gym.make`` wrappers included; the poker ids with each kind of
opponent) and every AEC env, beside the peers where installed (``pip install -e
.[bench]``): pyhtzee and gym-yahtzee (classic Yahtzee), PettingZoo's texas hold'em and
leduc hold'em AEC envs and RLCard's limit hold'em and leduc; and ``evaluate_hand`` on
one 5-card hand beside treys and phevaluator, with the batched evaluator's hands/s. A
peer that is not installed is skipped with a note.

Each env acts by a random legal action from its own mask (the same picker for all: one
``random.Random`` draw over the legal actions). Time is this process's CPU time
(``--clock cpu``, the default; ``--clock wall`` for wall time), so the time other processes
hold a shared machine's cores does not count. The repeats are interleaved over the
whole list, so a noisy machine slows every row alike; the table gives medians and the
ratios to the peer the issue names (pyhtzee for the scorecard games, PettingZoo's texas
hold'em for the AEC envs, treys for the evaluator) or to the absolute target.

Issue 26, on the shared 2-core development machine (load 12-20: absolute figures a tenth
of a quiet machine's; the ratios are what one run compares), ``--steps 1000 --repeats 3
--hands 5000`` (wall time) unless a row says otherwise; the whole table is in
docs/engines.md ("Scalar env speed"):

| what | ratio |
|---|---|
| PokerNaKostyah-v0 / pyhtzee | 1.71x (CPU time, load 5, median of 3 runs; command below) |
| YahtzeeClassic-v0 / pyhtzee | 1.79x (the same runs; main's code between them 1.62x, 1.69x) |
| dice_poker_v0 (5 and 6 dice) / texas hold'em | 2.71x, 2.75x (CPU time, load 12) |
| yahtzee_v0 russian, classic / texas hold'em | 5.41x, 6.18x (the same run) |
| card_poker_v0 / texas hold'em | 3.49x (the same run) |
| evaluate_hand 36, 54 cards / treys | 1.02x, 0.89x; bound 1.24x, 1.10x (CPU time, load 6) |
| DicePoker-v0 heuristic, optimal | 8,350, 8,297 steps/s (1.47x, 1.11x main's; CPU, load 5-7) |
| DicePoker6-v0 heuristic, optimal | 6,917, 6,330 steps/s (1.41x, 1.13x; the same run) |
| the same, ``--warmup 30000`` | 10,952, 11,250; 10,117, 10,421 (1.23x, 1.13x; 1.32x, 1.15x) |
| CardPoker-v0 careful, random, quick | 2,510, 4,877, 5,755 steps/s (1.11x, 1.8x, 5.3x; load 5-6) |

The scorecard rows: ``--only PokerNaKostyah,YahtzeeClassic,pyhtzee --steps 3000 --repeats
7``; the card rows: ``--only CardPoker-v0 --steps 1000 --repeats 3`` (CPU time), main and
this code alternated in three rounds (medians; the ratios: to main); the AEC rows: ``--only
card_poker_v0,dice_poker_v0,yahtzee_v0,texas,leduc --steps 1000 --repeats 5``; the
evaluator: ``--only evaluate_hand,treys,phevaluator,batched --hands 20000 --repeats 7``
(bound: ``value = hand_evaluator(**variant)``, then ``value(cards)``); the dice-poker rows:
``--only "DicePoker-v0 heuristic,DicePoker-v0 optimal,DicePoker6-v0 heuristic,DicePoker6-v0
optimal" --steps 2000 --repeats 3`` in a fresh process, main's code alternated with this
in three rounds (the quietest round's figures; every round's ratio is in docs/engines.md),
and with ``--warmup 30000`` (untimed steps first, so the opponents' tables of moves are
known; two rounds, the first's figures, load 4-5).
Not met: the scorecard ids' 2x pyhtzee, evaluate_hand's 1x treys with ``deck=54`` (bound
it is met), and the absolute 20k / 10k steps/s of the poker ids (a learner's step there
includes the reset, the opponents' turns and their observations; warmed up, the optimal
dice rows reach 10k).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import importlib
import random
import statistics
import time
import warnings
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import envs  # noqa: F401  (registers the ids)
from envs import games

# a row: (name, kind "steps" | "hands", group, make() -> run(n) -> seconds)
Row = tuple[str, str, str, Callable[[], Callable[[int], float]]]

CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = [CLOCKS["cpu"]]  # --clock sets it


def clock() -> float:
    """Seconds on the chosen clock: this process's CPU time (the default; on a shared
    machine the time other processes hold the cores does not count) or wall time."""
    return _clock[0]()


# the scorecard ids, compared with pyhtzee
SCORECARD_IDS = frozenset(
    g.gym_id
    for g in map(games.get, games.names())
    if g.gym_entry_point == "envs.scorecard:YahtzeeEnv"
)

TARGETS = {  # absolute targets of issue 26 (steps/s)
    "DicePoker-v0 heuristic": 20_000,
    "DicePoker6-v0 heuristic": 20_000,
    "DicePoker-v0 optimal": 10_000,
    "DicePoker6-v0 optimal": 10_000,
    "CardPoker-v0 careful": 10_000,
}


def gym_runner(env_id: str, seed: int = 0, **kwargs) -> Callable[[], Callable[[int], float]]:
    def make():
        env = gym.make(env_id, **kwargs)
        pick = random.Random(seed).randrange
        state = {}
        state["obs"], state["info"] = env.reset(seed=seed)

        def run(steps: int) -> float:
            info = state["info"]
            start = clock()
            for _ in range(steps):
                legal = np.flatnonzero(info["action_mask"])
                _, _, terminated, truncated, info = env.step(int(legal[pick(len(legal))]))
                if terminated or truncated:
                    _, info = env.reset()
            state["info"] = info
            return clock() - start

        return run

    return make


def aec_runner(module, seed: int = 0, **kwargs) -> Callable[[], Callable[[int], float]]:
    """PettingZoo AEC loop (ours and PettingZoo's own): ``last()``, then a legal action."""

    def make():
        env = module.env(**kwargs)
        pick = random.Random(seed).randrange
        env.reset(seed=seed)

        def run(steps: int) -> float:
            start = clock()
            done = 0
            while done < steps:
                for _agent in env.agent_iter():
                    obs, _, terminated, truncated, _ = env.last()
                    if terminated or truncated:
                        env.step(None)
                        continue
                    legal = np.flatnonzero(obs["action_mask"])
                    env.step(int(legal[pick(len(legal))]))
                    done += 1
                    if done >= steps:
                        break
                else:
                    env.reset()
            return clock() - start

        return run

    return make


def pyhtzee_runner(seed: int = 0):
    def make():
        from pyhtzee import Pyhtzee

        pick = random.Random(seed).randrange
        game = [Pyhtzee(seed=seed)]

        def run(steps: int) -> float:
            start = clock()
            for _ in range(steps):
                legal = game[0].get_possible_actions()
                game[0].take_action(legal[pick(len(legal))])
                if game[0].is_finished():
                    game[0] = Pyhtzee()
            return clock() - start

        return run

    return make


def gym_yahtzee_runner(seed: int = 0):
    def make():
        from gym_yahtzee.envs.yahtzee_env import YahtzeeSingleEnv

        env = YahtzeeSingleEnv(seed=seed)
        env.reset()
        pick = random.Random(seed).randrange

        def run(steps: int) -> float:
            start = clock()
            for _ in range(steps):
                legal = env.pyhtzee.get_possible_actions()
                _, _, done, _ = env.step(legal[pick(len(legal))])[:4]
                if done:
                    env.reset()
            return clock() - start

        return run

    return make


def rlcard_runner(name: str, seed: int = 0):
    def make():
        import rlcard

        env = rlcard.make(name, config={"seed": seed})
        pick = random.Random(seed).randrange
        state = {}
        state["s"], state["p"] = env.reset()

        def run(steps: int) -> float:
            s, p = state["s"], state["p"]
            start = clock()
            for _ in range(steps):
                legal = list(s["legal_actions"])
                s, p = env.step(legal[pick(len(legal))])
                if env.is_over():
                    s, p = env.reset()
            state["s"], state["p"] = s, p
            return clock() - start

        return run

    return make


def evaluate_hand_runner(seed: int = 0, bound: bool = False, **variant):
    """``evaluate_hand`` on one hand a call, as the docs write it: ``evaluate_hand(cards)``
    (the defaults, or the one option ``deck=``), or (``bound``) the variant bound once,
    ``value = hand_evaluator(**variant)``, then ``value(cards)``."""
    if set(variant) - {"deck"}:
        raise ValueError(f"the evaluate_hand rows time the deck option only, got {variant}")
    from envs.rules.card_hands import evaluate_hand, get_evaluator, hand_evaluator

    def make():
        deck = get_evaluator(**variant).deck
        rng = np.random.default_rng(seed)
        hands = [
            [deck.cards[i] for i in rng.choice(deck.size, 5, replace=False)] for _ in range(4096)
        ]

        deck_size = variant.get("deck", 36)

        def run(n: int) -> float:
            start = clock()
            if bound:
                value = hand_evaluator(**variant)
                for k in range(n):
                    value(hands[k & 4095])
            elif deck_size == 36:  # as a caller writes it: the defaults, or the one option
                for k in range(n):
                    evaluate_hand(hands[k & 4095])
            else:
                for k in range(n):
                    evaluate_hand(hands[k & 4095], deck=deck_size)
            return clock() - start

        return run

    return make


def treys_runner(seed: int = 0):
    def make():
        from treys import Card, Evaluator

        ev = Evaluator()
        rng = np.random.default_rng(seed)
        names = [r + s for r in "23456789TJQKA" for s in "shdc"]
        cards = [
            [Card.new(names[i]) for i in rng.choice(52, 5, replace=False)] for _ in range(4096)
        ]
        hands = [(h[:2], h[2:]) for h in cards]  # treys takes (hand, board)

        def run(n: int) -> float:
            evaluate = ev.evaluate
            start = clock()
            for k in range(n):
                evaluate(*hands[k & 4095])
            return clock() - start

        return run

    return make


def phevaluator_runner(seed: int = 0):
    def make():
        from phevaluator import evaluate_cards

        rng = np.random.default_rng(seed)
        hands = [[int(i) for i in rng.choice(52, 5, replace=False)] for _ in range(4096)]

        def run(n: int) -> float:
            start = clock()
            for k in range(n):
                evaluate_cards(*hands[k & 4095])
            return clock() - start

        return run

    return make


def batched_hands_runner(seed: int = 0):
    from envs.batched.card_hands import BatchedHandEvaluator

    def make():
        ev = BatchedHandEvaluator()
        rng = np.random.default_rng(seed)
        hands = np.argsort(rng.random((1 << 20, ev.size)), axis=1)[:, :5].astype(np.int8)

        def run(n: int) -> float:
            start = clock()
            done = 0
            while done < n:
                ev.strengths(hands, check=False)
                done += len(hands)
            return (clock() - start) * n / done

        return run

    return make


def rows() -> tuple[list[Row], list[str]]:
    out: list[Row] = []
    notes: list[str] = []
    for name in games.names():
        g = games.get(name)
        if "opponents" in g.table_options:
            kinds = [k for k in ("heuristic", "careful", "quick", "optimal") if k in g.agents]
            kinds = [k for k in kinds if not (k == "heuristic" and "careful" in g.agents)]
            for kind in [*kinds, "random"]:
                out.append(
                    (f"{g.gym_id} {kind}", "steps", "gym", gym_runner(g.gym_id, opponents=kind))
                )
        else:
            out.append((g.gym_id, "steps", "gym", gym_runner(g.gym_id)))
    for name in games.names():
        g = games.get(name)
        module = importlib.import_module(g.aec_module)
        label = f"{g.aec_module.rsplit('.', 1)[1]} {dict(g.aec_kwargs) or ''}".strip()
        out.append((label, "steps", "aec", aec_runner(module, **g.aec_kwargs)))

    def peer(label, kind, group, package, factory):
        try:
            importlib.import_module(package)
        except Exception as e:  # absent, or broken beside this gymnasium / numpy
            notes.append(f"{label}: skipped ({package} not importable: {type(e).__name__})")
            return
        out.append((label, kind, group, factory))

    peer("pyhtzee", "steps", "peer", "pyhtzee", pyhtzee_runner())
    peer("gym-yahtzee", "steps", "peer", "gym_yahtzee", gym_yahtzee_runner())
    for pz in ("texas_holdem_v4", "leduc_holdem_v4"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(f"pettingzoo.classic.{pz}")
            out.append((f"PettingZoo {pz}", "steps", "peer", aec_runner(module)))
        except Exception as e:
            notes.append(f"PettingZoo {pz}: skipped ({type(e).__name__}: {e})")
    for rl in ("limit-holdem", "leduc-holdem"):
        peer(f"RLCard {rl}", "steps", "peer", "rlcard", rlcard_runner(rl))
    for deck, label in ((36, "36 cards + joker"), (54, "54 cards + 2 jokers")):
        variant = {"deck": deck} if deck != 36 else {}
        call = f"evaluate_hand(cards{', deck=54' if deck == 54 else ''})"
        out.append((f"{call}, {label}", "hands", "eval", evaluate_hand_runner(**variant)))
        bind = f"hand_evaluator({'deck=54' if deck == 54 else ''})"
        out.append(
            (
                f"evaluate_hand bound, {bind}, {label}",
                "hands",
                "eval",
                evaluate_hand_runner(bound=True, **variant),
            )
        )
    peer("treys, 5 cards", "hands", "eval", "treys", treys_runner())
    peer("phevaluator, 5 cards", "hands", "eval", "phevaluator", phevaluator_runner())
    out.append(("batched evaluator (1M hands a call)", "hands", "batch", batched_hands_runner()))
    return out, notes


def ratio_of(name: str, group: str, speed: dict[str, float]) -> str:
    if name in TARGETS:
        return f"{speed[name] / TARGETS[name]:.2f}x target {TARGETS[name] // 1000}k"
    if group == "gym" and name in SCORECARD_IDS and "pyhtzee" in speed:
        return f"{speed[name] / speed['pyhtzee']:.2f}x pyhtzee"
    texas = "PettingZoo texas_holdem_v4"
    if group == "aec" and texas in speed:
        return f"{speed[name] / speed[texas]:.2f}x texas"
    if group == "eval" and "treys, 5 cards" in speed:
        return f"{speed[name] / speed['treys, 5 cards']:.2f}x treys"
    if group == "batch":
        return f"{speed[name] / 20e6:.2f}x target 20M"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4000, help="env steps per timing")
    parser.add_argument("--hands", type=int, default=20_000, help="hands per evaluator timing")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--only", default="", help="comma-separated words: run only the rows naming one"
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="process CPU time or wall time"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="untimed env steps per row before the timings (the warm figure: what the "
        "opponents met first, their tables of moves, is known by then)",
    )
    args = parser.parse_args()
    _clock[0] = CLOCKS[args.clock]
    table, notes = rows()
    if args.only:
        table = [r for r in table if any(w in r[0] for w in args.only.split(","))]
    runs = {}
    for name, _, _, make in table:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runs[name] = make()
    for name, kind, _, _ in table:
        if args.warmup and kind == "steps":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs[name](args.warmup)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):  # interleaved: the machine's noise falls on every row
        for name, kind, _, _ in table:
            n = args.steps if kind == "steps" else args.hands
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                times[name].append(n / runs[name](n))
    speed = {name: statistics.median(v) for name, v in times.items()}
    warm = f", after {args.warmup:,} steps" if args.warmup else ""
    print(f"| what | per second ({args.clock} time, median of {args.repeats}{warm}) | ratio |")
    print("|---|---|---|")
    for name, kind, group, _ in table:
        unit = "steps" if kind == "steps" else "hands"
        print(f"| {name} | {speed[name]:,.0f} {unit} | {ratio_of(name, group, speed)} |")
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
