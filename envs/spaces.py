"""Spaces shared by the environments, and the one place an action's type is checked."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from gymnasium import spaces


def to_action(action: object, legal: Callable[[], Iterable[int]]) -> int:
    """``action`` as a Python ``int``, if it is integer-like the way ``Discrete`` means it.

    Accepted, as ``gymnasium.spaces.Discrete.contains`` accepts them: a Python
    ``int``, a numpy integer scalar, a 0-d integer array (what
    ``MaskablePPO.predict()`` returns for one observation). ``True``/``False``
    are refused although Python counts them as ints: a boolean where a move is
    expected is a bug in the caller. Anything else raises the env's
    ``ValueError`` naming the action and the legal ones (``legal()``, asked only
    then). Whether the int is legal now is for the rules to say.
    """
    if type(action) is int:  # the common case, first
        return action
    integer_array = (
        isinstance(action, np.generic | np.ndarray)
        and action.shape == ()
        and np.issubdtype(action.dtype, np.integer)
    )
    if integer_array or (isinstance(action, int) and not isinstance(action, bool)):
        return int(action)
    raise ValueError(
        f"illegal action {action!r}: an action is an int, a numpy integer or a 0-d integer "
        f"array; legal actions now are {[int(a) for a in legal()]}"
    )


_ENV_LINKS = ("_legal_mask", "_opening_mask", "_fresh")


class LegalDiscrete(spaces.Discrete):
    """``Discrete`` whose plain ``sample()`` draws a legal action.

    Every env here rejects illegal actions with ``ValueError``, so code that
    samples the action space blindly (random exploration, the checkers of
    Gymnasium and SB3) gets an action the env accepts:

    - ``sample()`` draws from ``legal_mask()``, the actions legal now (when
      none is, the episode is over: from ``opening_mask()``, the actions legal
      at the first decision of every episode, since a reset comes next).
    - The first ``sample()`` after ``seed()`` draws from the actions legal both
      now and at an episode's first decision (the opening ones alone when no
      action is both): a seeded space starts a reproducible stream, and
      Gymnasium's ``check_step_determinism`` seeds it, samples, and only then
      resets and steps with that action.
    - ``sample(mask=...)`` and ``sample(probability=...)`` work as in Gymnasium.

    A copied or unpickled env builds its space afresh (``TextRenderEnv``), so
    the copy samples from its own state; pickled alone (inside a saved model)
    the space is a plain ``Discrete``, without the env.
    """

    def __init__(
        self,
        n: int,
        legal_mask: Callable[[], np.ndarray],
        opening_mask: Callable[[], np.ndarray] | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask
        self._opening_mask = opening_mask or legal_mask
        self._fresh = False

    def __reduce__(self):
        # Pickle (e.g. inside a saved model) as a plain Discrete, without the env.
        state = {k: v for k, v in vars(self).items() if k not in _ENV_LINKS}
        return (spaces.Discrete, (int(self.n), None, int(self.start)), state)

    def seed(self, seed: int | np.random.Generator | None = None):
        out = super().seed(seed)
        self._fresh = True
        return out

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            now = np.asarray(self._legal_mask(), dtype=bool)
            mask = now
            if self._fresh or not now.any():
                opening = np.asarray(self._opening_mask(), dtype=bool)
                mask = opening & now if (opening & now).any() else opening
            mask = mask.astype(np.int8) if mask.any() else None
        out = super().sample(mask=mask, probability=probability)
        self._fresh = False  # after: a first sample seeds the space lazily
        return out
