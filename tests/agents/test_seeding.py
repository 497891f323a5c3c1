"""agents.seeding: the Generator of a whole-number seed, made faster, is default_rng's."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from agents import make_agent
from agents.seeding import pcg64_words, seeded_generator

SEEDS = [0, 1, 5, 2**32 - 1, 2**32, 123456789012345678, 2**63 - 1, 2**64 - 1, 2**64, 2**130 + 9]


@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_generator_is_default_rng(seed):
    want, got = np.random.default_rng(seed), seeded_generator(seed)
    assert got.bit_generator.state == want.bit_generator.state
    assert got.random(7).tolist() == want.random(7).tolist()
    assert got.integers(0, 5, size=9).tolist() == want.integers(0, 5, size=9).tolist()
    # spawned children come from the same SeedSequence, counted alike
    for _ in range(2):
        assert [g.random() for g in got.spawn(2)] == [g.random() for g in want.spawn(2)]
    assert got.bit_generator.seed_seq.entropy == seed


def test_pcg64_words_are_generate_state():
    rng = np.random.default_rng(3)
    for seed in [*SEEDS, *rng.integers(2**63, size=200).tolist()]:
        seq = np.random.SeedSequence(seed)
        assert pcg64_words(seq.pool.tolist()) == seq.generate_state(4, np.uint64).tolist()


def test_seeded_generator_copies_and_pickles():
    rng = seeded_generator(42)
    rng.random(3)
    for other in (copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert other.bit_generator.state == rng.bit_generator.state
        assert [g.random() for g in other.spawn(1)] == [
            g.random() for g in copy.deepcopy(rng).spawn(1)
        ]


@pytest.mark.parametrize("seed", [None, -1, np.int64(3), np.random.SeedSequence(4), 2.0])
def test_other_seeds_go_to_default_rng(seed):
    if seed == -1 or isinstance(seed, float):
        with pytest.raises((ValueError, TypeError)):
            np.random.default_rng(seed)
        with pytest.raises((ValueError, TypeError)):
            seeded_generator(seed)
        return
    got = seeded_generator(seed)
    if seed is not None:
        assert got.random() == np.random.default_rng(seed).random()


@pytest.mark.parametrize("spec", ["careful", "bluffer", "random"])
def test_seeded_agents_draw_default_rngs_numbers(spec):
    agent = make_agent(spec, "card_poker")
    agent.seed(2**62 + 11)
    assert agent.rng.random(4).tolist() == np.random.default_rng(2**62 + 11).random(4).tolist()
    agent.rng = np.random.default_rng(0)  # a Generator set from outside is kept
    assert agent.rng.random() == np.random.default_rng(0).random()
