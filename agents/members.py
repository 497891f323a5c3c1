"""Many agents at one batch of tables: each row played by the member seated there, every
PPO member of the batch in one torch forward.

A league seats a different member at each table (``train/league.py``). Asking each
member's ``act_batch`` on its own rows costs one forward pass per PPO snapshot per seat
per step, a few rows each: the calls, not the arithmetic, are the time. :class:`Members`
stacks the actor networks of the PPO members that share an architecture (their weights
as ``(K, out, in)`` tensors) and runs one batched matrix product per layer over all their
rows, padded per member; every other member plays its rows through its own ``act_batch``.

The choices are those of each member's ``act_batch`` on its rows: the same observation
normalisation (each snapshot's own VecNormalize statistics), the same mask, the most likely
action or, for a sampling member (``deterministic=False``), the same draws from its own
Generator in row order. The logits come from ``torch.bmm`` instead of each member's
``nn.Linear``, equal to float32 rounding (tested: the same actions over random sessions).

A stack copies the weights when it is built and is rebuilt when a member's parameters
change in place (an optimiser step bumps their version counters), so a live learner
seated as a member is never played with stale weights.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent


def stackable(agent: Agent) -> bool:
    """Whether ``agent`` is a PPO agent whose actor :class:`Members` can stack: a flatten
    feature extractor, an MLP of ``nn.Linear`` and parameter-free activations, a linear
    action head and no mask of its own (``_masks``)."""
    from agents.ppo import PPOAgent

    if not isinstance(agent, PPOAgent):
        return False
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = agent.model.policy
    if type(policy.pi_features_extractor) is not FlattenExtractor or hasattr(policy, "_masks"):
        return False
    if not isinstance(policy.action_net, torch.nn.Linear):
        return False
    if len(agent.model.observation_space.shape) != 1:
        return False
    for layer in policy.mlp_extractor.policy_net:
        if not isinstance(layer, torch.nn.Linear) and any(True for _ in layer.parameters()):
            return False
    normalizer = agent.normalizer
    return normalizer is None or hasattr(getattr(normalizer, "obs_rms", None), "mean")


def _signature(agent: Agent) -> tuple:
    """What must be equal for two actors to share a stack: layer kinds and shapes."""
    policy = agent.model.policy
    layers = [*policy.mlp_extractor.policy_net, policy.action_net]
    return tuple(
        (type(layer).__name__, tuple(layer.weight.shape) if hasattr(layer, "weight") else ())
        for layer in layers
    )


def _linears(agent: Agent) -> list:
    """The actor's ``nn.Linear`` layers, the action head last."""
    import torch

    policy = agent.model.policy
    layers = [*policy.mlp_extractor.policy_net, policy.action_net]
    return [layer for layer in layers if isinstance(layer, torch.nn.Linear)]


def _state(agent: Agent, linears: list) -> list:
    """What a stack's copy depends on: the policy and statistics objects and each weight's
    tensor and version (an optimiser step or ``load_state_dict`` bumps it in place)."""
    rms = getattr(agent.normalizer, "obs_rms", None)
    objects = [agent.model.policy, agent.normalizer, getattr(rms, "mean", None)]
    objects.append(getattr(rms, "var", None))
    tensors = [t for layer in linears for t in (layer.weight, layer.bias)]
    return [objects + tensors, [t._version for t in tensors]]


def _same(agent: Agent, linears: list, state: list) -> bool:
    """Whether ``agent``'s actor is still ``state`` (:func:`_state`): the same objects,
    the same versions. Asked for every member at every step, so it reads the parameters
    from each layer's ``_parameters`` and stops at the first difference."""
    objects, versions = state
    normalizer = agent.normalizer
    rms = getattr(normalizer, "obs_rms", None)
    if (
        agent.model.policy is not objects[0]
        or normalizer is not objects[1]
        or getattr(rms, "mean", None) is not objects[2]
        or getattr(rms, "var", None) is not objects[3]
    ):
        return False
    i = 4
    for layer in linears:
        params = layer._parameters
        for name in ("weight", "bias"):
            t = params[name]
            if t is not objects[i] or t._version != versions[i - 4]:
                return False
            i += 1
    return True


class _Stack:
    """The actors of K PPO agents with one architecture, as stacked tensors."""

    def __init__(self, agents: Sequence[Agent]) -> None:
        import torch

        self.agents = list(agents)
        self.linears = [_linears(a) for a in self.agents]
        self.states = [_state(a, ls) for a, ls in zip(self.agents, self.linears, strict=True)]
        first = self.agents[0].model.policy
        self.layers: list[tuple[torch.Tensor, torch.Tensor] | torch.nn.Module] = []
        nets = [[*a.model.policy.mlp_extractor.policy_net] for a in self.agents]
        for i, layer in enumerate(first.mlp_extractor.policy_net):
            if isinstance(layer, torch.nn.Linear):
                self.layers.append(self._linear([net[i] for net in nets]))
            else:
                self.layers.append(layer)  # no parameters: the first member's serves all
        self.layers.append(self._linear([a.model.policy.action_net for a in self.agents]))
        d = self.agents[0].model.observation_space.shape[0]
        mean = np.zeros((len(self.agents), d))
        scale = np.ones((len(self.agents), d))
        clip = np.full((len(self.agents), 1), np.inf)
        for k, a in enumerate(self.agents):
            if a.normalizer is not None and a.normalizer.norm_obs:
                rms = a.normalizer.obs_rms
                mean[k] = rms.mean
                scale[k] = np.sqrt(rms.var + a.normalizer.epsilon)
                clip[k] = a.normalizer.clip_obs
        self.mean, self.scale, self.clip = mean, scale, clip

    def fresh(self) -> bool:
        """Whether every member's weights and statistics are still those copied."""
        kept = zip(self.agents, self.linears, self.states, strict=True)
        return all(_same(a, ls, st) for a, ls, st in kept)

    @staticmethod
    def _linear(layers):
        import torch

        with torch.no_grad():
            w = torch.stack([layer.weight.detach() for layer in layers]).transpose(1, 2)
            b = torch.stack([layer.bias.detach() for layer in layers])[:, None, :]
        return w.contiguous(), b.contiguous()

    def logits(self, obs: np.ndarray, which: list[int], groups: list[np.ndarray]) -> list:
        """The logits (float32, unmasked) of member ``which[i]`` of the stack on
        ``obs[groups[i]]``, for each i: one batched product per layer, padded per member."""
        import torch

        counts = [len(g) for g in groups]
        rows = np.concatenate(groups)
        slot = np.repeat(np.arange(len(which)), counts)  # row -> its member's place
        pos = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        k = np.asarray(which)[slot]
        # as VecNormalize.normalize_obs: in float64, then float32 (no statistics: 0, 1, inf)
        c = self.clip[k]
        x = np.zeros((len(which), max(counts), obs.shape[1]), dtype=np.float32)
        x[slot, pos] = np.clip((obs[rows] - self.mean[k]) / self.scale[k], -c, c)
        every = len(which) == len(self.agents)
        pick = torch.as_tensor(which)
        with torch.no_grad():
            h = torch.from_numpy(x)
            for layer in self.layers:
                if isinstance(layer, tuple):
                    w, b = layer if every else (layer[0][pick], layer[1][pick])
                    h = torch.baddbmm(b, h, w)
                else:
                    h = layer(h)
            out = h.numpy()
        return [out[i, : len(g)] for i, g in enumerate(groups)]


class Members:
    """Plays a batch of rows, each by the member ``agents[member[i]]`` seated there."""

    def __init__(self, stack: bool = True) -> None:
        self.stack = stack  # False: every member by its own act_batch (the reference)
        self._stacks: dict[tuple, _Stack] = {}
        self._kinds: dict[int, tuple] = {}  # id -> (agent, policy, its stack signature | None)

    def _kind(self, agent: Agent) -> tuple | None:
        """The signature of a stackable agent's actor (None: it plays by itself), kept."""
        policy = getattr(getattr(agent, "model", None), "policy", None)
        known = self._kinds.get(id(agent))
        if known is None or known[0] is not agent or known[1] is not policy:
            if len(self._kinds) > 256:
                self._kinds.clear()
            sig = _signature(agent) if stackable(agent) else None
            known = self._kinds[id(agent)] = (agent, policy, sig)
        return known[2]

    def _stack(self, agents: Sequence[Agent]) -> _Stack:
        key = tuple(id(a) for a in agents)
        stack = self._stacks.get(key)
        if (
            stack is None
            or not stack.fresh()
            or any(a is not b for a, b in zip(stack.agents, agents, strict=True))
        ):
            if len(self._stacks) > 64:  # populations come and go: keep the cache small
                self._stacks.clear()
            stack = self._stacks[key] = _Stack(agents)
        return stack

    def act(
        self,
        agents: Sequence[Agent],
        member: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> np.ndarray:
        """One action per row: row i played by ``agents[member[i]]``, as that agent's
        ``act_batch`` on its rows (in their order) would play it."""
        member = np.asarray(member, dtype=np.int64)
        obs = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        out = np.empty(len(member), dtype=np.int64)
        by_arch: dict[tuple, list[int]] = {}  # every stackable agent of the list, by actor
        for k, agent in enumerate(agents if self.stack else ()):
            sig = self._kind(agent)
            if sig is not None:
                by_arch.setdefault(sig, []).append(k)
        stacked = np.zeros(len(agents), dtype=bool)
        for ks in by_arch.values():
            stacked[ks] = len(ks) > 1
        present = np.unique(member).tolist()
        for k in present:
            if not stacked[k]:
                rows = member == k
                out[rows] = agents[k].act_batch(obs[rows], masks[rows])
        for ks in by_arch.values():
            here = [i for i, k in enumerate(ks) if k in present]
            if len(ks) == 1 or not here:
                continue
            group = [agents[k] for k in ks]
            expected = group[0].model.observation_space.shape
            if obs.ndim != 2 or obs.shape[1:] != expected:
                raise ValueError(
                    f"{group[0].name} was trained on observations of shape {expected}, "
                    f"got a batch of shape {obs.shape}: a different game or variant?"
                )
            rows = [np.flatnonzero(member == ks[i]) for i in here]
            logits = self._stack(group).logits(obs, here, rows)
            for i, r, z in zip(here, rows, logits, strict=True):
                masked = np.where(masks[r], z.astype(np.float64), -np.inf)
                out[r] = group[i].choose(masked)
        return out


__all__ = ["Members", "stackable"]
