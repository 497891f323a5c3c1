"""agents.tables: agent specs resolved one floor above the envs, which seat objects only."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent, make_env
from agents.heuristic.card_poker import CardPokerCareful
from agents.heuristic.dice_poker import DicePokerHeuristic
from agents.random_agent import RandomAgent
from agents.tables import BatchedVecEnv, make_engine, play_games, seat_options
from envs import vector
from envs.card_poker import CardPokerEnv
from envs.dice_poker import DicePokerEnv


def test_gym_make_seats_one_agent_per_opponent_seat():
    env = gym.make("DicePoker-v0", n_players=4, opponents="heuristic").unwrapped
    assert len(env._opponents) == 3 and len({id(a) for a in env._opponents}) == 3
    assert all(type(a) is DicePokerHeuristic for a in env._opponents)
    env = gym.make("CardPoker-v0").unwrapped  # the registry's default opponents
    assert [type(a) for a in env._opponents] == [CardPokerCareful, CardPokerCareful]


def test_spec_and_agents_give_the_same_trajectory():
    # gym.make with a spec, agents.make_env and the env class with Agents built by hand
    made = [
        gym.make("DicePoker6-v0", opponents="random", agent_seat=0),
        make_env("DicePoker6-v0", opponents="random", agent_seat=0),
        DicePokerEnv(
            n_dice=6,
            opponents=[make_agent("random", "dice_poker6") for _ in range(2)],
            agent_seat=0,
        ),
    ]
    runs = []
    for env in made:
        obs, info = env.reset(seed=5)
        seen = [obs]
        done = False
        while not done:
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            seen.append(obs)
        runs.append(np.stack(seen))
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


@pytest.mark.parametrize("cls", [DicePokerEnv, CardPokerEnv])
def test_the_env_classes_refuse_a_spec_naming_the_front_doors(cls):
    with pytest.raises(ValueError, match=r"got 'heuristic'; agent specs .* gym\.make"):
        cls(opponents="heuristic")
    with pytest.raises(ValueError, match="got None"):
        cls()


def test_the_vector_envs_refuse_a_spec_and_agents_tables_resolves_it():
    with pytest.raises(ValueError, match=r"opponent 'random' is an agent name: .* agents\.tables"):
        vector.make_engine("DicePoker-v0", 4, opponents="random")
    engine, _, _ = make_engine("DicePoker-v0", 4, seed=0, opponents=["random", "heuristic"])
    assert [type(o) for o in engine.opponents] == [RandomAgent, DicePokerHeuristic]
    # the batched tables share one agent per distinct name
    out = seat_options("CardPoker-v0", {"n_players": 4, "opponents": "quick"}, batched=True)
    assert not isinstance(out["opponents"], list)
    vec = BatchedVecEnv("CardPoker-v0", 3, seed=1, opponents="random")
    assert isinstance(vec, vector.BatchedVecEnv) and vec.reset().shape[0] == 3


def test_play_games_and_make_vec_take_specs():
    agent = make_agent("heuristic", "dice_poker")
    totals = play_games(agent.act_batch, "DicePoker-v0", 8, seed=3, opponents="random")
    assert totals.shape == (8,) and totals.sum() != 0
    vec = gym.make_vec(
        "DicePoker-v0", 2, vectorization_mode="vector_entry_point", opponents="random"
    )
    assert isinstance(vec, vector.BatchedVectorEnv)
    with pytest.raises(ValueError, match="unknown agent 'genius'"):
        gym.make_vec("DicePoker-v0", 2, vectorization_mode="vector_entry_point", opponents="genius")


def test_seat_options_leaves_the_scorecard_games_and_checks_rules_first():
    assert seat_options("Yahtzee-v0", {"reward_scale": 0.1}) == {"reward_scale": 0.1}
    with pytest.raises(ValueError, match="ante"):
        seat_options("DicePoker-v0", {"ante": -1})
