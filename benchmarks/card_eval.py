"""Speed of the card-hand evaluator, in hands per second.

    python benchmarks/card_eval.py

Times the one-off table build per variant, single-hand lookups
(``HandEvaluator.strength``), numpy batch lookups (``strengths``), the public
``evaluate_hand`` on five ``Card`` values (its lookup path) and on a string of card
names (parsing, then the table), and, for scale, the brute-force joker reference
(``envs.rules.card_hands_reference``) the tests check it by. ``evaluate_hand`` beside
treys and phevaluator in one run: ``benchmarks/env_speed.py --only evaluate_hand,treys``.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import time

import numpy as np

from envs.rules.card_hands import _evaluator, check_variant, evaluate_hand
from envs.rules.card_hands_reference import ref_evaluate  # the slow reference


def rate(fn, n: int) -> float:
    start = time.perf_counter()
    fn()
    return n / (time.perf_counter() - start)


def measure(deck: int, rng: np.random.Generator, ref_evaluate) -> str:
    start = time.perf_counter()
    ev = _evaluator(check_variant(deck=deck))
    build = time.perf_counter() - start
    n = 200_000
    hands = np.argsort(rng.random((n, ev.deck.size)), axis=1)[:, :5]
    as_lists = hands.tolist()
    single = rate(lambda: [ev.strength(h) for h in as_lists], n)
    batch = rate(lambda: ev.strengths(hands), n)
    cards = [[ev.deck.cards[c] for c in h] for h in as_lists]
    on_cards = rate(lambda: [evaluate_hand(c, deck=deck) for c in cards], n)
    # the 36-card deck's joker reads "6S*"; as a card it is named 6S
    texts = [" ".join(ev.deck.label(c).rstrip("*") for c in h) for h in as_lists[:20000]]
    on_text = rate(lambda: [evaluate_hand(t, deck=deck) for t in texts], len(texts))
    some = as_lists[:3000]
    ref = rate(lambda: [ref_evaluate(h, deck) for h in some], len(some))
    return (
        f"| {deck} | {build:.2f} | {single:,.0f} | {batch:,.0f} | {on_cards:,.0f} "
        f"| {on_text:,.0f} | {ref:,.0f} |"
    )


def main() -> None:
    rng = np.random.default_rng(0)
    print(
        "| deck | table build (s) | single lookups / s | batch lookups / s "
        "| evaluate_hand on Cards / s | on a string / s | reference / s |"
    )
    print("|---|---|---|---|---|---|---|")
    for deck in (36, 54):
        print(measure(deck, rng, ref_evaluate))


if __name__ == "__main__":
    main()
