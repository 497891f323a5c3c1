"""How hands compare, for dice and card hands alike: by ``key``, within one family.

A hand's ``key`` is ``(rank, *tiebreak)``: ``a < b`` means b wins, ``a == b`` is a
tie. Hands of different families (five against six dice, or cards valued under
different variants) have no order: comparing them raises ``ValueError``.
"""

from __future__ import annotations


class KeyOrdered:
    """Equality, order and hash by ``key`` (``functools.total_ordering`` adds the rest).

    A subclass gives ``key`` and ``family`` (hands compare only within one family),
    and ``_mismatch(other)``: the message for hands of two families.
    """

    key: tuple[int, ...]
    family: object

    def _mismatch(self, other) -> str:
        return f"cannot compare {self!r} with {other!r}"

    def _comparable(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return False
        if self.family != other.family:
            raise ValueError(self._mismatch(other))
        return True

    def __eq__(self, other: object) -> bool:
        if not self._comparable(other):
            return NotImplemented
        return self.key == other.key

    def __lt__(self, other: object) -> bool:
        if not self._comparable(other):
            return NotImplemented
        return self.key < other.key

    def __hash__(self) -> int:
        return hash((self.family, self.key))
