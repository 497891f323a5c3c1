"""A strong-human player of the scorecard games ("Покер на костях" and classic Yahtzee).

How it plays one turn:

- **Fill value.** Writing dice ``d`` into row ``r`` is worth the points it gains now
  (doubling, Poker's +50, bonuses and jokers included) minus the row's *opportunity
  cost*: what the row would be expected to score later if left open
  (:data:`ROW_COST`, the rows' mean final scores in the agent's own games, as
  ``python benchmarks/scorecard_agents.py --calibrate`` measures them). Stage-1 / upper
  rows are valued instead by a potential over the rows still open: the expected sum
  they will add plus the bonus times the chance of reaching its threshold, each open
  row's die count modelled as Binomial(5, :attr:`UPPER_HIT`). Filling an upper row
  moves that potential; a fill that makes the bonus unlikely pays for it.
- **Holds.** Given those fill values, every hold is judged by its exact expected value
  over the rest of the turn (all 462 keeps, both re-rolls), so it aims at whatever row
  is worth most, the first-roll doubling of the russian card included.

Everything comes from the observation (``envs.obs.scorecard.decode_observation``); the work
per card state (about a millisecond) is cached for the turn.
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np

from agents.base import Agent, legal_actions
from envs import games
from envs.obs.scorecard import decode_observation
from envs.rules.dice import (
    FACES,
    KEEP_INDEX,
    KEEPS,
    keep_to_reroll,
    keep_transition,
    multisets,
)
from envs.rules.scorecard import (
    CLASSIC_ROWS,
    N_REROLL_ACTIONS,
    STAGE1_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_AT,
    Scorecard,
    ScorecardRules,
    satisfies,
    score_row,
)

DICE = multisets(5)
DICE_INDEX = {d: i for i, d in enumerate(DICE)}
YAHTZEES = [DICE_INDEX[(f,) * 5] for f in FACES]

# Opportunity cost of each lower / stage-2 row: its mean final score in the agent's own
# games, default rules, made self-consistent by three rounds of 600 games each (set the
# costs to the measured means, play again); these are the means of the last rounds.
# ``python benchmarks/scorecard_agents.py --agents heuristic --calibrate`` prints them.
ROW_COST = {
    "russian": {
        "pair": 18.3,
        "two_pairs": 28.8,
        "set": 20.5,
        "small_straight": 24.5,
        "large_straight": 12.4,
        "even": 21.0,
        "odd": 16.4,
        "full_house": 20.6,
        "four": 12.8,
        "poker": 9.2,
        "chance": 21.9,
    },
    "classic": {
        "three_of_a_kind": 22.1,
        "four_of_a_kind": 10.9,
        "full_house": 20.5,
        "small_straight": 28.8,
        "large_straight": 31.2,
        "yahtzee": 17.8,
        "chance": 22.5,
    },
}


@cache
def _sub_keeps() -> np.ndarray:
    """``S[d]``: the keeps that re-roll at least one die of ``d`` (padded with -1)."""
    out = np.full((len(DICE), 32), -1, dtype=np.int64)
    for i, d in enumerate(DICE):
        subs = {KEEP_INDEX[k] for n in range(5) for k in itertools.combinations(d, n)}
        # in (size, faces) order: ties between equal keep values go to the first one
        subs = sorted(subs, key=lambda i: (len(KEEPS[i]), KEEPS[i]))
        out[i, : len(subs)] = subs
    return out


@cache
def _tables(rules: ScorecardRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per multiset and row: score on a later roll, on the first roll, satisfied."""
    later = np.array([[score_row(r, d, rules) for r in rules.rows] for d in DICE])
    first = np.array([[score_row(r, d, rules, first_roll=True) for r in rules.rows] for d in DICE])
    sat = np.array([[satisfies(r, d, rules) for r in rules.rows] for d in DICE])
    return later, first, sat


keep_to_action = keep_to_reroll  # the name this module has always exported


class YahtzeeHeuristic(Agent):
    """Plays ``game="yahtzee"`` (russian card) or ``"yahtzee_classic"``; rule options as the env."""

    name = "heuristic"
    UPPER_HIT = 0.55  # chance per die of showing a row's face when that row is finally filled

    def __init__(self, game: str = "yahtzee", **rules) -> None:
        super().__init__()
        self.rules = games.scorecard_rules_for(game, "YahtzeeHeuristic", **rules)
        self.rows = self.rules.rows
        self.n_rows = len(self.rows)
        self.russian = self.rules.rules == "russian"
        self.later, self.first, self.sat = _tables(self.rules)
        self.cost = np.array([ROW_COST[self.rules.rules].get(r, 0.0) for r in self.rows])
        self.transition = keep_transition()
        self.sub_keeps = _sub_keeps()
        self._memo: dict = {}
        self._batched = None  # agents.heuristic.scorecard_batch.BatchedHeuristic, when asked
        self._potential = self._upper_potential()

    # -- stage-1 / upper potential ---------------------------------------------
    def _upper_potential(self) -> dict[int, np.ndarray]:
        """``P[open_mask][s - lo]``: expected future upper points + bonus x P(reach it)."""
        q = self.UPPER_HIT
        counts = np.array([math.comb(5, c) * q**c * (1 - q) ** (5 - c) for c in range(6)])
        if self.russian:
            lo, hi, bonus, target = -63, 42, STAGE1_BONUS, 0
        else:
            lo, hi, bonus, target = 0, UPPER_BONUS_AT, UPPER_BONUS, UPPER_BONUS_AT
        self._lo, self._hi = lo, hi
        table = {}
        for mask in range(64):
            dist = {0: 1.0}
            for f in FACES:
                if mask >> (f - 1) & 1:
                    new: dict[int, float] = {}
                    for v, p in dist.items():
                        for c in range(6):
                            pts = (c - 3) * f if self.russian else c * f
                            new[v + pts] = new.get(v + pts, 0.0) + p * counts[c]
                    dist = new
            values = np.array(list(dist))
            probs = np.array(list(dist.values()))
            mean = float(values @ probs)
            row = np.zeros(hi - lo + 1)
            for j, s in enumerate(range(lo, hi + 1)):
                if mask == 0:
                    row[j] = 0.0  # the last fill's gain already holds the bonus
                elif not self.russian and s >= target:
                    row[j] = mean  # the bonus is paid already
                else:
                    row[j] = mean + bonus * float(probs[values + s >= target].sum())
            table[mask] = row
        return table

    def _pot(self, mask: int, s: np.ndarray | int) -> np.ndarray:
        return self._potential[mask][np.clip(s, self._lo, self._hi) - self._lo]

    # -- fill values for every multiset ----------------------------------------
    def _card(self, f: dict) -> Scorecard:
        """A card with the observation's open rows, upper sum and Yahtzee-row state."""
        open_rows = f["open_rows"]
        scores: list[int | None] = [None if o else 0 for o in open_rows]
        filled_upper = [k for k in range(6) if not open_rows[k]]
        if filled_upper:
            scores[filled_upper[0]] = int(f["upper_sum"])
        if not self.russian and not open_rows[CLASSIC_ROWS.index("yahtzee")]:
            scores[CLASSIC_ROWS.index("yahtzee")] = 50 if f["yahtzee_scored"] else 0
        return Scorecard(self.rules, tuple(scores), int(f["bonus"]))

    def _fill_values(self, f: dict, first_roll: bool) -> np.ndarray:
        """``V[d, r]``: the value of filling row r with multiset d (-inf where illegal)."""
        open_rows = np.asarray(f["open_rows"], dtype=bool)
        s = int(f["upper_sum"])
        upper_mask = sum(1 << k for k in range(6) if open_rows[k])
        scores = self.first if first_roll and self.russian else self.later
        value = np.full((len(DICE), self.n_rows), -np.inf)
        if self.russian and upper_mask:
            for k in range(6):
                if open_rows[k]:
                    pts = scores[:, k]
                    after = self._pot(upper_mask & ~(1 << k), s + pts)
                    bonus = STAGE1_BONUS * (s + pts >= 0) if upper_mask == 1 << k else 0
                    value[:, k] = pts + bonus + after - self._pot(upper_mask, s)
            return value
        legal = np.broadcast_to(open_rows, value.shape).copy()
        if self.russian and self.rules.scratch == "only_if_nothing":
            good = legal & self.sat
            legal = np.where(good.any(axis=1, keepdims=True), good, legal)
        value[legal] = (scores - self.cost)[legal]
        if not self.russian:
            for k in range(6):
                if open_rows[k]:
                    pts = scores[:, k]
                    crossing = (s < UPPER_BONUS_AT) & (s + pts >= UPPER_BONUS_AT)
                    gain = pts + UPPER_BONUS * crossing
                    after = self._pot(upper_mask & ~(1 << k), s + pts)
                    value[:, k] = gain + after - self._pot(upper_mask, s)
            # Yahtzees: joker placement and bonuses exactly as the card rules say
            card = self._card(f)
            for i in YAHTZEES:
                options = card.fill_options(DICE[i])
                extra = {r: 0.0 for r in options}
                for r in options:
                    k = self.rows.index(r)
                    if k < 6:
                        pts = self.later[i, k]
                        extra[r] = self._pot(upper_mask & ~(1 << k), s + pts) - self._pot(
                            upper_mask, s
                        )
                    else:
                        extra[r] = -self.cost[k]
                value[i] = -np.inf
                for r, gain in options.items():
                    value[i, self.rows.index(r)] = gain + extra[r]
        return value

    def _turn(self, f: dict) -> dict:
        """Fill values and keep values for the whole turn of this card state."""
        key = (
            tuple(bool(x) for x in f["open_rows"]),
            int(f["upper_sum"]),
            bool(f["yahtzee_scored"]),
            int(f["bonus"]),
        )
        if key in self._memo:
            return self._memo[key]
        if len(self._memo) > 4096:
            self._memo.clear()
        fill_later = self._fill_values(f, first_roll=False)
        fill_first = self._fill_values(f, first_roll=True) if self.russian else fill_later
        stop3 = fill_later.max(axis=1)
        keep2 = self.transition @ stop3  # expected value of each keep before the last roll
        padded2 = np.append(keep2, -np.inf)
        stop2 = np.maximum(stop3, padded2[self.sub_keeps].max(axis=1))
        keep1 = self.transition @ stop2
        out = {"fill": {1: fill_first, 2: fill_later, 3: fill_later}, "keep": {1: keep1, 2: keep2}}
        self._memo[key] = out
        return out

    # -- acting ----------------------------------------------------------------
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act` row by row, decided all at once (:mod:`agents.heuristic.scorecard_batch`:
        the same choices, bit for bit)."""
        if self._batched is None:
            from agents.heuristic.scorecard_batch import BatchedHeuristic

            self._batched = BatchedHeuristic(self)
        return self._batched.act_batch(observations, action_masks)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = set(legal_actions(action_mask).tolist())
        f = decode_observation(observation, self.rules)
        dice = tuple(int(x) for x in f["dice"])
        rolls = int(f["rolls_used"])
        turn = self._turn(f)
        d = DICE_INDEX[dice]
        fills = turn["fill"][rolls][d]
        row_actions = [a for a in legal if a >= N_REROLL_ACTIONS]
        best_row = max(row_actions, key=lambda a: (fills[a - N_REROLL_ACTIONS], -a))
        if rolls >= 3 or not any(a < N_REROLL_ACTIONS for a in legal):
            return best_row
        keep_values = turn["keep"][rolls]
        subs = [k for k in self.sub_keeps[d] if k >= 0]
        best_keep = max(subs, key=lambda k: (keep_values[k], len(KEEPS[k])))
        if keep_values[best_keep] > fills[best_row - N_REROLL_ACTIONS] + 1e-9:
            action = keep_to_action(dice, KEEPS[best_keep])
            if action in legal:
                return action
        return best_row
