"""Checks every model loader makes on what it read (``afterstate:``, ``dqn:``,
``handvalue:``, ``ppo:``, ``rllib:``): the file is whole and its weights are numbers.

``torch.load`` reads a zip archive without checking its members' CRC-32, so a damaged
block of weights (a zeroed sector, a flipped bit) loads silently and plays worse;
:func:`check_zip` reads every member through :mod:`zipfile`, which does check. NaN or
infinite weights load silently too and play as garbage; :func:`check_finite` names the
first such weight. Each raises a ``ValueError`` whose text the loader puts after the
file's name, so the user reads one line.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np


def check_zip(path: str | Path) -> None:
    """Every member of the zip at ``path`` matches its CRC-32 (a file that is not a zip is
    left to its loader)."""
    if not zipfile.is_zipfile(path):
        return
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise ValueError(f"the file is damaged ({err})") from None
    if bad is not None:
        raise ValueError(f"the file is damaged: its member {bad!r} fails its CRC-32 check")


def check_finite(weights: Iterable[tuple[str, Any]]) -> None:
    """Every ``(name, tensor or array)`` holds finite numbers only."""
    for name, value in weights:
        a = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
        if np.issubdtype(a.dtype, np.number) and not np.isfinite(a).all():
            k = int(np.size(a) - np.isfinite(a).sum())
            raise ValueError(f"weight {name!r} holds {k} non-finite value(s) (NaN or inf)")


def load_sb3_zip(cls, path: str | Path):
    """The SB3 model zip at ``path`` loaded by ``cls`` (``MaskablePPO``, ``MaskableDQN``) on
    the CPU, its members whole and its weights finite; what is wrong, in one line naming
    the file."""
    path, name = Path(path), cls.__name__
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{str(path)!r} is not a model zip saved by {name}.save()")
    try:
        check_zip(path)
        model = cls.load(path, device="cpu")
        check_finite(model.policy.state_dict().items())
    except Exception as err:  # SB3 raises many kinds for a damaged or foreign zip
        raise ValueError(f"cannot load a {name} model from {str(path)!r}: {err}") from None
    return model


def batch_of(observations, agent: str, shape: tuple) -> np.ndarray:
    """``observations`` as a float32 batch ``(m, *shape)`` for the model of ``agent`` (its
    name), or a ``ValueError`` that names the shapes."""
    obs = np.asarray(observations, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1:] != tuple(shape):
        raise ValueError(
            f"{agent} was trained on observations of shape {tuple(shape)}, "
            f"got a batch of shape {obs.shape}: a different game or variant?"
        )
    return obs


def check_game(path: str | Path, game: str, shape: tuple, n_actions: int | None, **rules) -> None:
    """A model of observations of ``shape`` and ``n_actions`` actions plays ``game`` (with
    ``rules``): its observation size is one the game gives at some table size, its action
    count the rules' (a ``ValueError`` naming the file; ``n_actions`` None: not checked)."""
    from envs import games

    record = games.get(game)
    made = record.make_rules(**rules)
    low, high = record.players
    sizes = sorted({record.layout(made, n).size for n in range(low, high + 1)})
    wanted = getattr(made, "n_actions", None)
    shape = tuple(shape)
    other_actions = wanted is not None and n_actions is not None and n_actions != wanted
    if len(shape) != 1 or shape[0] not in sizes or other_actions:
        want = f"({sizes[0]},)" if len(sizes) == 1 else f"one of {[(s,) for s in sizes]}"
        raise ValueError(
            f"the model {str(path)!r} was trained on observations of shape {shape} and "
            f"{n_actions} actions, but {game} with {made} gives {want}"
            + (f" and {wanted} actions" if wanted else "")
            + ": a different game, variant or number of players?"
        )


__all__ = ["batch_of", "check_finite", "check_game", "check_zip", "load_sb3_zip"]
