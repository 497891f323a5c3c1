"""envs.rules.dice: the fast draw is NumPy's own ``Generator.integers``, number for number."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.rules.dice import _ordered_rolls, below_drawer, draw_below, roll

BOUNDS = [1, 2, 3, 6, 36, 52, 216, 1296, 7776, 46656, 2**31 + 7, 2**32 - 1]


@pytest.mark.parametrize(
    "bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox]
)
def test_draw_below_is_integers(bit_generator):
    ours, numpy_ = np.random.Generator(bit_generator(7)), np.random.Generator(bit_generator(7))
    pick = random.Random(0).choice
    for k in range(4000):
        n = pick(BOUNDS)
        assert draw_below(ours, n) == int(numpy_.integers(n)), (k, n)
        if k % 97 == 0:  # other draws in between (a float uses the 64-bit output)
            assert ours.random() == numpy_.random()
    # the generators are in the same state: the next draws agree
    assert ours.integers(10**12, size=8).tolist() == numpy_.integers(10**12, size=8).tolist()


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_below_drawer_is_draw_below(bit_generator):
    ours, numpy_ = np.random.Generator(bit_generator(9)), np.random.Generator(bit_generator(9))
    below = below_drawer(ours)
    pick = random.Random(1).choice
    for k in range(4000):
        n = pick(BOUNDS[1:])  # 2 and up
        assert below(n) == int(numpy_.integers(n)), (k, n)
        if k % 89 == 0:  # the generator's own draws in between
            assert ours.random() == numpy_.random()
    assert ours.integers(10**12, size=8).tolist() == numpy_.integers(10**12, size=8).tolist()


def test_draw_below_large_bound_and_fallback():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert draw_below(a, 2**40) == int(b.integers(2**40))

    class Plain:  # a generator without the ctypes interface is asked directly
        def __init__(self):
            self.bit_generator = object()
            self.rng = np.random.default_rng(5)

        def integers(self, n):
            return self.rng.integers(n)

    assert draw_below(Plain(), 7776) == int(np.random.default_rng(5).integers(7776))
    assert below_drawer(Plain())(7776) == int(np.random.default_rng(5).integers(7776))


def test_roll_reads_the_ordered_table():
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    for n in range(7):
        assert roll(a, n) == _ordered_rolls(n)[int(b.integers(6**n))]
