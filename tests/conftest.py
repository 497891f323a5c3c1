"""Shared test helpers."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pytest


class ScriptedDice:
    """A stand-in for ``numpy.random.Generator`` whose dice come from a script.

    Only ``integers(1, 7, size=n)`` (a dice roll) is supported; running out of
    scripted faces fails the test loudly.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def integers(self, low, high=None, size=None, dtype=np.int64):
        assert (low, high) == (1, 7), "only dice rolls are scripted"
        n = 1 if size is None else size
        if len(self.faces) < n:
            raise AssertionError(f"the script ran out of dice: {n} wanted, {self.faces} left")
        out, self.faces = self.faces[:n], self.faces[n:]
        return np.array(out, dtype=dtype)


@pytest.fixture
def scripted():
    return ScriptedDice
