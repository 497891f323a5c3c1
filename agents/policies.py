"""Policy networks for the learners: what a scorecard learner sees, and which keeps it weighs.

``ScorecardPolicy`` (``ppo: {policy: ScorecardPolicy}`` in a config) is sb3-contrib's
masked actor-critic with two changes, both computed from the env's own observation, so
a trained model plays in the scalar env, the batched engine, the arena and ``play.py``
alike:

- **Features** (:class:`ScorecardFeatures`): the raw observation (counts, sums and
  totals of very different scales) becomes what a learner can use: face counts and
  rolls one-hot, open rows, each row's gain now / 50, the upper sum and its "par"
  (classic: upper sum - 3 x the faces of the filled upper rows; russian: the stage-1
  sum itself, which already counts against three of each face), the points still needed
  per open upper row, the bonus, the Yahtzee-row state and the share of turns played.
- **Canonical keeps**: re-rolling some of several equal dice is the same move whichever
  of them are re-rolled, so only one re-roll set per keep stays open to the policy:
  among equal faces the leftmost (of the sorted dice) are kept first. This removes up to
  31 duplicate actions per roll without removing a keep.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from envs.rules.scorecard import CLASSIC_ROWS, N_DICE, N_REROLL_ACTIONS, RUSSIAN_ROWS

# Observation length of envs.scorecard (2 * rows + 18) -> the rule set
_RULES_BY_SIZE = {2 * len(CLASSIC_ROWS) + 18: "classic", 2 * len(RUSSIAN_ROWS) + 18: "russian"}
_DICE = slice(6, 6 + N_DICE)

# _NOT_CANONICAL[a, i]: re-roll set a re-rolls die i but keeps die i + 1 (for equal dice
# that is a keep some other set makes with the lower die kept instead)
_BITS = (np.arange(N_REROLL_ACTIONS)[:, None] >> np.arange(N_DICE)) & 1
_NOT_CANONICAL = torch.as_tensor((_BITS[:, :-1] == 1) & (_BITS[:, 1:] == 0))


def canonical_reroll_mask(obs: torch.Tensor) -> torch.Tensor:
    """``(B, 32)`` bool: the re-roll sets in canonical form for each observation's dice."""
    dice = obs[:, _DICE]
    equal = dice[:, :-1] == dice[:, 1:]  # (B, 4)
    bad = (equal[:, None, :] & _NOT_CANONICAL[None].to(obs.device)).any(dim=-1)
    return ~bad


class ScorecardFeatures(BaseFeaturesExtractor):
    """The learner's view of a ``PokerNaKostyah-v0`` / ``YahtzeeClassic-v0`` observation."""

    def __init__(self, observation_space: spaces.Box) -> None:
        size = observation_space.shape[0]
        if size not in _RULES_BY_SIZE:
            raise ValueError(
                f"ScorecardFeatures reads scorecard observations of size "
                f"{sorted(_RULES_BY_SIZE)}, got {size}"
            )
        self.rules = _RULES_BY_SIZE[size]
        self.n_rows = n = (size - 18) // 2
        super().__init__(observation_space, features_dim=36 + 3 + 2 * n + 8)
        faces = torch.zeros(n)
        faces[:6] = torch.arange(1, 7, dtype=torch.float32)
        self.register_buffer("faces", faces, persistent=False)
        self.yahtzee_row = CLASSIC_ROWS.index("yahtzee") if self.rules == "classic" else None

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        n = self.n_rows
        counts = obs[:, 0:6].long().clamp(0, 5)
        rolls = obs[:, 11].long().clamp(1, 3) - 1
        open_ = obs[:, 12 : 12 + n]
        upper_sum = obs[:, 13 + n]
        bonus = (obs[:, 14 + n] > 0).float()
        fill = obs[:, 18 + n : 18 + 2 * n] / 50.0
        upper_open = open_[:, :6]
        n_upper_open = upper_open.sum(dim=1)
        if self.rules == "classic":
            filled_faces = ((1 - upper_open) * self.faces[:6]).sum(dim=1)
            par = (upper_sum - 3 * filled_faces) / 30.0
            need = (63 - upper_sum).clamp(min=0) / n_upper_open.clamp(min=1) / 30.0
            upper = upper_sum.clamp(max=63) / 63.0
            y = self.yahtzee_row
            y50 = obs[:, 15 + n]
            y0 = (1 - open_[:, y]) * (1 - y50)
        else:
            par = upper_sum / 30.0
            need = (-upper_sum).clamp(min=0) / n_upper_open.clamp(min=1) / 10.0
            upper = upper_sum / 63.0
            y50 = torch.zeros_like(upper_sum)
            y0 = torch.zeros_like(upper_sum)
        played = 1 - open_.mean(dim=1)
        scalars = torch.stack(
            [upper, par, need * (n_upper_open > 0), bonus, y50, y0, played, obs[:, 16 + n]], dim=1
        )
        return torch.cat(
            [
                nn.functional.one_hot(counts, 6).flatten(1).float(),
                nn.functional.one_hot(rolls, 3).float(),
                open_,
                fill,
                scalars,
            ],
            dim=1,
        )


class ScorecardPolicy(MaskableActorCriticPolicy):
    """Masked actor-critic on :class:`ScorecardFeatures` with canonical keeps (module doc)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("features_extractor_class", ScorecardFeatures)
        super().__init__(*args, **kwargs)

    def _masks(self, obs: torch.Tensor, action_masks) -> np.ndarray | None:
        if action_masks is None:
            return None
        masks = torch.as_tensor(action_masks, device=obs.device).reshape(obs.shape[0], -1).bool()
        masks = masks.clone()
        canonical = canonical_reroll_mask(obs)
        masks[:, :N_REROLL_ACTIONS] &= canonical
        return masks.cpu().numpy()

    def forward(self, obs, deterministic=False, action_masks=None):
        return super().forward(obs, deterministic, self._masks(obs, action_masks))

    def evaluate_actions(self, obs, actions, action_masks=None):
        return super().evaluate_actions(obs, actions, self._masks(obs, action_masks))

    def get_distribution(self, obs, action_masks=None):
        return super().get_distribution(obs, self._masks(obs, action_masks))


POLICIES = {"MlpPolicy": "MlpPolicy", "ScorecardPolicy": ScorecardPolicy}

__all__ = ["POLICIES", "ScorecardFeatures", "ScorecardPolicy", "canonical_reroll_mask"]
