"""agents/policies.py: ScorecardPolicy's keep heads give exact distributions over the env's
actions (the factored head's log-probs checked against a brute-force sum over its bit
patterns), respect the masks, and travel with a saved model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import envs  # noqa: F401
from agents import make_agent
from agents.policies import KEEP_HEADS, ScorecardPolicy
from agents.ppo import masked_logits
from agents.tables import BatchedVecEnv, play_games
from envs.rules.scorecard import N_DICE, N_REROLL_ACTIONS


def model_of(env_id: str, keep_head: str, seed: int = 0):
    """An untrained MaskablePPO with a ScorecardPolicy whose head weights are scaled up, so
    that its distribution is far from uniform."""
    from sb3_contrib import MaskablePPO

    vec = BatchedVecEnv(env_id, 8)
    model = MaskablePPO(
        ScorecardPolicy,
        vec,
        n_steps=8,
        batch_size=64,
        seed=seed,
        device="cpu",
        policy_kwargs={"keep_head": keep_head, "net_arch": [32]},
    )
    with torch.no_grad():
        model.policy.action_net.weight.mul_(300.0)
        model.policy.action_net.bias.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(7))
    return model


def random_states(env_id: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``n`` games after random legal moves (every roll count)."""
    rng = np.random.default_rng(seed)
    vec = BatchedVecEnv(env_id, n)
    vec.seed(seed)
    obs = vec.reset()
    out_obs, out_masks = [obs], [vec.action_masks()]
    for _ in range(12):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, *_ = vec.step(actions)
        out_obs.append(obs)
        out_masks.append(vec.action_masks())
    return np.concatenate(out_obs), np.concatenate(out_masks)


def brute_force(head: np.ndarray, dice: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The factored head's probability of every env action, by enumeration: a re-roll set
    weighs exp(g) times the probability of its keep (the multiset of the dice it keeps:
    every one of the 32 bit patterns, by its five Bernoullis, gives its mass to the
    canonical set of its keep), row j weighs exp(row logit j); restricted to the legal
    canonical actions and normalised."""
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    g, bits, rows = head[0], head[1 : 1 + N_DICE], head[1 + N_DICE :]
    p = np.zeros(N_REROLL_ACTIONS + len(rows))
    keep_of = {}
    for pattern in range(N_REROLL_ACTIONS):
        kept = tuple(sorted(int(d) for i, d in enumerate(dice) if not (pattern >> i) & 1))
        keep_of.setdefault(kept, []).append(pattern)
    for patterns in keep_of.values():
        # the canonical one keeps the leftmost of equal dice: the smallest set of re-rolled
        # positions among equal faces sits rightmost, i.e. the largest pattern number
        canon = max(patterns)
        for pattern in patterns:
            on = [(pattern >> i) & 1 for i in range(N_DICE)]
            p_bits = np.prod([sig(b) if o else sig(-b) for b, o in zip(bits, on, strict=True)])
            p[canon] += np.exp(g) * p_bits
    p[N_REROLL_ACTIONS:] = np.exp(rows)
    p = np.where(mask, p, 0.0)
    return p / p.sum()


@pytest.mark.parametrize("env_id", ["YahtzeeClassic-v0", "PokerNaKostyah-v0"])
def test_factored_head_is_the_exact_distribution_over_the_env_actions(env_id):
    model = model_of(env_id, "factored")
    policy = model.policy
    obs, masks = random_states(env_id, 16, seed=3)
    t = torch.as_tensor(obs)
    with torch.no_grad():
        dist = policy.get_distribution(t, masks)
        probs = dist.distribution.probs.numpy()
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(t))
        heads = policy.action_net(latent).numpy().astype(np.float64)
        entropy = dist.entropy().numpy()
    legal = policy._masks(t, masks)
    assert legal.any(axis=1).all() and (legal <= masks).all()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert (probs[~legal] < 1e-12).all()  # masked and non-canonical actions: zero
    rolls = obs[:, 11]
    assert {1.0, 2.0, 3.0} <= set(rolls.tolist())  # the states cover every roll count
    for k in range(len(obs)):
        expected = brute_force(heads[k], obs[k, 6 : 6 + N_DICE], legal[k])
        np.testing.assert_allclose(probs[k], expected, atol=2e-5)
        p = expected[expected > 0]
        assert entropy[k] == pytest.approx(-(p * np.log(p)).sum(), abs=1e-4)
    # the agent's logits (agents/ppo.masked_logits) are the same distribution; deterministic
    # play is its likeliest legal action
    logits = masked_logits(model, obs, masks)
    agent_probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    agent_probs /= agent_probs.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(agent_probs, probs, atol=1e-5)
    with torch.no_grad():
        greedy = policy.get_distribution(t, masks).get_actions(deterministic=True).numpy()
    np.testing.assert_array_equal(greedy, probs.argmax(axis=1))
    # the log-prob PPO trains on is the joint one, for the actions it samples too
    actions = torch.as_tensor(
        [np.random.default_rng(k).choice(len(p), p=p / p.sum()) for k, p in enumerate(probs)]
    )
    with torch.no_grad():
        _, log_prob, _ = policy.evaluate_actions(t, actions, masks)
    np.testing.assert_allclose(
        log_prob.numpy(), np.log(probs[np.arange(len(probs)), actions.numpy()]), atol=1e-4
    )


def test_factored_head_without_a_mask_still_keeps_to_canonical_sets():
    model = model_of("YahtzeeClassic-v0", "factored")
    obs, masks = random_states("YahtzeeClassic-v0", 8, seed=5)
    t = torch.as_tensor(obs)
    with torch.no_grad():
        free = model.policy.get_distribution(t).distribution.probs.numpy()
    canonical = model.policy._masks(t, np.ones_like(masks))
    np.testing.assert_allclose(free.sum(axis=1), 1.0, atol=1e-5)
    assert (free[~canonical] < 1e-12).all()


def test_categorical_head_is_one_logit_per_action():
    model = model_of("YahtzeeClassic-v0", "categorical")
    policy = model.policy
    assert policy.action_net.out_features == policy.action_space.n
    obs, masks = random_states("YahtzeeClassic-v0", 4, seed=1)
    t = torch.as_tensor(obs)
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(t))
        assert torch.equal(policy.action_logits(t, latent), policy.action_net(latent))
    assert model_of("YahtzeeClassic-v0", "factored").policy.action_net.out_features == 1 + 5 + 13


def test_a_bad_keep_head_is_one_line_naming_it():
    with pytest.raises(ValueError, match=r"keep_head must be one of \['categorical', 'factored'\]"):
        model_of("YahtzeeClassic-v0", "bits")
    assert KEEP_HEADS == ("categorical", "factored")


@pytest.mark.parametrize("keep_head", KEEP_HEADS)
def test_a_saved_model_reloads_with_its_head_and_plays(tmp_path, keep_head):
    model = model_of("YahtzeeClassic-v0", keep_head)
    path = tmp_path / "model.zip"
    model.save(path)
    agent = make_agent(f"ppo:{path}", game="yahtzee_classic")
    assert agent.model.policy.keep_head == keep_head
    obs, masks = random_states("YahtzeeClassic-v0", 8, seed=2)
    np.testing.assert_allclose(
        masked_logits(agent.model, obs, masks), masked_logits(model, obs, masks), atol=1e-5
    )
    # whole games on the batched engine, which raises on an illegal action
    totals = play_games(agent.act_batch, "YahtzeeClassic-v0", 4, seed=0)
    assert len(totals) == 4 and (totals >= 0).all()


def test_canonical_classes_cover_every_pattern_once():
    """For every run structure of sorted dice, each re-roll pattern belongs to exactly one
    canonical set's class (the canonical sets of canonical_reroll_mask)."""
    from agents.policies import _keep_classes, canonical_reroll_mask

    classes = np.isfinite(_keep_classes())
    for config in range(16):
        dice = [1]
        for i in range(N_DICE - 1):  # bit i: die i + 1 equals die i
            dice.append(dice[-1] if (config >> i) & 1 else dice[-1] + 1)
        obs = torch.zeros(1, 44)
        obs[0, 6 : 6 + N_DICE] = torch.tensor(dice, dtype=torch.float32)
        canonical = canonical_reroll_mask(obs)[0].numpy()
        np.testing.assert_array_equal(classes[config][canonical].sum(axis=0), 1)
        assert all(classes[config][a, a] for a in np.flatnonzero(canonical))
    # all five dice equal: six keeps (re-roll 0..5 of them) of 1, 5, 10, 10, 5, 1 patterns
    canonical = canonical_reroll_mask(torch.ones(1, 44))[0].numpy()
    sizes = sorted(classes[15][canonical].sum(axis=1).tolist())
    assert sizes == [1, 1, 5, 5, 10, 10]
