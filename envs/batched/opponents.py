"""What the single-agent tables (dice and card poker) ask of their batched opponents, and
what they do when one fails.

A table steps the learner's action first and the opponents after it, so an opponent that
raises, or returns something that is not one legal action per table, fails after the
learner's move (and perhaps other opponents' moves) were played. Undoing that would mean
a copy of every state array per step, and an opponent's own state (its Generator) cannot
be rolled back anyway. So the tables of that step are marked: the error says they must be
reset, and stepping any of them raises until :meth:`reset` starts them again.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def opponent_name(opponent: Any, seats: str = "") -> str:
    """``opponent <repr>`` (short), for error messages."""
    name = getattr(opponent, "__qualname__", None) or repr(opponent)
    if len(name) > 80:
        name = name[:77] + "..."
    return f"opponent {name}{seats}"


def opponent_actions(out: Any, m: int, opponent: Any, n_actions: int) -> np.ndarray:
    """``out``, what ``opponent`` returned for ``m`` tables, as int64 ``(m,)``, or a
    ``ValueError`` naming the opponent, what it returned and what is allowed."""
    a = np.asarray(out)
    if a.shape != (m,) or a.dtype.kind not in "iu":  # integers (not bool: kind "b")
        shown = a.ravel()[:6].tolist()
        raise OpponentError(
            f"{opponent_name(opponent)} returned {a.dtype} of shape {a.shape} ({shown!r}); "
            f"expected ({m},) integer actions 0..{n_actions - 1}, one per table it was asked for"
        )
    return a.astype(np.int64, copy=False)


class OpponentError(ValueError):
    """An opponent's output that is not one legal action per table it was asked for."""


def illegal(who: str, action: int, table: int, legal: list[int]) -> OpponentError:
    return OpponentError(
        f"{who} chose illegal action {action} at table {table}; legal actions there are {legal}"
    )


class HalfStepped:
    """The tables a failing opponent left part-way through a step (module docstring)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.rows: np.ndarray | None = None  # bool (n,), None while every table is whole

    def refuse(self, rows: np.ndarray) -> None:
        """Raise where any of the tables ``rows`` (indices or a bool mask) must be reset."""
        if self.rows is not None and self.rows[rows].any():
            bad = np.flatnonzero(self.rows)
            raise RuntimeError(
                f"table(s) {_few(bad)} were left part-way through a step by a failing "
                f"opponent; reset them (reset(), or reset(which) covering them) before stepping"
            )

    def clear(self, rows: np.ndarray) -> None:
        if self.rows is not None:
            self.rows[rows] = False
            if not self.rows.any():
                self.rows = None

    def fail(self, rows: np.ndarray, error: BaseException) -> None:
        """Mark ``rows`` (indices or a bool mask) and say so on ``error`` (the caller
        re-raises it)."""
        if self.rows is None:
            self.rows = np.zeros(self.n, dtype=bool)
        self.rows[rows] = True
        say = (
            f"table(s) {_few(rows)} were left part-way through this step (the learner's and "
            f"earlier opponents' moves were played): they must be reset before they step again"
        )
        if isinstance(error, OpponentError) and len(error.args) == 1:
            error.args = (f"{error.args[0]}; {say}",)
        else:
            error.add_note(say)


def _few(rows: np.ndarray) -> str:
    rows = np.asarray(rows)
    rows = (np.flatnonzero(rows) if rows.dtype == bool else rows).tolist()
    return str(rows) if len(rows) <= 8 else f"{rows[:8]}... ({len(rows)} in all)"


__all__ = ["HalfStepped", "OpponentError", "illegal", "opponent_actions", "opponent_name"]
