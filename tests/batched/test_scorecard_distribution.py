"""The batched optimal scorecard player, on the batched engine's own dice, scores the solver's
exact expected score (both rule sets); the act_batch it plays with is act row by row."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from benchmarks import batched_distributions
from envs.batched.scorecard import BatchedScorecard


@pytest.mark.heavy
@pytest.mark.parametrize("rules", ["russian", "classic"])
def test_batched_optimal_player_scores_the_exact_expected_score(rules):
    """20,000 games (the benchmark runs 100,000): the mean within 3.29 standard errors."""
    r = batched_distributions.optimal_scorecard(rules, 20_000, seed=4, chunk=10_000)
    assert abs(r["z"]) < 3.29, r


@pytest.mark.parametrize(
    ("game", "options"), [("yahtzee", {}), ("yahtzee_classic", {"joker": "free"})]
)
def test_act_batch_is_act_row_by_row_and_refuses_bad_input(game, options):
    engine = BatchedScorecard(300, "russian" if game == "yahtzee" else "classic", seed=2, **options)
    engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(25):  # mixed turns, rolls and (russian) both stages across the batch
        obs, masks = engine.observe(), engine.action_masks()
        batch = make_agent("optimal", game, **options).act_batch(obs, masks)
        scalar = make_agent("optimal", game, **options)
        np.testing.assert_array_equal(
            batch, [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
        )
        random = (rng.random(masks.shape) * masks).argmax(axis=1)
        engine.step(np.where(rng.random(300) < 0.5, batch, random))
        engine.reset(engine.done)
    agent = make_agent("optimal", game, **options)
    with pytest.raises(ValueError, match="act_batch takes"):
        agent.act_batch(obs, masks[:3])
    with pytest.raises(RuntimeError, match=r"illegal action \d+ in row 0 \(legal: \[\]\)"):
        agent.act_batch(obs[:1], np.zeros_like(masks[:1]))
    with pytest.raises(RuntimeError, match=r"illegal action \d+ \(legal: \[\]\)"):
        agent.act(obs[0], np.zeros_like(masks[0]))
