"""The dice-poker opponents' shortcut past the observation (``game_policy(rules)``, what
``DicePoker-v0`` asks its opponents through): on every decision of many random games it
answers exactly what the agent's ``act`` answers to the encoded observation and mask."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from envs.obs.dice_poker import observe
from envs.rules.dice_poker import DicePokerGame, DicePokerRules

CASES = [
    ("heuristic", {}),
    ("heuristic", {"full_house_tiebreak": "triple", "two_pairs_tiebreak": "high_pair"}),
    ("heuristic", {"lock_kept_dice": False}),
    ("heuristic", {"n_dice": 6}),
    ("heuristic", {"n_dice": 6, "pyramid": "any", "six_dice_low_hands": False}),
    ("optimal", {}),
    ("optimal", {"lock_kept_dice": False}),
    ("optimal", {"n_dice": 6}),
]


@pytest.mark.parametrize(("spec", "rules"), CASES)
def test_game_policy_chooses_what_act_chooses(spec, rules):
    table = DicePokerRules(**rules)
    game_name = "dice_poker" if table.n_dice == 5 else "dice_poker6"
    variant = {k: v for k, v in rules.items() if k != "n_dice"}
    agent = make_agent(spec, game=game_name, **variant)
    reference = make_agent(spec, game=game_name, **variant)  # its own memo: act answers afresh
    policy = agent.game_policy(table)
    assert policy is not None
    rng = np.random.default_rng(len(rules) * 7 + table.n_dice)
    decisions = 0
    for g in range(150):
        game = DicePokerGame(list(range(2 + g % 4)), rng, table)
        while not game.done:
            action = policy(game)
            expected = reference.act(observe(game, game.current_player), game.action_mask())
            assert action == expected, (game.dice, game.frozen, game.best_strength)
            # the same again, from the policy's memory
            assert policy(game) == action
            decisions += 1
            game.step(action)
    assert decisions > 300


def test_game_policy_declines_other_hands():
    agent = make_agent("heuristic", game="dice_poker")
    assert agent.game_policy(DicePokerRules(full_house_tiebreak="triple")) is None
    assert agent.game_policy(DicePokerRules(n_dice=6)) is None
    optimal = make_agent("optimal", game="dice_poker")
    assert optimal.game_policy(DicePokerRules(lock_kept_dice=False)) is None
    assert optimal.game_policy(DicePokerRules(ante=3)) is not None  # the ante changes no move


def test_a_subclass_that_acts_otherwise_gets_no_shortcut():
    base = type(make_agent("heuristic", game="dice_poker"))

    class Stubborn(base):
        def act(self, observation, action_mask):
            return 0

    assert Stubborn().game_policy(DicePokerRules()) is None
