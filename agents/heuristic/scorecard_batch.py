"""The scorecard heuristic deciding a whole batch at once: ``YahtzeeHeuristic.act_batch``.

The choices are exactly those of :meth:`YahtzeeHeuristic.act` row by row, bit for bit
(``tests/agents/test_scorecard_batch.py`` holds the two equal on random states, and the
yardstick figures of committed ``final.json`` files are reproduced exactly):

- fill values are the same float64 operations in the same order, done elementwise over
  (card state, dice) pairs instead of over one card's 252 multisets;
- the keep values of a card state are the same ``transition @ stop`` products, one
  matrix-vector product per state as in :meth:`YahtzeeHeuristic._turn` (a batched
  matrix product would sum in another order and could break a tie differently);
- ties are broken as ``act`` breaks them: the lowest row action among the best fills,
  and among the best keeps the longest, then the first in ``_sub_keeps`` order.

Each card state is planned once while any game of the batch is in it: a batch of
10,000 games in one turn is 10,000 states at most, planned in chunks, where the scalar
agent's memo of 4,096 states would be cleared and refilled.
"""

from __future__ import annotations

import numpy as np

from envs.obs.scorecard import layout
from envs.rules.dice import KEEPS, keep_to_reroll
from envs.rules.scorecard import (
    N_REROLL_ACTIONS,
    STAGE1_BONUS,
    UPPER_BONUS,
    UPPER_BONUS_AT,
    fill_gains,
    legal_row_mask,
)

_KEEP_LEN = np.array([len(k) for k in KEEPS], dtype=np.int64)
_RADIX = 6 ** np.arange(4, -1, -1)  # sorted dice (faces 1..6) -> a code below 6**5
_CHUNK = 256  # card states planned together: 256 x 252 pairs x rows float64 per array


class BatchedHeuristic:
    """The batched decisions of one :class:`~agents.heuristic.scorecard.YahtzeeHeuristic`
    (its tables, its potential and its costs; module docstring)."""

    def __init__(self, agent) -> None:
        from agents.heuristic.scorecard import DICE

        self.agent = agent
        self.rules = agent.rules
        self.russian = agent.russian
        self.layout = layout(self.rules, 1)
        self.n_rows = agent.n_rows
        lo, hi = agent._lo, agent._hi
        self.lo, self.hi = lo, hi
        # P[mask, s - lo]: the agent's potential table as one array (the same numbers)
        self.potential = np.stack([agent._potential[m] for m in range(64)])
        self.yahtzee = np.zeros(len(DICE), dtype=bool)
        self.yahtzee[[i for i, d in enumerate(DICE) if len(set(d)) == 1]] = True
        self.by_code = np.full(6**5, -1, dtype=np.int64)  # code of sorted dice -> index in DICE
        self.by_code[(np.array(DICE) - 1) @ _RADIX] = np.arange(len(DICE))
        subs = agent.sub_keeps
        self.sub_valid = subs >= 0
        self.sub_len = np.where(self.sub_valid, _KEEP_LEN[subs], -1)
        self.sub_action = np.zeros(subs.shape, dtype=np.int64)
        for d, dice in enumerate(DICE):
            for j in np.flatnonzero(self.sub_valid[d]):
                self.sub_action[d, j] = keep_to_reroll(dice, KEEPS[subs[d, j]])
        self._codes = np.zeros(0, dtype=np.int64)  # the card states planned, sorted
        self._keeps = np.zeros((0, 2, len(KEEPS)))  # their keep values before roll 2 and 3

    def _pot(self, mask: np.ndarray, s: np.ndarray) -> np.ndarray:
        return self.potential[mask, np.clip(s, self.lo, self.hi) - self.lo]

    # -- fill values of (card state, dice) pairs ----------------------------------------------
    def fill_values(self, open_: np.ndarray, s: np.ndarray, ys: np.ndarray, d: np.ndarray, first):
        """``V[..., r]`` of :meth:`YahtzeeHeuristic._fill_values` for every (card, dice) pair
        of the broadcast shape ``...``: the card (``open_[..., :]`` the open rows, upper sum
        ``s``, ``ys`` the Yahtzee row holds 50), the multiset ``d`` and ``first`` (right after
        the first roll: the russian doubling). Pairs (P,) when deciding; (K, 1) cards by
        (1, 252) multisets when planning a turn."""
        a = self.agent
        scores = a.later[d]
        if self.russian:
            scores = np.where(np.asarray(first)[..., None], a.first[d], scores)
        upper_mask = (open_[..., :6] * (1 << np.arange(6))).sum(axis=-1)
        here = self._pot(upper_mask, s)
        open_ = np.broadcast_to(open_, np.broadcast_shapes(open_.shape, scores.shape))
        if self.russian:
            stage1 = upper_mask > 0
            legal = open_ & ~stage1[..., None]
            if self.rules.scratch == "only_if_nothing":
                good = legal & a.sat[d]
                legal = np.where(good.any(axis=-1, keepdims=True), good, legal)
        else:
            legal = open_
        value = np.where(legal, scores - a.cost, -np.inf)
        for k in range(6):  # stage-1 / upper rows: the points, the bonus, the potential moved
            pts = scores[..., k]
            after = self._pot(upper_mask & ~(1 << k), s + pts)
            if self.russian:
                bonus = np.where(upper_mask == 1 << k, STAGE1_BONUS * (s + pts >= 0), 0)
                v = pts + bonus + after - here
            else:
                crossing = (s < UPPER_BONUS_AT) & (s + pts >= UPPER_BONUS_AT)
                v = pts + UPPER_BONUS * crossing + after - here
            value[..., k] = np.where(open_[..., k], v, -np.inf)
        if self.russian:
            return value
        y = np.nonzero(np.broadcast_to(self.yahtzee[d], value.shape[:-1]))
        if len(y[0]):  # joker placement and bonuses as the rules say (Scorecard.fill_options)
            at = lambda x: np.broadcast_to(x, value.shape[:-1])[y]  # noqa: E731
            oy, sy, dy, my = open_[y], at(s), at(d), at(upper_mask)
            ok = legal_row_mask(self.rules, oy, dy)
            score, bonus, ybonus = fill_gains(self.rules, oy, sy, at(ys), dy, False)
            gain = score + bonus + ybonus
            extra = np.broadcast_to(-a.cost, gain.shape).copy()
            for k in range(6):
                extra[:, k] = self._pot(my & ~(1 << k), sy + a.later[dy, k]) - at(here)
            value[y] = np.where(ok, gain + extra, -np.inf)
        return value

    # -- keep values of card states -------------------------------------------------------------
    def _plan(self, open_: np.ndarray, s: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """``(K, 2, 462)``: ``_turn``'s keep values before the second and third roll."""
        a = self.agent
        dice = np.arange(a.later.shape[0])[None, :]
        out = np.empty((len(s), 2, len(KEEPS)))
        for start in range(0, len(s), _CHUNK):
            part = slice(start, start + _CHUNK)
            k = len(s[part])
            fill = self.fill_values(
                open_[part, None, :], s[part, None], ys[part, None], dice, np.zeros((1, 1), bool)
            )
            stop3 = fill.max(axis=-1)
            padded2 = np.full((k, len(KEEPS) + 1), -np.inf)  # a -1 of sub_keeps reads -inf
            for i in range(k):  # one product per state, as _turn (the same sums)
                padded2[i, :-1] = a.transition @ stop3[i]
            stop2 = np.maximum(stop3, padded2[:, a.sub_keeps].max(axis=-1))
            out[part, 1] = padded2[:, :-1]
            for i in range(k):
                out[start + i, 0] = a.transition @ stop2[i]
        return out

    def _keep_values(self, codes, open_, s, ys) -> np.ndarray:
        """Keep values of each row's card state: those planned before, the rest now; only the
        states of this batch are kept (a card state, once left, does not come back)."""
        unique, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        at = np.searchsorted(self._codes, unique)
        known = at < len(self._codes)
        known[known] = self._codes[at[known]] == unique[known]
        keeps = np.empty((len(unique), 2, len(KEEPS)))
        keeps[known] = self._keeps[at[known]]
        new = first[~known]
        if len(new):
            keeps[~known] = self._plan(open_[new], s[new], ys[new])
        self._codes, self._keeps = unique, keeps
        return keeps[inverse.ravel()]

    # -- acting ---------------------------------------------------------------------------------
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        f = self.layout.decode(np.asarray(observations, dtype=np.float32))
        masks = np.asarray(action_masks, dtype=bool)
        if masks.shape != (len(f["rolls_used"]), N_REROLL_ACTIONS + self.n_rows):
            raise ValueError(
                f"action_masks must have shape ({len(f['rolls_used'])}, "
                f"{N_REROLL_ACTIONS + self.n_rows}), got {masks.shape}"
            )
        d = self.by_code[(np.clip(f["dice"], 1, 6) - 1) @ _RADIX]
        rolls = f["rolls_used"].astype(np.int64)
        open_ = f["open_rows"]
        s = f["upper_sum"].astype(np.int64)
        ys = f["yahtzee_scored"].astype(bool)
        fills = self.fill_values(open_, s, ys, d, rolls == 1)
        legal_rows = masks[:, N_REROLL_ACTIONS:]
        if not legal_rows.any(axis=1).all():
            bad = int(np.flatnonzero(~legal_rows.any(axis=1))[0])
            raise ValueError(f"row {bad} of the batch allows no row to fill (is the game over?)")
        best_fill = np.where(legal_rows, fills, -np.inf).max(axis=1, initial=-np.inf)
        best_row = np.argmax(legal_rows & (fills == best_fill[:, None]), axis=1)
        actions = N_REROLL_ACTIONS + best_row
        may_roll = (rolls < 3) & masks[:, :N_REROLL_ACTIONS].any(axis=1)
        r = np.flatnonzero(may_roll)
        if len(r):
            bits = (open_[r] * (1 << np.arange(self.n_rows))).sum(axis=1)
            codes = bits | (s[r] + 128) << 18 | ys[r].astype(np.int64) << 27
            keeps = self._keep_values(codes, open_[r], s[r], ys[r])
            values = keeps[np.arange(len(r)), rolls[r] - 1]
            dr = d[r]
            subs = self.agent.sub_keeps[dr]
            valid = self.sub_valid[dr]
            kv = np.where(valid, np.take_along_axis(values, np.maximum(subs, 0), axis=1), 0.0)
            top = np.where(valid, kv, -np.inf).max(axis=1)
            tied = valid & (kv == top[:, None])
            length = np.where(tied, self.sub_len[dr], -1)
            best = np.argmax(tied & (length == length.max(axis=1, keepdims=True)), axis=1)
            reroll = self.sub_action[dr, best]
            better = top > fills[r, best_row[r]] + 1e-9
            better &= masks[r, reroll]
            actions[r[better]] = reroll[better]
        return actions.astype(np.int64)
