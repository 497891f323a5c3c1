"""The batched ``careful`` and ``bluffer``: ``act_batch`` and ``table_policy`` choose what
the scalar ``act`` chooses row after row, Monte Carlo draws from the seeded Generator
included, on every seat to move over random sessions."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from envs.batched.card_poker import BatchedCardPoker, BatchedCardPokerTable
from envs.rules.card_poker import CardPokerRules

RULES = [(3, {}), (6, {"deck": 54}), (2, {"categories": "short", "draw_fee": 1, "stack": 6})]
AGENTS = [("careful", {}), ("bluffer", {"bluff_rate": 0.5})]


def random_actions(rng, mask):
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def pair(spec, options, rules, seed=3):
    """Two agents of ``spec`` seeded alike."""
    agents = [make_agent(spec, "card_poker", **options, **rules) for _ in range(2)]
    for a in agents:
        a.seed(seed)
    return agents


def sessions(n_players, rules, steps, seed):
    """Random play over sessions: per step, the tables running and the seat to move."""
    engine = BatchedCardPoker(
        16, CardPokerRules(**rules), seed=seed, n_players=n_players, episode="session"
    )
    rng = np.random.default_rng(seed)
    engine.reset()
    for _ in range(steps):
        t = np.flatnonzero(~engine.done)
        yield engine, t, engine.to_act[t].astype(np.int64)
        engine.step(random_actions(rng, engine.action_masks()))
        engine.reset(engine.done)


@pytest.mark.parametrize(("spec", "options"), AGENTS)
@pytest.mark.parametrize(("n_players", "rules"), RULES)
def test_act_batch_is_act_row_by_row(spec, options, n_players, rules):
    scalar, batched = pair(spec, options, rules)
    phases = set()
    for engine, t, seats in sessions(n_players, rules, 8, seed=n_players):
        obs, masks = engine.observe(seats, t), engine.action_masks(t)
        want = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
        np.testing.assert_array_equal(batched.act_batch(obs, masks), want)
        phases |= set(engine.phase[t].tolist())
    assert phases == {0, 1}
    # the same uniforms were drawn: the Generators stand at the same place
    assert scalar.rng.random() == batched.rng.random()


@pytest.mark.parametrize(("spec", "options"), AGENTS)
@pytest.mark.parametrize(("n_players", "rules"), RULES)
def test_table_policy_is_act_batch_on_the_tables_state(spec, options, n_players, rules):
    by_obs, by_table = pair(spec, options, rules)
    phases = set()
    for engine, t, seats in sessions(n_players, rules, 30, seed=10 + n_players):
        act = by_table.table_policy(engine)
        want = by_obs.act_batch(engine.observe(seats, t), engine.action_masks(t))
        np.testing.assert_array_equal(act(t, seats), want)
        phases |= set(engine.phase[t].tolist())
    assert phases == {0, 1}
    other = make_agent(spec, "card_poker", deck=54 if rules.get("deck") != 54 else 36)
    assert other.table_policy(engine) is None


def test_a_table_of_careful_and_bluffer_plays_as_row_by_row_agents():
    """The learner's table gives the same rewards whether its opponents decide in batch
    or one row at a time through the scalar ``act``."""

    class RowByRow:
        def __init__(self, agent):
            self.agent = agent

        def seed(self, seed):  # the table seeds its opponents
            self.agent.seed(seed)

        def act_batch(self, obs, masks):
            return np.array([self.agent.act(o, m) for o, m in zip(obs, masks, strict=True)])

    def play(wrap):
        careful, bluffer = make_agent("careful", "card_poker"), make_agent("bluffer", "card_poker")
        careful.seed(1)
        bluffer.seed(2)
        table = BatchedCardPokerTable(
            16, seed=0, n_players=3, opponents=[wrap(careful), wrap(bluffer)]
        )
        rng = np.random.default_rng(0)
        table.reset()
        out = []
        for _ in range(25):
            out.append(table.step(random_actions(rng, table.action_masks())))
            table.reset(table.done)
        return np.array(out)

    np.testing.assert_array_equal(play(lambda a: a), play(RowByRow))
