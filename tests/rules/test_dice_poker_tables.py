"""The compiled tables the scalar dice-poker game steps by, held to the batched engine's and
to the game's own record."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs.batched.dice_poker import hand_table
from envs.rules.dice import multisets
from envs.rules.dice_poker import DicePokerGame, DicePokerRules, hand_strengths
from envs.rules.dice_poker_tables import scalar_turns, turn_states

VARIANTS = [
    DicePokerRules(n_dice=5, full_house_tiebreak=f, two_pairs_tiebreak=t)
    for f, t in itertools.product(("sum", "triple"), ("sum", "high_pair"))
] + [
    DicePokerRules(n_dice=6, six_dice_low_hands=low, pyramid=p)
    for low, p in itertools.product((True, False), ("monotone", "ascending", "any"))
]


@pytest.mark.parametrize("rules", VARIANTS, ids=repr)
def test_hand_strengths_are_the_batched_engines(rules):
    h = hand_strengths(rules)
    sets = multisets(rules.n_dice)
    assert [h.strength[m] for m in sets] == hand_table(rules).strength.tolist()
    assert all(h.hand[m] is rules.rank(m) for m in sets)
    assert h.n_hands == hand_table(rules).n_hands


@pytest.mark.parametrize(("n_dice", "lock"), [(5, True), (5, False), (6, True)])
def test_scalar_turns_are_the_turn_states(n_dice, lock):
    s, t = scalar_turns(n_dice, lock), turn_states(n_dice, lock)
    assert s.dice == [tuple(d) for d in t.dice.tolist()]
    assert all(s.state_of[d, f] == i for i, (d, f) in enumerate(zip(s.dice, s.frozen, strict=True)))
    assert s.second == t.after[0].tolist() and s.kept == t.kept.tolist()


@pytest.mark.parametrize(
    "rules", [DicePokerRules(), DicePokerRules(lock_kept_dice=False), DicePokerRules(n_dice=6)]
)
def test_the_game_keeps_its_state_id_and_best_hand(rules):
    """While the game runs, ``state_id`` is the turn state of its dice, and the best hand
    kept as it goes is the best finished hand of the round (the first to reach it)."""
    rng = np.random.default_rng(3)
    s = scalar_turns(rules.n_dice, rules.lock_kept_dice)
    h = hand_strengths(rules)
    for g in range(300):
        game = DicePokerGame(list(range(2 + g % 3)), rng, rules)
        while not game.done:
            assert game.state_id == s.state_of[game.dice, game.frozen]
            hands = game.finished_hands
            best = max(hands) if hands else None
            assert game.best_hand is best
            assert game.best_count == sum(x == best for x in hands)
            assert game.best_strength == (h.strength[best.dice] if hands else -1)
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
