"""Shared test helpers."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable

import pytest

# One intra-op thread for torch (and the BLAS under numpy) unless the caller chose a number:
# the tests' networks are tiny, and on a 2-core machine a second thread only spins; it doubled
# the CPU time of tests/agents/test_members.py. Set before any test module imports torch;
# subprocesses inherit it, and trainers still apply their config's torch_threads.
os.environ.setdefault("OMP_NUM_THREADS", "1")


def step_faces(
    n_dice: int, reroll: dict[int, int] | None = None, next_roll: Iterable[int] | None = None
) -> list[int]:
    """The ``chance`` of one dice poker step (``envs.rules.dice_poker``): die ``i`` re-rolled
    comes up ``reroll[i]``; ``next_roll`` is the roll of the turn the step starts. Faces the
    step does not read are filled with ones."""
    faces = [1] * n_dice
    for i, face in (reroll or {}).items():
        faces[i] = face
    return faces + (list(next_roll) if next_roll is not None else [])


class ScriptedDice:
    """A stand-in for ``numpy.random.Generator`` whose dice come from a script (for code
    that has no chance seam, e.g. the play tables that take a generator).

    ``envs.rules.dice.roll`` draws one number below ``6**n`` and reads the
    ordered roll it indexes; this answers that draw with the next ``n``
    scripted faces. Running out of scripted faces fails the test loudly.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def integers(self, high, *args, **kwargs) -> int:
        n = round(math.log(high, 6))
        assert 6**n == high and not args and not kwargs, "only dice rolls are scripted"
        if len(self.faces) < n:
            raise AssertionError(f"the script ran out of dice: {n} wanted, {self.faces} left")
        out, self.faces = self.faces[:n], self.faces[n:]
        return sum((f - 1) * 6 ** (n - 1 - i) for i, f in enumerate(out))


@pytest.fixture
def scripted():
    return ScriptedDice


@pytest.fixture
def faces():
    return step_faces


@pytest.fixture
def one_torch_thread():
    """Small networks: one torch thread is fastest on a shared machine (restored after)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
