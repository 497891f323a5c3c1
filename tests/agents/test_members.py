"""agents.members: each row played by its member, the PPO members stacked in one forward,
with the choices of each member's own act_batch (deterministic and sampling)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.members import Members, stackable
from agents.ppo import PPOAgent
from agents.tables import BatchedVecEnv, make_engine


def _ppo(seed: int, net_arch, deterministic: bool = True, activation: str = "tanh"):
    """A MaskablePPO agent of card poker with its own random weights and observation
    statistics (as a snapshot saved with VecNormalize)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecNormalize

    vec = VecNormalize(BatchedVecEnv("CardPoker-v0", 4, opponents="random", n_players=3))
    fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        seed=seed,
        device="cpu",
        policy_kwargs={"net_arch": net_arch, "activation_fn": fn},
    )
    with torch.no_grad():  # logits far from uniform, so the choices tell members apart
        for p in model.policy.action_net.parameters():
            p.mul_(30.0)
    engine, _, _ = make_engine("CardPoker-v0", 64, seed=seed, opponents="random", n_players=3)
    engine.reset()
    vec.obs_rms.update(engine.observe())
    vec.training = False
    return PPOAgent.from_model(model, vec, deterministic=deterministic)


@pytest.fixture(scope="module")
def snapshots():
    """Three architectures (seed, net_arch, activation); each built twice by :func:`_pair`."""
    return (
        [(s, [32, 32], "tanh") for s in range(3)]
        + [(s, [32, 32], "relu") for s in (3, 4)]
        + [(s, [16], "tanh") for s in (5, 6)]
    )


def _pair(specs, deterministic: bool):
    """The agents of ``specs`` and careful and random, twice, each pair seeded alike (the
    twin plays the reference path)."""
    mine = [_ppo(s, a, deterministic, f) for s, a, f in specs]
    twin = [_ppo(s, a, deterministic, f) for s, a, f in specs]
    for who in (mine, twin):  # members that are no snapshots, drawing from their Generators
        who += [make_agent("careful", "card_poker"), make_agent("random", "card_poker")]
    for k, (a, b) in enumerate(zip(mine, twin, strict=True)):
        a.seed(100 + k)
        b.seed(100 + k)
    return mine, twin


def _sessions(n_steps: int = 30, n: int = 256, seed: int = 0):
    """(observations, masks) of every seat to move over random sessions."""
    engine, _, _ = make_engine(
        "CardPoker-v0", n, seed=seed, opponents="random", n_players=3, episode="session"
    )
    core, rng = engine.core, np.random.default_rng(seed)
    core.reset()
    for _ in range(n_steps):
        t = np.flatnonzero(~core.over)
        if not len(t):
            core.reset()
            continue
        obs, masks = core.observe(None, t), core.action_masks(t)
        yield obs, masks
        actions = np.zeros(core.n, dtype=np.int64)
        actions[t] = [rng.choice(np.flatnonzero(m)) for m in masks]
        core.step_some(actions, ~core.over)


@pytest.mark.parametrize("deterministic", [True, False], ids=["argmax", "sampled"])
def test_members_choose_as_each_members_act_batch(snapshots, deterministic):
    mine, twin = _pair(snapshots, deterministic)
    assert all(stackable(a) for a in mine[:7]) and not stackable(mine[7])
    members, rng = Members(), np.random.default_rng(1)
    rows = 0
    for obs, masks in _sessions():
        member = rng.integers(len(mine), size=len(obs))
        got = members.act(mine, member, obs, masks)
        want = np.empty(len(obs), dtype=np.int64)
        for k in range(len(twin)):  # the league's dispatch before: each member by itself
            r = member == k
            if r.any():
                want[r] = twin[k].act_batch(obs[r], masks[r])
        np.testing.assert_array_equal(got, want)
        assert masks[np.arange(len(obs)), got].all()
        rows += len(obs)
    assert rows > 3000
    # the generators are where the reference path left them: the same draws were made
    for a, b in zip(mine, twin, strict=True):
        assert a.rng.random() == b.rng.random()


def test_a_stack_follows_weights_that_change_in_place(snapshots):
    import torch

    mine, twin = _pair(snapshots[:3], True)
    members = Members()
    obs, masks = next(_sessions())
    member = np.arange(len(obs)) % 3
    members.act(mine, member, obs, masks)
    for agent in (mine[1], twin[1]):  # an optimiser step on a live learner seated as member
        with torch.no_grad():
            for p in agent.model.policy.action_net.parameters():
                p.mul_(-1.0)
    got = members.act(mine, member, obs, masks)
    r = member == 1
    np.testing.assert_array_equal(got[r], twin[1].act_batch(obs[r], masks[r]))


def test_a_wrong_observation_shape_is_named(snapshots):
    mine, _ = _pair(snapshots[:2], True)
    obs, masks = next(_sessions())
    with pytest.raises(ValueError, match="trained on observations of shape"):
        Members().act(mine[:2], np.arange(len(obs)) % 2, obs[:, :-1], masks)
