"""The scorecard heuristic: registry, legal play, exact fill values, clear decisions, strength."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.heuristic.scorecard import DICE, YahtzeeHeuristic, keep_to_action
from envs.rules.scorecard import (
    CLASSIC_ROWS,
    N_REROLL_ACTIONS,
    RUSSIAN_ROWS,
    Scorecard,
    ScorecardGame,
    make_rules,
)
from envs.scorecard import decode_observation, observe

GAMES = [("yahtzee", "Yahtzee-v0", {}), ("yahtzee_classic", "YahtzeeClassic-v0", {})]
VARIANTS = [
    ("yahtzee", "Yahtzee-v0", {"scratch": "any"}),
    ("yahtzee_classic", "YahtzeeClassic-v0", {"joker": "free"}),
    ("yahtzee_classic", "YahtzeeClassic-v0", {"joker": "none", "yahtzee_bonus": False}),
]


def test_registry():
    assert isinstance(make_agent("heuristic", game="yahtzee"), YahtzeeHeuristic)
    agent = make_agent("heuristic", game="yahtzee_classic", joker="free")
    assert agent.rules == make_rules("classic", joker="free")
    with pytest.raises(ValueError, match="yahtzee or yahtzee_classic"):
        YahtzeeHeuristic(game="dice_poker")
    with pytest.raises(ValueError, match="plays rules='russian'"):
        YahtzeeHeuristic(game="yahtzee", rules="classic")
    with pytest.raises(ValueError, match="classic"):
        YahtzeeHeuristic(game="yahtzee", joker="free")


def play(game_name, env_id, options, agent_spec, seeds):
    env = gym.make(env_id, **options)
    agent = make_agent(agent_spec, game=game_name, **options)
    agent.seed(0)
    totals = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = agent.act(obs, info["action_mask"])
            assert info["action_mask"][action]
            obs, _, done, _, info = env.step(action)
        totals.append(info["total"])
    return np.array(totals, dtype=float)


@pytest.mark.parametrize(("game_name", "env_id", "options"), GAMES + VARIANTS)
def test_plays_legal_moves_to_the_end(game_name, env_id, options):
    totals = play(game_name, env_id, options, "heuristic", range(6))
    assert len(totals) == 6


@pytest.mark.parametrize(("game_name", "env_id", "options"), GAMES)
def test_much_stronger_than_random(game_name, env_id, options):
    # measured over 10,000 games the gap is about 200 points (README); 40 games suffice here
    seeds = range(100, 140)
    gap = play(game_name, env_id, options, "heuristic", seeds) - play(
        game_name, env_id, options, "random", seeds
    )
    assert gap.mean() > 100


def random_states(rules: str, n: int, seed: int, **options):
    """Card states met in random play, as games waiting for a decision."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        game = ScorecardGame(rng, rules, **options)
        while not game.done:
            if rng.random() < 0.3:
                out.append(game.copy())
            legal = game.legal_actions()
            game.step(legal[int(rng.random() * len(legal))])
    return out[:n]


@pytest.mark.parametrize(
    ("rules", "options"),
    [
        ("russian", {}),
        ("russian", {"scratch": "any"}),
        ("classic", {}),
        ("classic", {"joker": "free"}),
        ("classic", {"joker": "none", "yahtzee_bonus": False}),
    ],
)
def test_vectorised_fill_values_match_the_card_rules(rules, options):
    """For every one of the 252 rolls: legal rows as the card says, gains as the card says."""
    game_name = "yahtzee" if rules == "russian" else "yahtzee_classic"
    agent = YahtzeeHeuristic(game=game_name, **options)
    for game in random_states(rules, 12, seed=5, **options):
        f = decode_observation(observe(game), rules)
        card = game.card
        for first in [False, True]:
            values = agent._fill_values(f, first_roll=first)
            for i, d in enumerate(DICE):
                gains = card.fill_options(d, first_roll=first and rules == "russian")
                legal = [card.rows[k] for k in np.flatnonzero(np.isfinite(values[i]))]
                assert legal == list(gains), (card.scores, d)
                for row, gain in gains.items():
                    k = card.rows.index(row)
                    if k >= 6:  # lower rows: gain minus the row's opportunity cost
                        assert values[i, k] == pytest.approx(gain - agent.cost[k])


def decide(rules: str, scores: dict, dice, rolls_used: int, **options) -> int:
    game = ScorecardGame(np.random.default_rng(0), rules, **options)
    r = game.rules
    game.card = Scorecard(r, tuple(scores.get(row) for row in r.rows))
    game.dice, game.rolls_used, game._cache = tuple(sorted(dice)), rolls_used, {}
    name = "yahtzee" if rules == "russian" else "yahtzee_classic"
    return YahtzeeHeuristic(game=name, **options).act(observe(game), game.action_mask())


STAGE2 = dict.fromkeys(RUSSIAN_ROWS[:6], 0)
FILL = N_REROLL_ACTIONS

DECISIONS = [
    # a fresh classic card: obvious fills
    ("classic", {}, (2, 3, 4, 5, 6), 3, FILL + CLASSIC_ROWS.index("large_straight")),
    ("classic", {}, (6, 6, 6, 6, 6), 1, FILL + CLASSIC_ROWS.index("yahtzee")),
    # three sixes on the first roll: keep them (re-roll the 1 and the 3)
    ("classic", {}, (1, 3, 6, 6, 6), 1, 0b00011),
    # russian stage 1: four sixes at the last roll go in Sixes (+6)
    ("russian", {}, (2, 6, 6, 6, 6), 3, FILL + 5),
    # russian stage 2: a first-roll poker is doubled (100 points)
    ("russian", STAGE2, (5, 5, 5, 5, 5), 1, FILL + RUSSIAN_ROWS.index("poker")),
    # russian stage 2: a first-roll large straight 23456 is 40
    ("russian", STAGE2, (2, 3, 4, 5, 6), 1, FILL + RUSSIAN_ROWS.index("large_straight")),
]


@pytest.mark.parametrize(("rules", "scores", "dice", "rolls", "action"), DECISIONS)
def test_clear_decisions(rules, scores, dice, rolls, action):
    assert decide(rules, scores, dice, rolls) == action


def test_forced_joker_goes_where_the_rules_send_it():
    scores = {"yahtzee": 50}
    # its upper row is open: the only legal row
    assert decide("classic", scores, (4,) * 5, 3) == FILL + CLASSIC_ROWS.index("fours")
    scores = {"yahtzee": 50, "fours": 12, "large_straight": 40}
    # upper row filled: only the open lower rows, at full value
    action = decide("classic", scores, (4,) * 5, 3)
    assert CLASSIC_ROWS[action - FILL] in {
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "chance",
    }


@pytest.mark.parametrize(
    ("dice", "keep", "action"),
    [
        ((1, 3, 6, 6, 6), (6, 6, 6), 0b00011),
        ((2, 2, 3, 3, 3), (2, 3), 0b11010),
        ((1, 2, 3, 4, 5), (), 0b11111),
    ],
)
def test_keep_to_action(dice, keep, action):
    assert keep_to_action(dice, keep) == action
