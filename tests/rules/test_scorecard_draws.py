"""A game's rolls (envs.rules.scorecard._drawer) draw what draw_below draws, leaving the
generator where draw_below leaves it, on every bit generator and through copies and pickles."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from envs.rules.dice import draw_below
from envs.rules.scorecard import ScorecardGame, _drawer

BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.MT19937]


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_the_drawer_is_draw_below(bit_generator):
    ours, theirs = np.random.Generator(bit_generator(7)), np.random.Generator(bit_generator(7))
    below = _drawer(ours)
    bounds = [6**k for k in range(1, 6)] * 400
    assert [below(n) for n in bounds] == [draw_below(theirs, n) for n in bounds]
    # the same state: the same raw stream from here (a buffered half-word included)
    assert below(6**5) == draw_below(theirs, 6**5)
    np.testing.assert_array_equal(
        ours.bit_generator.random_raw(9), theirs.bit_generator.random_raw(9)
    )


def test_a_game_rolls_by_the_generator_it_holds_now():
    game, twin = (ScorecardGame(np.random.default_rng(3)) for _ in range(2))
    game.rng, twin.rng = np.random.default_rng(11), np.random.default_rng(11)
    game.step(31), twin.step(31)
    assert game.dice == twin.dice
    copied, unpickled = game.copy(), pickle.loads(pickle.dumps(game))
    for g in (copied, unpickled):
        g.step(3)
    game.step(3)
    assert copied.dice == unpickled.dice == game.dice
    assert copied.rng is not game.rng
