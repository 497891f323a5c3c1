"""Dice as sorted multisets, rolls and re-roll (hold) masks.

Pure helpers shared by every dice game. Randomness always comes in as a
``numpy.random.Generator``; nothing here keeps global state.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from math import factorial

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)


def check_dice(dice: Iterable[int], n_dice: int | None = None) -> tuple[int, ...]:
    """Return ``dice`` as a tuple of ints, raising ``ValueError`` on a bad face or count."""
    values = tuple(int(d) for d in dice)
    bad = [d for d in values if d not in FACES]
    if bad:
        raise ValueError(f"dice faces must be 1..6, got {bad} in {list(values)}")
    if n_dice is not None and len(values) != n_dice:
        raise ValueError(f"expected {n_dice} dice, got {len(values)}: {list(values)}")
    return values


def face_counts(dice: Iterable[int]) -> tuple[int, ...]:
    """Counts of faces 1..6 as a 6-tuple."""
    counts = [0] * 6
    for d in dice:
        counts[d - 1] += 1
    return tuple(counts)


MAX_DICE = 6


def roll(rng: np.random.Generator, n: int) -> tuple[int, ...]:
    """Roll ``n`` (0..6) fair dice, in the order they fell.

    One scalar draw below ``6**n`` indexes a table of every ordered roll: exactly
    uniform, and several times cheaper than ``rng.integers(1, 7, size=n)``,
    which matters because the envs roll at nearly every step.
    """
    if not 0 <= n <= MAX_DICE:
        raise ValueError(f"can roll 0..{MAX_DICE} dice at once, not {n}")
    return _ordered_rolls(n)[draw_below(rng, 6**n)]


def draw_below(rng: np.random.Generator, n: int) -> int:
    """``int(rng.integers(n))`` for ``1 <= n < 2**32``: the same number, drawn the same way.

    NumPy draws a bound below ``2**32`` by Lemire's method on the bit generator's
    ``next_uint32`` (``random_bounded_uint64_fill``; nothing is drawn for ``n == 1``).
    Calling ``next_uint32`` through the bit generator's ctypes interface and doing the
    multiply-and-reject here gives the same value and leaves the generator in the same
    state (tests/rules/test_dice.py holds it to ``rng.integers`` on four bit generators),
    at a fifth of the cost of ``Generator.integers`` on one number. A generator without
    that interface, or a bound of ``2**32`` or more, is asked directly.
    """
    if n == 1:
        return 0
    if not 1 < n < 0x100000000:
        return int(rng.integers(n))
    try:
        c = rng.bit_generator.ctypes
    except AttributeError:
        return int(rng.integers(n))
    nxt, state = c.next_uint32, c.state
    m = nxt(state) * n
    if (m & 0xFFFFFFFF) < n:  # a possible bias: reject below 2**32 mod n
        m = _lemire_rejected(nxt, state, n, m)
    return m >> 32


def _lemire_rejected(nxt, state, n: int, m: int) -> int:
    """Lemire's rejection step after a draw ``m = next_uint32 * n`` whose low half is below
    ``n``: draw again while it is below ``2**32 mod n``."""
    threshold = (0x100000000 - n) % n
    while (m & 0xFFFFFFFF) < threshold:
        m = nxt(state) * n
    return m


def below_drawer(rng: np.random.Generator) -> Callable[[int], int]:
    """``below(n)``: :func:`draw_below` ``(rng, n)`` for ``2 <= n < 2**32`` with the
    generator's ctypes interface looked up once (a game that draws at every step keeps
    one). A generator without that interface is asked through :func:`draw_below`."""
    try:
        c = rng.bit_generator.ctypes
    except AttributeError:
        return lambda n: draw_below(rng, n)
    nxt, state = c.next_uint32, c.state

    def below(n: int) -> int:
        m = nxt(state) * n
        if (m & 0xFFFFFFFF) < n:
            m = _lemire_rejected(nxt, state, n, m)
        return m >> 32

    return below


@cache
def _ordered_rolls(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(itertools.product(FACES, repeat=n))


@cache
def multisets(n: int) -> tuple[tuple[int, ...], ...]:
    """All sorted multisets of ``n`` dice (252 for five, 462 for six, 1 for none)."""
    return tuple(itertools.combinations_with_replacement(FACES, n))


def multiset_probability(dice: Sequence[int]) -> float:
    """Probability that rolling ``len(dice)`` fair dice gives this multiset."""
    n = len(dice)
    ways = factorial(n)
    for c in Counter(dice).values():
        ways //= factorial(c)
    return ways / 6**n


@cache
def outcome_distribution(n: int) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Every multiset of ``n`` rolled dice with its exact probability."""
    outs = multisets(n)
    return outs, np.array([multiset_probability(m) for m in outs])


# -- keeps of five dice (the scorecard games) -----------------------------------------

# Every multiset of 0..5 kept dice, ordered by size so each size is a contiguous block,
# and within a size by the number of distinct faces, most first (the exact solver's
# running maximum down the keep lattice relies on this order).
KEEPS: tuple[tuple[int, ...], ...] = tuple(
    k
    for n in range(6)
    for k in sorted(itertools.combinations_with_replacement(FACES, n), key=lambda k: -len(set(k)))
)
KEEP_INDEX: dict[tuple[int, ...], int] = {k: i for i, k in enumerate(KEEPS)}


@cache
def keep_transition() -> np.ndarray:
    """``T[k, d]``: the chance that re-rolling the dice outside keep ``KEEPS[k]`` ends with
    the five-dice multiset ``multisets(5)[d]``."""
    rolls = multisets(5)
    index = {d: i for i, d in enumerate(rolls)}
    t = np.zeros((len(KEEPS), len(rolls)))
    for k, keep in enumerate(KEEPS):
        for rolled in multisets(5 - len(keep)):
            t[k, index[tuple(sorted(keep + rolled))]] += multiset_probability(rolled)
    t.flags.writeable = False
    return t


def keep_to_reroll(dice: Sequence[int], keep: Sequence[int]) -> int:
    """The re-roll bit set over ``sorted(dice)`` (bit i = the i-th smallest die) that
    keeps the multiset ``keep`` and re-rolls the rest."""
    left = list(keep)
    mask = 0
    for i, d in enumerate(sorted(dice)):
        if d in left:
            left.remove(d)
        else:
            mask |= 1 << i
    if left:
        raise ValueError(f"cannot keep {tuple(keep)} out of the dice {tuple(sorted(dice))}")
    return mask
