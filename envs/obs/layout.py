"""A flat observation vector as named slices with bounds: one object encodes,
decodes and gives the Box.

Every game's observation is a :class:`Layout` (see ``envs/obs/<game>.py``).
The envs, the AEC envs, the agents and the batched engines all build and read
observations through the same object, so the index table in a docstring, the
encoder and the decoder cannot drift apart.

Pure numpy: the ``Box`` is built on demand by :meth:`Layout.box`, which imports
``gymnasium.spaces`` only then (so this package imports neither gymnasium nor
anything above the rules layer).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    """One named slice of an observation.

    ``size=None`` is a scalar (one slot, decoded as a ``float``); an int is a
    vector of that many slots (decoded as an array, even of length 1).
    ``kind`` says how a vector decodes: ``"real"`` (float32), ``"int"``
    (int64) or ``"bool"``.
    """

    name: str
    size: int | None
    low: float
    high: float
    doc: str = ""
    kind: str = "real"

    @property
    def width(self) -> int:
        return 1 if self.size is None else self.size


class Layout:
    """Fields in order; ``encode(**fields) -> vector``, ``decode(vector) -> dict``, ``box()``."""

    def __init__(self, fields: list[Field] | tuple[Field, ...], what: str = "observation") -> None:
        self.fields = tuple(fields)
        self.what = what
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"field names repeat in {names}")
        self.slices: dict[str, slice] = {}
        i = 0
        for f in self.fields:
            self.slices[f.name] = slice(i, i + f.width)
            i += f.width
        self.size = i
        self.names = tuple(names)
        self._widths = tuple((f.name, f.width) for f in self.fields)
        self._names = frozenset(names)
        self.low = np.concatenate([np.full(f.width, f.low) for f in self.fields]).astype(np.float32)
        self.high = np.concatenate([np.full(f.width, f.high) for f in self.fields]).astype(
            np.float32
        )

    def __repr__(self) -> str:
        return f"Layout({self.what}, {self.size} values: {', '.join(self.names)})"

    def index_table(self) -> str:
        """The layout as a markdown table (index, field, meaning), for docs and docstrings."""
        lines = ["| index | field | meaning |", "|---|---|---|"]
        for f in self.fields:
            s = self.slices[f.name]
            idx = str(s.start) if f.width == 1 else f"{s.start}-{s.stop - 1}"
            lines.append(f"| {idx} | {f.name} | {f.doc} |")
        return "\n".join(lines)

    def document(self, doc: str | None, marker: str = "{index_table}") -> str | None:
        """``doc`` (a docstring; dedented) with ``marker`` replaced by :meth:`index_table`,
        so a docstring shows the table that the fields themselves define (one place)."""
        if doc is None:  # python -OO strips docstrings
            return None
        return inspect.cleandoc(doc).replace(marker, self.index_table())

    def box(self):
        """The ``gymnasium.spaces.Box`` with each field's bounds."""
        from gymnasium import spaces

        return spaces.Box(self.low.copy(), self.high.copy(), dtype=np.float32)

    # -- encode ------------------------------------------------------------------------
    def encode(self, **values) -> np.ndarray:
        """The float32 vector of these field values.

        A value is a number or a sequence of ``size`` numbers; with a leading
        batch axis (a numpy array of shape ``(N,)`` for a scalar field,
        ``(N, size)`` for a vector field) the result is ``(N, size)``, the other
        fields broadcast over the batch.
        """
        if values.keys() != self._names:
            missing = sorted(self._names - values.keys())
            extra = sorted(values.keys() - self._names)
            raise ValueError(
                f"{self.what}: missing fields {missing}, unknown fields {extra}; "
                f"fields are {list(self.names)}"
            )
        if not any(isinstance(v, np.ndarray) for v in values.values()):
            flat = self._flat(values)
            if flat is not None:  # one observation from plain numbers: one conversion
                return np.array(flat, dtype=np.float32)
        batch = None
        for f in self.fields:
            v = values[f.name]
            if isinstance(v, np.ndarray) and v.ndim == (0 if f.size is None else 1) + 1:
                if batch is not None and v.shape[0] != batch:
                    raise ValueError(
                        f"{self.what}: field {f.name!r} has a batch of {v.shape[0]}, others {batch}"
                    )
                batch = v.shape[0]
        if batch is None:
            out = np.empty(self.size, dtype=np.float32)
            for f in self.fields:
                out[self.slices[f.name]] = values[f.name]
            return out
        out = np.empty((batch, self.size), dtype=np.float32)
        for f in self.fields:
            v = values[f.name]
            if f.size is None:
                v = np.asarray(v)
                v = v[:, None] if v.ndim == 1 else v
            out[:, self.slices[f.name]] = v
        return out

    def _flat(self, values: dict) -> list | None:
        """The values of one observation in slot order, as one list; None where a value is
        not a plain number or a sequence of the field's width (the general path decides)."""
        flat: list = []
        for name, width in self._widths:
            v = values[name]
            if isinstance(v, int | float):  # bools too; a scalar fills a vector field
                if width == 1:
                    flat.append(v)
                else:
                    flat.extend([v] * width)
            elif isinstance(v, list | tuple) and len(v) == width:
                flat.extend(v)
            else:
                return None
        return flat

    # -- decode ------------------------------------------------------------------------
    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray | float]:
        """Split a vector (or an ``(N, size)`` batch) into its named fields.

        One vector: scalars as floats, vectors as arrays of their ``kind``.
        A batch: scalars as ``(N,)`` arrays, vectors as ``(N, size)`` arrays.
        """
        obs = np.asarray(obs)
        if obs.ndim not in (1, 2) or obs.shape[-1] != self.size:
            raise ValueError(
                f"expected an observation of shape ({self.size},) (or a batch (N, {self.size})) "
                f"for {self.what}, got {obs.shape}"
            )
        out: dict[str, np.ndarray | float] = {}
        batched = obs.ndim == 2
        for f in self.fields:
            part = obs[..., self.slices[f.name]]
            if f.size is None:
                out[f.name] = part[..., 0].copy() if batched else float(part[0])
            elif f.kind == "int":
                out[f.name] = part.astype(np.int64)
            elif f.kind == "bool":
                out[f.name] = part.astype(bool)
            else:
                out[f.name] = part.copy()
        return out
