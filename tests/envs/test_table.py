"""envs.table: the opponents' seeds drawn by ``draw_seed`` are ``Generator.integers(2**63)``,
number for number (the seeds, and so every trajectory, stay those of before)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.table import draw_seed


@pytest.mark.parametrize(
    "bit_generator",
    [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64],
)
def test_draw_seed_is_integers(bit_generator):
    ours, numpy_ = np.random.Generator(bit_generator(11)), np.random.Generator(bit_generator(11))
    for k in range(3000):
        assert draw_seed(ours) == int(numpy_.integers(2**63)), k
        if k % 89 == 0:  # other draws in between
            assert ours.integers(6) == numpy_.integers(6)
    assert ours.integers(10**12, size=8).tolist() == numpy_.integers(10**12, size=8).tolist()


def test_draw_seed_fallback():
    class Plain:  # a generator without the ctypes interface is asked directly
        bit_generator = object()

        def __init__(self):
            self.rng = np.random.default_rng(5)

        def integers(self, n):
            return self.rng.integers(n)

    assert draw_seed(Plain()) == int(np.random.default_rng(5).integers(2**63))
