"""Score tables of the scorecard rules, built once from :mod:`envs.rules.scorecard`.

Every number the solvers use comes from ``score_row``, ``satisfies``,
``legal_rows`` and ``joker_active`` of the rules module, so the solver and the
env cannot disagree about what a fill is worth or which rows are legal.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from agents.optimal._scorecard_turn import DICE
from envs.rules.scorecard import (
    ScorecardRules,
    joker_active,
    legal_rows,
    satisfies,
    score_row,
)

YAHTZEE_DICE = np.array([DICE.index((f,) * 5) for f in range(1, 7)])  # roll index per face


@cache
def plain_scores(rules: ScorecardRules, first_roll: bool = False) -> np.ndarray:
    """``(rows, 252)`` int: each row's score for each roll, no joker, no card bonus."""
    return np.array(
        [[score_row(row, d, rules, first_roll=first_roll) for d in DICE] for row in rules.rows],
        dtype=np.int64,
    )


@cache
def satisfied(rules: ScorecardRules) -> np.ndarray:
    """``(rows, 252)`` bool: whether each roll forms each row's combination."""
    return np.array([[satisfies(row, d, rules) for d in DICE] for row in rules.rows])


def open_rows_of(rules: ScorecardRules, filled: int) -> tuple[str, ...]:
    """Open rows of a card given as a filled mask (bit k = row k filled)."""
    return tuple(r for k, r in enumerate(rules.rows) if not filled >> k & 1)


@cache
def classic_yahtzee_table(rules: ScorecardRules) -> tuple[np.ndarray, np.ndarray]:
    """Five of a kind with the Yahtzee row filled: the joker rules, per card.

    Returns ``(legal, score)``: ``legal[filled, face-1]`` is a row bitmask and
    ``score[filled, face-1, row]`` the row's score (joker values included), for
    every filled mask that has the Yahtzee row filled (other masks stay 0).
    """
    rows = rules.rows
    y_bit = 1 << rows.index("yahtzee")
    legal = np.zeros((1 << len(rows), 6), dtype=np.int64)
    score = np.zeros((1 << len(rows), 6, len(rows)), dtype=np.int64)
    # score_row's joker flag is all a card changes in a row's score: two tables per face.
    by_flag = {
        (f, flag): [score_row(r, (f,) * 5, rules, joker_active=flag) for r in rows]
        for f in range(1, 7)
        for flag in (False, True)
    }
    # Which rows are legal depends on the card; ask the rules module for every card.
    for filled in range(1 << len(rows)):
        if not filled & y_bit:
            continue
        open_rows = open_rows_of(rules, filled)
        for f in range(1, 7):
            dice = (f,) * 5
            ok = set(legal_rows(open_rows, dice, rules)) if open_rows else set()
            legal[filled, f - 1] = sum(1 << k for k, r in enumerate(rows) if r in ok)
            score[filled, f - 1] = by_flag[f, joker_active(dice, open_rows, rules)]
    return legal, score
