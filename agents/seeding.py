"""``np.random.default_rng(seed)`` for a whole-number seed at half the cost: the same
Generator, number for number.

An env re-seeds its opponents at every reset, and a card poker opponent draws in every
deal, so each deal made a Generator per opponent: ``default_rng(seed)`` is
``Generator(PCG64(SeedSequence(seed)))``, about 36 µs, most of it ``PCG64`` asking the
``SeedSequence`` for its four state words (``generate_state(4, np.uint64)``: a loop of
NumPy scalar operations under ``np.errstate``). :func:`seeded_generator` builds the same
``SeedSequence`` (its entropy pool, mixed in C), works out those four words from the pool
in plain Python (the ``SeedSequence`` hash, the same integers) and hands them to
``PCG64`` through :class:`_Worded`, a sequence that answers that one request with them
and everything else (``spawn`` included, so ``Generator.spawn`` gives the same children)
from the ``SeedSequence``. tests/agents/test_seeding.py holds the states, the draws and
the spawned children to ``default_rng``.
"""

from __future__ import annotations

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence

# the SeedSequence hash of numpy.random.bit_generator (generate_state's constants)
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MASK32 = 0xFFFFFFFF
# generate_state's hash constant runs through the same values whatever the pool: per
# output word, the constant it is XORed with and the one it is multiplied by
_HASH = [(_INIT_B * _MULT_B**i & _MASK32, _INIT_B * _MULT_B ** (i + 1) & _MASK32) for i in range(8)]


def pcg64_words(pool) -> list[int]:
    """``SeedSequence.generate_state(4, np.uint64)`` of a sequence whose entropy pool is
    ``pool`` (four uint32 words), as Python ints: eight 32-bit words of the pool's hash,
    paired little end first."""
    out = []
    for p, (x, m) in zip(pool + pool, _HASH, strict=True):
        v = (p ^ x) * m & _MASK32
        out.append(v ^ v >> 16)
    return [
        out[0] | out[1] << 32,
        out[2] | out[3] << 32,
        out[4] | out[5] << 32,
        out[6] | out[7] << 32,
    ]


class _Worded(ISpawnableSeedSequence):
    """A ``SeedSequence`` whose four uint64 state words (what ``PCG64`` asks for) are
    already known; any other request goes to the sequence itself."""

    def __init__(self, seq: np.random.SeedSequence) -> None:
        self.seq = seq
        self.words = pcg64_words(seq.pool.tolist())

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        if n_words == 4 and dtype is np.uint64:
            return np.array(self.words, dtype=np.uint64)
        return self.seq.generate_state(n_words, dtype)

    def spawn(self, n_children: int) -> list[np.random.SeedSequence]:
        return self.seq.spawn(n_children)

    def __getattr__(self, name: str):  # entropy, spawn_key, pool, ...: the sequence's
        if name == "seq":  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.seq, name)


def seeded_generator(seed=None) -> np.random.Generator:
    """``np.random.default_rng(seed)``: for a whole number >= 0 the same Generator built
    without ``SeedSequence.generate_state``; anything else goes to ``default_rng``."""
    if type(seed) is int and seed >= 0:
        return np.random.Generator(np.random.PCG64(_Worded(np.random.SeedSequence(seed))))
    return np.random.default_rng(seed)


__all__ = ["pcg64_words", "seeded_generator"]
