"""A rule-of-thumb player of prison dice poker (five or six dice).

It considers a few natural re-rolls: stand; re-roll every die outside the
current combination; keep only the biggest group; re-roll everything it may.
Each is scored by an exact one-roll look-ahead over the dice it would throw:
- when nobody rolls after it, the chance to beat the best hand so far (a tie
  counts as a fair share of the play-off);
- otherwise the expected strength of the result (the chance that one random
  roll ends lower), counting only results that beat the best hand so far,
  since a later player may still beat a marginal winner.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions
from envs import games
from envs.obs.dice_poker import decode_observation
from envs.rules.dice import face_counts, multisets, outcome_distribution
from envs.rules.dice_poker import DicePokerRules


class _HandTable:
    """Every multiset of the rules' dice with its hand order index and strength."""

    def __init__(self, rules: DicePokerRules) -> None:
        sets = multisets(rules.n_dice)
        hands = [rules.rank(m) for m in sets]
        keys = sorted({h.key for h in hands})
        self.order = {k: i for i, k in enumerate(keys)}
        self.index = {m: self.order[h.key] for m, h in zip(sets, hands, strict=True)}
        # strength = P(one random roll gives a strictly lower hand)
        _, probs = outcome_distribution(rules.n_dice)
        mass = np.zeros(len(keys))
        for m, p in zip(sets, probs, strict=True):
            mass[self.index[m]] += p
        below = np.concatenate([[0.0], np.cumsum(mass)[:-1]])
        self.strength = {m: below[i] for m, i in self.index.items()}

    def key_index(self, hand_vector: np.ndarray) -> int | None:
        """Order index of a hand given as the observation's (rank, points, tb1, tb2)."""
        rank, points, tb1, tb2 = (int(v) for v in hand_vector)
        if rank < 0:
            return None
        key = (rank, points) if (tb1, tb2) == (0, 0) else (rank, tb1, tb2)
        return self.order[key]


class DicePokerHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: str = "dice_poker", **rules) -> None:
        super().__init__()
        self.rules = games.rules_for(game, DicePokerRules, "DicePokerHeuristic", **rules)
        self.table = _HandTable(self.rules)
        self._memo: dict[tuple[int, ...], tuple] = {}

    def _outcomes(self, kept: tuple[int, ...]):
        """Order index, strength and probability of each final hand that keeps ``kept``."""
        if kept in self._memo:
            return self._memo[kept]
        outs, probs = outcome_distribution(self.rules.n_dice - len(kept))
        finals = [tuple(sorted(kept + o)) for o in outs]
        idx = np.array([self.table.index[f] for f in finals])
        strength = np.array([self.table.strength[f] for f in finals])
        self._memo[kept] = idx, strength, probs
        return self._memo[kept]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = set(legal_actions(action_mask).tolist())
        f = decode_observation(observation, self.rules.n_dice)
        dice = tuple(int(d) for d in f["dice"])
        frozen = [bool(x) for x in f["frozen"]]
        target = self.table.key_index(f["best"])
        share = 1.0 / (f["best_count"] + 1) if target is not None else 0.0
        chase = f["players_after"] == 0

        def value(action: int) -> float:
            kept = tuple(d for i, d in enumerate(dice) if not action >> i & 1)
            idx, strength, probs = self._outcomes(kept)
            if target is None:
                return float(probs @ strength)
            win = (idx > target) + share * (idx == target)
            return float(probs @ (win if chase else win * strength))

        free = [i for i in range(len(dice)) if not frozen[i]]
        counts = face_counts(dice)
        best_group = max(range(6), key=lambda f: (counts[f], f)) + 1
        core = self._core(dice, counts)
        candidates = {
            0,
            sum(1 << i for i in free if dice[i] not in core),
            sum(1 << i for i in free if dice[i] != best_group or counts[best_group - 1] < 2),
            sum(1 << i for i in free),
        }
        # ties keep the simpler move: stand first, then fewer dice re-rolled
        choices = sorted((a for a in candidates if a in legal), key=lambda a: (a.bit_count(), a))
        return max(choices, key=value)

    @staticmethod
    def _core(dice: tuple[int, ...], counts: tuple[int, ...]) -> set[int]:
        """Faces that form the combination (every face of a line, none of a bare hand)."""
        if all(counts):
            return set(dice)
        return {f for f in range(1, 7) if counts[f - 1] >= 2}
