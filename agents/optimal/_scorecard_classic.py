"""Exact solver of classic solitaire Yahtzee (docs/rules.md section 5).

A card state between turns is ``(filled, upper, yahtzee50)``: the mask of
filled rows (bit k = ``CLASSIC_ROWS[k]``), the upper-section sum capped at 63
(only "reached 63 or not" matters for the +35) and whether the Yahtzee row
holds 50 (only tracked with ``yahtzee_bonus=True``; it decides the +100).
``values[filled, upper, yahtzee50]`` is the expected sum of all points still
to come (row scores, the +35 when the fill reaches 63, Yahtzee bonuses) under
optimal play; states that cannot occur hold NaN. The states are solved level
by level (all cards with the same number of filled rows together), and only
upper sums that the filled upper rows can make are visited.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from agents.optimal._scorecard_tables import (
    YAHTZEE_DICE,
    classic_yahtzee_table,
    plain_scores,
)
from agents.optimal._scorecard_turn import COUNTS, N_ROLLS, turn_values
from envs.rules.scorecard import (
    CLASSIC_ROWS,
    UPPER_BONUS,
    UPPER_BONUS_AT,
    YAHTZEE_BONUS,
    ScorecardRules,
)

N_ROWS = len(CLASSIC_ROWS)
Y_ROW = CLASSIC_ROWS.index("yahtzee")
Y_BIT = 1 << Y_ROW
CAP = UPPER_BONUS_AT  # upper sums are stored capped here
SHAPE = (1 << N_ROWS, CAP + 1, 2)
CHUNK = 2048  # states per turn batch: big enough for BLAS, small enough for the cache


def reachable_upper_sums() -> list[np.ndarray]:
    """For each mask of filled upper rows, the capped upper sums the card can hold."""
    out = []
    for umask in range(64):
        sums = {0}
        for f in range(1, 7):
            if umask >> (f - 1) & 1:
                sums = {min(CAP, s + f * c) for s in sums for c in range(6)}
        out.append(np.array(sorted(sums), dtype=np.int64))
    return out


class ClassicTables:
    """Everything the stop values need, built once per rule set."""

    def __init__(
        self, rules: ScorecardRules, joker: tuple[np.ndarray, np.ndarray] | None = None
    ) -> None:
        self.rules = rules
        self.scores = plain_scores(rules)
        # the joker tables take a while to ask of the rules module; a cached solution has them
        self.joker_legal, self.joker_score = joker or classic_yahtzee_table(rules)
        self.track_bonus = rules.yahtzee_bonus
        self.upper_sums = reachable_upper_sums()


def stop_values(
    tab: ClassicTables,
    values: np.ndarray,
    filled: np.ndarray,
    upper: np.ndarray,
    y: np.ndarray,
    with_rows: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Best value of writing each roll into each state's card, and the row that attains it.

    Returns ``(stop (252, n), row (252, n) or None)``; the row (lowest index on
    ties) only ``with_rows``. ``values`` must already hold every state one fill later.
    """
    n = filled.shape[0]
    stop = np.full((N_ROLLS, n), -np.inf)
    best_row = np.zeros((N_ROLLS, n), dtype=np.int64) if with_rows else None
    val = np.empty((N_ROLLS, n))
    with np.errstate(invalid="ignore"):  # filled rows point at unsolved (NaN) states; masked
        for r in range(N_ROWS):
            is_open = (filled >> r & 1) == 0
            if not is_open.any():
                continue
            nxt = filled | (1 << r)
            if r < 6:  # an upper row: the gain and the next upper sum depend on the face count
                count = np.arange(6)[:, None]
                raw = upper[None, :] + (r + 1) * count
                gain = (r + 1) * count + UPPER_BONUS * ((upper[None, :] < CAP) & (raw >= CAP))
                after = gain + values[nxt[None, :], np.minimum(raw, CAP), y[None, :]]
                np.take(after, COUNTS[:, r], axis=0, out=val)
            else:
                np.add(tab.scores[r][:, None], values[nxt, upper, y][None, :], out=val)
                if r == Y_ROW and tab.track_bonus:  # a Yahtzee written here holds 50
                    val[YAHTZEE_DICE] = tab.scores[r][YAHTZEE_DICE][:, None] + values[nxt, upper, 1]
            where = np.broadcast_to(is_open[None, :], val.shape)
            if with_rows:
                better = where & (val > stop)
                best_row[better] = r
                where = better
            np.maximum(stop, val, out=stop, where=where)
    _joker_stop(tab, values, filled, upper, y, stop, best_row)
    return stop, best_row


def _joker_stop(tab, values, filled, upper, y, stop, best_row) -> None:
    """Five of a kind once the Yahtzee row is filled: joker rules and the Yahtzee bonus."""
    cols = np.flatnonzero(filled & Y_BIT)
    if cols.size == 0:
        return
    m, u, yy = filled[cols], upper[cols], y[cols]
    bonus = YAHTZEE_BONUS * yy if tab.track_bonus else np.zeros_like(yy)
    for face in range(6):
        legal = tab.joker_legal[m, face]
        score = tab.joker_score[m, face]
        best = np.full(cols.size, -np.inf)
        arg = np.zeros(cols.size, dtype=np.int64)
        for r in range(N_ROWS):
            ok = (legal >> r & 1).astype(bool)
            if not ok.any():
                continue
            s = score[:, r]
            raw = u + s if r < 6 else u
            gain = s + bonus
            if r < 6:
                gain = gain + UPPER_BONUS * ((u < CAP) & (raw >= CAP))
            with np.errstate(invalid="ignore"):  # rows not open point at unvisited states
                v = gain + values[m | (1 << r), np.minimum(raw, CAP), yy]
            better = ok & (v > best)
            best = np.where(better, v, best)
            arg = np.where(better, r, arg)
        stop[YAHTZEE_DICE[face], cols] = best
        if best_row is not None:
            best_row[YAHTZEE_DICE[face], cols] = arg


def level_states(tab: ClassicTables, n_filled: int, within: int = 0) -> tuple[np.ndarray, ...]:
    """All reachable states with ``n_filled`` rows filled: (filled, upper, yahtzee50).

    Only cards whose filled rows include ``within``. States of one card mask are contiguous.
    """
    fs, us, ys = [], [], []
    for mask in range(1 << N_ROWS):
        if mask.bit_count() != n_filled or mask & within != within:
            continue
        sums = tab.upper_sums[mask & 63]
        for yv in (0, 1) if tab.track_bonus and mask & Y_BIT else (0,):
            fs.append(np.full(sums.size, mask))
            us.append(sums)
            ys.append(np.full(sums.size, yv))
    return np.concatenate(fs), np.concatenate(us), np.concatenate(ys)


def _mask_stop(tab: ClassicTables, values: np.ndarray, mask: int, u, y, out) -> None:
    """Stop values of the states of one card mask into ``out`` (252, len(u)), -inf first.

    Every state here has the same open rows, so only those are visited, and
    the open upper rows and the open plain lower rows each go in one batch.
    """
    open_rows = [r for r in range(N_ROWS) if not mask >> r & 1]
    upper = np.array([r for r in open_rows if r < 6], dtype=np.int64)
    lower = np.array([r for r in open_rows if r >= 6 and r != Y_ROW], dtype=np.int64)
    if upper.size:
        face = (upper + 1)[:, None, None]
        raw = u[None, None, :] + face * _COUNT  # (rows, count, n)
        gain = face * _COUNT + UPPER_BONUS * ((u < CAP) & (raw >= CAP))
        after = gain + values[(mask | (1 << upper))[:, None, None], np.minimum(raw, CAP), y]
        # row i, roll d: the value after writing d's count of face i
        val = after[np.arange(upper.size)[:, None], COUNTS[:, upper].T]  # (rows, 252, n)
        np.maximum(out, val.max(axis=0), out=out)
    if lower.size:
        nxt = values[(mask | (1 << lower))[:, None], u, y]  # (rows, n)
        val = tab.scores[lower][:, :, None] + nxt[:, None, :]
        np.maximum(out, val.max(axis=0), out=out)
    if not mask & Y_BIT:
        nxt = mask | Y_BIT
        val = tab.scores[Y_ROW][:, None] + values[nxt, u, y][None, :]
        if tab.track_bonus:  # a Yahtzee written here holds 50
            val[YAHTZEE_DICE] = tab.scores[Y_ROW][YAHTZEE_DICE][:, None] + values[nxt, u, 1]
        np.maximum(out, val, out=out)


_COUNT = np.arange(6)[None, :, None]


def solve_classic(rules: ScorecardRules, within: int = 0) -> np.ndarray:
    """``values`` over all card states (module docstring), NaN where unreachable.

    ``within``: solve only the cards whose filled rows include this mask (the
    rest of a game from such a card; for checks on small end games).
    """
    tab = ClassicTables(rules)
    values = np.full(SHAPE, np.nan)
    f, u, y = level_states(tab, N_ROWS)
    values[f, u, y] = 0.0
    for n_filled in range(N_ROWS - 1, within.bit_count() - 1, -1):
        f, u, y = level_states(tab, n_filled, within)
        for groups in _mask_chunks(f):
            start, end = groups[0][0], groups[-1][1]
            stop = np.full((N_ROLLS, end - start), -np.inf)
            for a, b in groups:
                _mask_stop(tab, values, int(f[a]), u[a:b], y[a:b], stop[:, a - start : b - start])
            cols = slice(start, end)
            _joker_stop(tab, values, f[cols], u[cols], y[cols], stop, None)
            values[f[cols], u[cols], y[cols]] = turn_values(stop)
    return values


def _mask_chunks(filled: np.ndarray) -> Iterator[list[tuple[int, int]]]:
    """Runs of equal masks ``(start, end)``, packed into chunks of about CHUNK states."""
    bounds = np.flatnonzero(np.r_[True, filled[1:] != filled[:-1], True]).tolist()
    chunk: list[tuple[int, int]] = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if chunk and b - chunk[0][0] > CHUNK:
            yield chunk
            chunk = []
        chunk.append((a, b))
    if chunk:
        yield chunk
