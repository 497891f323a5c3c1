"""Exact solver of the russian scorecard game "Покер на костях" (docs/rules.md section 4).

Stage 1 (ones..sixes) is played out before stage 2, so the card splits in two:

- stage 2: ``stage2[filled2]``, the expected points still to come with the
  stage-2 rows of mask ``filled2`` filled (bit j = ``RUSSIAN_ROWS[6 + j]``);
  only the mask matters, since nothing in stage 2 depends on earlier scores;
- stage 1: ``stage1[filled1, total1 + 63]``, the same with the stage-1 rows of
  ``filled1`` filled and their sum ``total1`` (-63..42); it includes the +50 of
  a stage-1 sum >= 0 and all of stage 2 (``stage2[0]``).

Stage-2 rows filled right after the first roll score double (``first_roll``
tables of the rules module), so the turn solver gets separate stop values for
the first roll. The ``scratch`` rule decides which rows are legal.
"""

from __future__ import annotations

import numpy as np

from agents.optimal._scorecard_tables import plain_scores, satisfied
from agents.optimal._scorecard_turn import COUNTS, N_ROLLS, turn_policy_values, turn_values
from envs.rules.scorecard import STAGE1_BONUS, STAGE1_BONUS_AT, ScorecardRules

N_UPPER = 6
N_LOWER = 11
OFFSET = 63  # stage-1 sums run from -63 (no die of any face) to +42 (five of each)
N_SUMS = OFFSET + 43


class RussianTables:
    """Score and satisfaction tables of one rule set, built once."""

    def __init__(self, rules: ScorecardRules) -> None:
        self.rules = rules
        later, first = plain_scores(rules), plain_scores(rules, True)
        self.upper = later[:N_UPPER]
        if not np.array_equal(first[:N_UPPER], self.upper):
            raise AssertionError("the solver assumes stage-1 scores are never doubled")
        self.lower = later[N_UPPER:]  # (11, 252)
        self.lower_first = first[N_UPPER:]
        self.lower_sat = satisfied(rules)[N_UPPER:]
        self.only_if_nothing = rules.scratch == "only_if_nothing"
        self.upper_sums = _reachable_stage1_sums()


def _reachable_stage1_sums() -> list[np.ndarray]:
    out = []
    for mask in range(1 << N_UPPER):
        sums = {0}
        for f in range(1, 7):
            if mask >> (f - 1) & 1:
                sums = {s + (c - 3) * f for s in sums for c in range(6)}
        out.append(np.array(sorted(sums), dtype=np.int64))
    return out


def stage2_legal(
    tab: RussianTables, filled: np.ndarray, row: int, any_sat: np.ndarray | None = None
) -> np.ndarray:
    """``(252, n)`` bool: whether each roll may be written in stage-2 row ``row`` (0..10).

    The row must be open; under ``scratch="only_if_nothing"`` it must also be
    satisfied, unless no open row is (``any_sat``: :func:`any_open_satisfied`).
    """
    is_open = (filled >> row & 1) == 0
    legal = np.broadcast_to(is_open[None, :], (N_ROLLS, filled.size))
    if not tab.only_if_nothing:
        return legal
    if any_sat is None:
        any_sat = any_open_satisfied(tab, filled)
    return legal & (tab.lower_sat[row][:, None] | ~any_sat)


def any_open_satisfied(tab: RussianTables, filled: np.ndarray) -> np.ndarray:
    """``(252, n)`` bool: whether the roll satisfies some open stage-2 row."""
    open_rows = (filled[None, :] >> np.arange(N_LOWER)[:, None] & 1) == 0  # (11, n)
    return (tab.lower_sat.T.astype(np.float64) @ open_rows.astype(np.float64)) > 0


def stage2_stop(
    tab: RussianTables, stage2: np.ndarray, filled: np.ndarray, first_roll: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stop values ``(252, n)``, the best row (stage-2 index, lowest on ties) and its gain."""
    scores = tab.lower_first if first_roll else tab.lower
    n = filled.size
    stop = np.full((N_ROLLS, n), -np.inf)
    row = np.zeros((N_ROLLS, n), dtype=np.int64)
    any_sat = any_open_satisfied(tab, filled) if tab.only_if_nothing else None
    for r in range(N_LOWER):
        if np.all(filled >> r & 1):
            continue
        legal = stage2_legal(tab, filled, r, any_sat)
        with np.errstate(invalid="ignore"):  # filled rows point at unsolved states; masked
            val = scores[r][:, None] + stage2[filled | (1 << r)][None, :]
        better = legal & (val > stop)
        stop = np.where(better, val, stop)
        row = np.where(better, r, row)
    gain = scores[row, np.arange(N_ROLLS)[:, None]]
    return stop, row, gain


def stage1_stop(
    tab: RussianTables, stage1: np.ndarray, filled: np.ndarray, total: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stop values ``(252, n)`` of stage-1 states, the best row (face - 1) and its gain."""
    n = filled.size
    stop = np.full((N_ROLLS, n), -np.inf)
    row = np.zeros((N_ROLLS, n), dtype=np.int64)
    gain = np.zeros((N_ROLLS, n), dtype=np.int64)
    for r in range(N_UPPER):
        is_open = (filled >> r & 1) == 0
        if not is_open.any():
            continue
        g = (COUNTS[:, r] - 3) * (r + 1)  # (252,): the stage-1 row score
        assert np.array_equal(g, tab.upper[r])
        with np.errstate(invalid="ignore"):
            after = np.clip(total[None, :] + g[:, None], -OFFSET, N_SUMS - 1 - OFFSET)
            val = g[:, None] + stage1[(filled | (1 << r))[None, :], after + OFFSET]
        better = is_open[None, :] & (val > stop)
        stop = np.where(better, val, stop)
        row = np.where(better, r, row)
        gain = np.where(better, g[:, None], gain)
    return stop, row, gain


def _stage1_states(tab: RussianTables, n_filled: int) -> tuple[np.ndarray, np.ndarray]:
    fs, ts = [], []
    for mask in range(1 << N_UPPER):
        if mask.bit_count() == n_filled:
            sums = tab.upper_sums[mask]
            fs.append(np.full(sums.size, mask))
            ts.append(sums)
    return np.concatenate(fs), np.concatenate(ts)


def _masks(n_bits: int, n_filled: int) -> np.ndarray:
    return np.array([m for m in range(1 << n_bits) if m.bit_count() == n_filled], dtype=np.int64)


def solve_russian(rules: ScorecardRules) -> tuple[np.ndarray, np.ndarray]:
    """``(stage1 (64, 106), stage2 (2048,))`` values (module docstring); NaN where unreachable."""
    tab = RussianTables(rules)
    stage2 = np.full(1 << N_LOWER, np.nan)
    stage2[(1 << N_LOWER) - 1] = 0.0
    for k in range(N_LOWER - 1, -1, -1):
        m = _masks(N_LOWER, k)
        stop = stage2_stop(tab, stage2, m, first_roll=False)[0]
        first = stage2_stop(tab, stage2, m, first_roll=True)[0]
        stage2[m] = turn_values(stop, first)
    stage1 = np.full((1 << N_UPPER, N_SUMS), np.nan)
    full = (1 << N_UPPER) - 1
    sums = tab.upper_sums[full]
    stage1[full, sums + OFFSET] = stage2[0] + STAGE1_BONUS * (sums >= STAGE1_BONUS_AT)
    for k in range(N_UPPER - 1, -1, -1):
        f, t = _stage1_states(tab, k)
        stop = stage1_stop(tab, stage1, f, t)[0]
        stage1[f, t + OFFSET] = turn_values(stop)
    return stage1, stage2


def russian_moments(
    rules: ScorecardRules, stage1: np.ndarray, stage2: np.ndarray
) -> tuple[float, float, float]:
    """Exact ``(mean, second moment, P(stage-1 bonus))`` of the final score under optimal play.

    A backward pass over the same states that follows the optimal choices
    (lowest keep and row index on ties, as the agent plays) and carries
    E[(points to come)^2] and P(bonus) beside the value.
    """
    tab = RussianTables(rules)
    sq2 = np.full(1 << N_LOWER, np.nan)
    sq2[(1 << N_LOWER) - 1] = 0.0
    for k in range(N_LOWER - 1, -1, -1):
        m = _masks(N_LOWER, k)
        aux = []
        for first in (False, True):
            stop, row, gain = stage2_stop(tab, stage2, m, first_roll=first)
            nxt = m[None, :] | (1 << row)
            aux.append((stop, gain**2 + 2 * gain * stage2[nxt] + sq2[nxt]))
        (stop, a), (stop_f, a_f) = aux
        _, (sq2[m],) = turn_policy_values(stop, [a], stop_f, [a_f])
    sq1 = np.full_like(stage1, np.nan)
    pb = np.full_like(stage1, np.nan)
    full = (1 << N_UPPER) - 1
    sums = tab.upper_sums[full]
    b = STAGE1_BONUS * (sums >= STAGE1_BONUS_AT)
    sq1[full, sums + OFFSET] = b**2 + 2 * b * stage2[0] + sq2[0]
    pb[full, sums + OFFSET] = sums >= STAGE1_BONUS_AT
    for k in range(N_UPPER - 1, -1, -1):
        f, t = _stage1_states(tab, k)
        stop, row, gain = stage1_stop(tab, stage1, f, t)
        nf, nt = f[None, :] | (1 << row), t[None, :] + gain + OFFSET
        a_sq = gain**2 + 2 * gain * stage1[nf, nt] + sq1[nf, nt]
        _, (sq1[f, t + OFFSET], pb[f, t + OFFSET]) = turn_policy_values(stop, [a_sq, pb[nf, nt]])
    return float(stage1[0, OFFSET]), float(sq1[0, OFFSET]), float(pb[0, OFFSET])
