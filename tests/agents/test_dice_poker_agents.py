"""make_agent, the random and heuristic dice-poker agents, and the arena."""

from __future__ import annotations

import numpy as np
import pytest

from agents import Agent, make_agent
from agents.arena import run_arena, wilson_interval
from envs.dice_poker import observe
from envs.rules.dice_poker import DicePokerGame, DicePokerRules


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("genius", "dice_poker", "unknown agent 'genius'"),
        ("random", "chess", "unknown game 'chess'"),
        (42, "dice_poker", "string or an Agent"),
    ],
)
def test_make_agent_errors(spec, game, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, game=game)


def test_make_agent_passes_rule_options():
    agent = make_agent("heuristic", game="dice_poker6", pyramid="any")
    assert agent.rules.pyramid == "any" and agent.rules.n_dice == 6
    with pytest.raises(ValueError, match="pyramid"):
        make_agent("heuristic", game="dice_poker6", pyramid="up")


def test_an_agent_instance_is_used_as_it_is():
    agent = make_agent("random", game="dice_poker")
    assert make_agent(agent, game="dice_poker") is agent


@pytest.mark.parametrize("spec", ["random", "heuristic"])
@pytest.mark.parametrize("n_dice", [5, 6])
def test_agents_always_pick_legal_actions(spec, n_dice):
    agent = make_agent(spec, game="dice_poker" if n_dice == 5 else "dice_poker6")
    assert isinstance(agent, Agent)
    rng = np.random.default_rng(n_dice)
    agent.seed(1)
    for _ in range(200):
        game = DicePokerGame([0, 1, 2], rng, DicePokerRules(n_dice=n_dice))
        while not game.done:
            seat = game.current_player
            mask = game.action_mask()
            action = agent.act(observe(game, seat), mask)
            assert mask[action]
            game.step(action)


def test_random_agent_is_seeded():
    mask = np.ones(32, dtype=bool)
    a, b = make_agent("random", "dice_poker"), make_agent("random", "dice_poker")
    a.seed(7)
    b.seed(7)
    obs = np.zeros(34, dtype=np.float32)
    assert [a.act(obs, mask) for _ in range(20)] == [b.act(obs, mask) for _ in range(20)]


def test_heuristic_stands_on_a_winning_hand_when_last(faces):
    # seat 0: a pair; seat 1 (last) rolls four sixes: re-rolling the kicker cannot lose,
    # but standing already wins for sure, and the heuristic prefers the simpler move.
    game = DicePokerGame([0, 1], np.random.default_rng(0), chance=[1, 1, 2, 3, 4])
    game.step(0, faces(5, next_roll=[6, 6, 6, 6, 2]))
    agent = make_agent("heuristic", "dice_poker")
    assert agent.act(observe(game, 1), game.action_mask()) == 0


def test_heuristic_chases_when_behind(faces):
    # seat 0 holds three fives; seat 1 rolls a pair of sixes and must re-roll the other three
    game = DicePokerGame([0, 1], np.random.default_rng(0), chance=[5, 5, 5, 1, 2])
    game.step(0, faces(5, next_roll=[1, 2, 3, 6, 6]))
    agent = make_agent("heuristic", "dice_poker")
    assert agent.act(observe(game, 1), game.action_mask()) == 0b00111


@pytest.mark.parametrize("n_dice", [5, 6])
def test_heuristic_beats_random_clearly(n_dice):
    game = "dice_poker" if n_dice == 5 else "dice_poker6"
    result = run_arena(game, ["heuristic", "random", "random"], 1200, progress=False)
    heur = result.summary()[0]
    assert heur["win_rate_ci95"][0] > 0.6  # a fair share would be 1/3
    for pos in heur["by_position"]:
        assert pos["games"] == 400 and pos["win_rate"] > 0.5
    assert (result.records.value.sum(axis=1) == 0).all()


def test_wilson_interval_covers_the_rate():
    lo, hi = wilson_interval(50, 100)
    assert lo < 0.5 < hi and hi - lo < 0.2
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("n_dice", "variant"), [(5, {}), (6, {}), (6, {"pyramid": "any"})])
def test_heuristic_table_lookup_decides_as_its_scalar_code(n_dice, variant):
    """act reads the compiled tables (_lookup_act); _act, the scalar code they were compiled
    from, chooses the same on every situation of a few hundred games (2-4 players, every
    position, play-offs), and a malformed observation still raises as _act does."""
    game = "dice_poker" if n_dice == 5 else "dice_poker6"
    agent = make_agent("heuristic", game=game, **variant)
    rules = DicePokerRules(n_dice=n_dice, **variant)
    rng = np.random.default_rng(5)
    decisions = 0
    for k in range(150):
        players = 2 + k % 3
        game_ = DicePokerGame(list(range(players)), rng, rules)
        while not game_.done:
            seat = game_.current_player
            obs, mask = observe(game_, seat), game_.action_mask()
            assert agent._lookup_act(obs, mask) == agent._act(obs, mask), obs
            decisions += 1
            legal = np.flatnonzero(mask)
            game_.step(int(legal[rng.integers(len(legal))]))
    assert decisions > 600
    bad = observe(game_, 0) * 0  # no dice: not a decision of this layout
    with pytest.raises(KeyError):
        agent._act(bad, np.ones(2**n_dice, dtype=bool))
    with pytest.raises(KeyError):
        agent._lookup_act(bad, np.ones(2**n_dice, dtype=bool))
