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

The keep head (``policy_kwargs: {keep_head: ...}``):

- ``categorical`` (the default): one logit per env action, 32 re-roll sets and the rows.
- ``factored``: the head gives a re-roll logit ``g``, five re-roll bits ``l_i`` (one
  Bernoulli per sorted die: re-roll it or hold it) and one logit per row. A re-roll set
  ``b`` has the pattern log-probability ``sum_i log sigmoid(+-l_i)``; the canonical set of
  a keep collects, by log-sum-exp, every pattern that makes the same keep (the same number
  of re-rolled dice in each run of equal dice), so the policy is an exact distribution over
  the env's actions: logits ``g + log P(keep)`` for the canonical re-roll sets (the others
  at zero probability) and the row logits, masked and renormalised as usual. Log-probs,
  entropy and the deterministic choice (the likeliest legal action) are those of this joint
  distribution; the env's action space is unchanged.
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
KEEP_HEADS = ("categorical", "factored")


def _keep_classes() -> np.ndarray:
    """``(16, 32, 32)`` float: 0 where re-roll pattern ``b`` (last axis) makes the keep of
    canonical set ``a`` (middle axis) for dice whose neighbour equalities are the bits of
    the first index, else -inf. A non-canonical ``a`` holds only itself (it is masked)."""
    out = np.full((16, N_REROLL_ACTIONS, N_REROLL_ACTIONS), -np.inf, dtype=np.float32)
    for config in range(16):
        runs, start = [], 0  # runs of equal dice, as (first, end) positions
        for i in range(1, N_DICE + 1):
            if i == N_DICE or not (config >> (i - 1)) & 1:
                runs.append((start, i))
                start = i
        for b in range(N_REROLL_ACTIONS):
            canon = 0
            for first, end in runs:  # the rightmost of a run are re-rolled
                k = sum((b >> i) & 1 for i in range(first, end))
                canon |= sum(1 << i for i in range(end - k, end))
            out[config, canon, b] = 0.0
        for a in range(N_REROLL_ACTIONS):
            if not np.isfinite(out[config, a]).any():
                out[config, a, a] = 0.0
    return out


# pattern -> (run structure, canonical set): 1 where the pattern makes that set's keep
_KEEP_SUMS = torch.as_tensor(np.isfinite(_keep_classes()), dtype=torch.float32)
_KEEP_SUMS = _KEEP_SUMS.permute(2, 0, 1).reshape(N_REROLL_ACTIONS, -1)
_BIT_WEIGHTS = torch.as_tensor(1 << np.arange(N_DICE - 1))


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


def factored_logits(head: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
    """The env-action logits ``(B, 32 + rows)`` of a factored keep head's output ``head``
    ``(B, 1 + 5 + rows)``: re-roll logit, five re-roll bits, row logits (module doc)."""
    g, bits, rows = head[:, :1], head[:, 1 : 1 + N_DICE], head[:, 1 + N_DICE :]
    on = torch.as_tensor(_BITS, dtype=head.dtype, device=head.device)  # (32, 5)
    pattern = nn.functional.logsigmoid(bits) @ on.T + nn.functional.logsigmoid(-bits) @ (1 - on).T
    dice = obs[:, _DICE]
    config = ((dice[:, :-1] == dice[:, 1:]).long() * _BIT_WEIGHTS.to(obs.device)).sum(dim=1)
    # log-sum-exp over each keep's patterns as one matrix product for all 16 run structures
    # (4x faster than a (B, 32, 32) log-sum-exp), shifted by the likeliest pattern; a keep
    # below 1e-37 of it is floored there instead of at log 0
    top = pattern.max(dim=1, keepdim=True).values
    sums = torch.exp(pattern - top) @ _KEEP_SUMS.to(head.device)  # (B, 16 x 32)
    at = config[:, None] * N_REROLL_ACTIONS + torch.arange(N_REROLL_ACTIONS, device=obs.device)
    keeps = torch.log(torch.gather(sums, 1, at).clamp_min(1e-37)) + top
    return torch.cat([g + keeps, rows], dim=1)


class ScorecardPolicy(MaskableActorCriticPolicy):
    """Masked actor-critic on :class:`ScorecardFeatures` with canonical keeps and a
    categorical or factored keep head (``keep_head``, module doc)."""

    def __init__(self, *args, keep_head: str = "categorical", **kwargs) -> None:
        if keep_head not in KEEP_HEADS:
            raise ValueError(f"keep_head must be one of {list(KEEP_HEADS)}, got {keep_head!r}")
        self.keep_head = keep_head
        kwargs.setdefault("features_extractor_class", ScorecardFeatures)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        if self.keep_head == "factored":  # SB3 sizes the head and the optimiser in _build
            n_rows = self.action_space.n - N_REROLL_ACTIONS
            size = 1 + N_DICE + n_rows
            self.action_dist.proba_distribution_net = lambda latent_dim: nn.Linear(latent_dim, size)
        super()._build(lr_schedule)
        self.action_dist.__dict__.pop("proba_distribution_net", None)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "keep_head": self.keep_head}

    def action_logits(self, obs: torch.Tensor, latent_pi: torch.Tensor) -> torch.Tensor:
        """The logits over the env's actions (before any mask) from the actor's latent."""
        head = self.action_net(latent_pi)
        return factored_logits(head, obs) if self.keep_head == "factored" else head

    def _masks(self, obs: torch.Tensor, action_masks) -> np.ndarray | None:
        if action_masks is None:
            if self.keep_head == "categorical":
                return None
            # factored: the non-canonical sets are outside its distribution, mask or none
            action_masks = np.ones((obs.shape[0], self.action_space.n), dtype=bool)
        masks = torch.as_tensor(action_masks, device=obs.device).reshape(obs.shape[0], -1).bool()
        masks = masks.clone()
        canonical = canonical_reroll_mask(obs)
        masks[:, :N_REROLL_ACTIONS] &= canonical
        return masks.cpu().numpy()

    def _distribution(self, obs, latent_pi, action_masks):
        distribution = self.action_dist.proba_distribution(
            action_logits=self.action_logits(obs, latent_pi)
        )
        masks = self._masks(obs, action_masks)
        if masks is not None:
            distribution.apply_masking(masks)
        return distribution

    def _latents(self, obs):
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (
            self.mlp_extractor.forward_actor(pi_features),
            self.mlp_extractor.forward_critic(vf_features),
        )

    def forward(self, obs, deterministic=False, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._distribution(obs, latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        actions = actions.reshape((-1, *self.action_space.shape))
        return actions, self.value_net(latent_vf), log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._distribution(obs, latent_pi, action_masks)
        values = self.value_net(latent_vf)
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor
        )
        latent_pi = self.mlp_extractor.forward_actor(features)
        return self._distribution(obs, latent_pi, action_masks)


POLICIES = {"MlpPolicy": "MlpPolicy", "ScorecardPolicy": ScorecardPolicy}

__all__ = [
    "KEEP_HEADS",
    "POLICIES",
    "ScorecardFeatures",
    "ScorecardPolicy",
    "canonical_reroll_mask",
    "factored_logits",
]
