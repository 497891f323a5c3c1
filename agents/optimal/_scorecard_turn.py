"""One scorecard turn (roll, keep, roll, keep, roll) solved exactly over dice multisets.

Rules-independent machinery shared by the scorecard solvers. A turn is solved
for many card states at once: a state enters as a column of "stop values"
(the best value of writing the dice of each of the 252 five-dice multisets
into the card) and leaves as its start-of-turn value.

Keeps are the 462 multisets of 0..5 dice. ``TRANSITION[k, d]`` is the chance
that re-rolling the dice outside keep ``k`` ends with multiset ``d``. The
best keep among the sub-multisets of ``d`` is found by a running maximum down
the keep lattice (a keep's best sub-keep is itself or the best sub-keep of
one of the keeps one die smaller), which costs about five maxima per keep
instead of the up-to-32 subsets of every roll.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.rules.dice import FACES, KEEP_INDEX, KEEPS, keep_transition, multisets

N_DICE = 5
DICE: tuple[tuple[int, ...], ...] = multisets(N_DICE)
DICE_INDEX = {d: i for i, d in enumerate(DICE)}
N_ROLLS, N_KEEPS = len(DICE), len(KEEPS)
_SIZE_START = [sum(1 for k in KEEPS if len(k) < n) for n in range(N_DICE + 2)]
FULL_KEEP = np.array([KEEP_INDEX[d] for d in DICE])  # keep index of each roll

COUNTS = np.array([[d.count(f) for f in FACES] for d in DICE], dtype=np.int64)  # (252, 6)


TRANSITION = keep_transition()  # KEEPS as in envs.rules.dice, in its order
FIRST_ROLL = TRANSITION[KEEP_INDEX[()]]  # chance of each multiset on a fresh roll of five


def _predecessors() -> list[list[tuple[int, np.ndarray]]]:
    """For each keep size n >= 1 and each j: ``(count, indices)``, the j-th keep one die
    smaller of the first ``count`` keeps of the size-n block (the others have fewer
    distinct faces)."""
    out = []
    for n in range(1, N_DICE + 1):
        rows = []
        for keep in KEEPS[_SIZE_START[n] : _SIZE_START[n + 1]]:
            subs = []
            for f in sorted(set(keep)):
                sub = list(keep)
                sub.remove(f)
                subs.append(KEEP_INDEX[tuple(sub)])
            rows.append(subs)
        cols = []
        for j in range(max(len(r) for r in rows)):
            count = sum(1 for r in rows if len(r) > j)
            assert all(len(r) > j for r in rows[:count])
            cols.append((count, np.array([r[j] for r in rows[:count]], dtype=np.int64)))
        out.append(cols)
    return out


_PREDS = _predecessors()


def _successors() -> list[np.ndarray]:
    """For each keep size n < 5: (keeps of size n, 6) indices of the keep plus one die of a face."""
    return [
        np.array(
            [
                [KEEP_INDEX[tuple(sorted(keep + (f,)))] for f in FACES]
                for keep in KEEPS[_SIZE_START[n] : _SIZE_START[n + 1]]
            ],
            dtype=np.int64,
        )
        for n in range(N_DICE)
    ]


_SUCCS = _successors()


def keep_expectations(after: np.ndarray) -> np.ndarray:
    """``(462, n)``: ``TRANSITION @ after``, computed one die at a time.

    Re-rolling the dice outside a keep is the same as rolling one die (uniform)
    and then the rest, so a keep's expectation is the mean over the six faces of
    the expectation of the keep one die bigger: about 1,300 row additions per
    state instead of a dense 462 x 252 product (the transition matrix is 96% zeros).
    """
    out = np.empty((N_KEEPS, after.shape[1]))
    out[FULL_KEEP] = after
    for n in range(N_DICE - 1, -1, -1):
        block = out[_SIZE_START[n] : _SIZE_START[n + 1]]
        succ = _SUCCS[n]
        np.add(out[succ[:, 0]], out[succ[:, 1]], out=block)
        for j in range(2, 6):
            block += out[succ[:, j]]
        block /= 6.0
    return out


def best_subkeep(expect: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """``(252, n)``: for each roll, the largest ``expect`` over the keeps it contains.

    ``expect`` is ``(462, n)``: the expected value of each keep in each of n
    states; with ``overwrite`` it is used as scratch space.
    """
    best = expect if overwrite else expect.copy()
    for n in range(1, N_DICE + 1):
        block = best[_SIZE_START[n] : _SIZE_START[n + 1]]
        for count, preds in _PREDS[n - 1]:
            np.maximum(block[:count], best[preds], out=block[:count])
    return best[FULL_KEEP]


def turn_values(stop: np.ndarray, stop_first: np.ndarray | None = None) -> np.ndarray:
    """Start-of-turn values ``(n,)`` from stop values ``(252, n)``.

    ``stop[d, i]``: best value of writing roll ``d`` into state ``i``'s card
    after a second or third roll; ``stop_first``: the same right after the
    first roll, where it differs (the russian game doubles scores there).
    Keeping all five dice is allowed and is the same as stopping after rolls 2
    and 3, so it needs no separate case.
    """
    after3 = stop
    after2 = best_subkeep(keep_expectations(after3), overwrite=True)
    after1 = best_subkeep(keep_expectations(after2), overwrite=True)
    if stop_first is not None:
        np.maximum(after1, stop_first, out=after1)
    return FIRST_ROLL @ after1


def keep_values(stop: np.ndarray, rolls_left: int) -> np.ndarray:
    """``(462, n)``: expected value of each keep when ``rolls_left`` rolls remain (1 or 2).

    The value assumes optimal play afterwards; stopping after a later roll
    uses ``stop`` (a later roll is never the first).
    """
    if rolls_left not in (1, 2):
        raise ValueError(f"rolls_left must be 1 or 2, got {rolls_left}")
    value = stop
    for _ in range(rolls_left - 1):
        value = best_subkeep(keep_expectations(value), overwrite=True)
    return keep_expectations(value)


def subkeeps(dice: Sequence[int]) -> list[int]:
    """Keep indices of every sub-multiset of ``dice`` (five dice), each once."""
    dice = tuple(sorted(dice))
    subs = {
        tuple(sorted(dice[i] for i in range(len(dice)) if m >> i & 1))
        for m in range(1 << len(dice))
    }
    return sorted(KEEP_INDEX[s] for s in subs)


def best_subkeep_index(expect: np.ndarray) -> np.ndarray:
    """``(252, n)`` keep index attaining :func:`best_subkeep` (lowest index on ties).

    The same running maximum down the keep lattice, carrying the argmax along.
    """
    best = expect.copy()
    arg = np.broadcast_to(np.arange(N_KEEPS)[:, None], expect.shape).copy()
    for n in range(1, N_DICE + 1):
        lo = _SIZE_START[n]
        for count, preds in _PREDS[n - 1]:
            block, block_arg = best[lo : lo + count], arg[lo : lo + count]
            cand, cand_arg = best[preds], arg[preds]
            better = (cand > block) | ((cand == block) & (cand_arg < block_arg))
            np.copyto(block, cand, where=better)
            np.copyto(block_arg, cand_arg, where=better)
    return arg[FULL_KEEP]


def turn_policy_values(
    stop: np.ndarray,
    stop_aux: list[np.ndarray],
    stop_first: np.ndarray | None = None,
    stop_first_aux: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Start-of-turn value and auxiliary expectations under the optimal policy.

    Each of ``stop_aux`` is an auxiliary quantity (a second moment, a bonus
    indicator, ...) that stopping gives, for the stopping choice that attains
    ``stop``. The choices are the agent's: after a roll with rolls left, stop
    when stopping is worth at least every re-roll, else re-roll around the
    lowest keep index among the best (keeping all five is never a re-roll: it
    is worth no more than stopping or a smaller keep). Returns
    ``(value (n,), [aux (n,), ...])``.
    """
    if stop_first is None:
        stop_first, stop_first_aux = stop, stop_aux
    value, aux = stop, list(stop_aux)
    cols = np.arange(stop.shape[1])
    for now, now_aux in ((stop, stop_aux), (stop_first, stop_first_aux)):
        expect = keep_expectations(value)
        expect[FULL_KEEP] = -np.inf
        arg = best_subkeep_index(expect)
        best = expect[arg, cols]
        stays = now >= best
        value = np.where(stays, now, best)
        aux = [
            np.where(stays, a_now, keep_expectations(a)[arg, cols])
            for a, a_now in zip(aux, now_aux, strict=True)
        ]
    return FIRST_ROLL @ value, [FIRST_ROLL @ a for a in aux]
