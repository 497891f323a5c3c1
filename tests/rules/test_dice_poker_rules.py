"""One game of prison dice poker as a state machine, with the dice given as chance."""

from __future__ import annotations

import numpy as np
import pytest

from envs.rules.dice_poker import (
    DicePokerGame,
    DicePokerMatch,
    DicePokerRules,
    roll_for_first,
    turn_order,
)

RNG = np.random.default_rng(0)  # never read when the dice are given


def bits(*positions: int) -> int:
    return sum(1 << p for p in positions)


def test_frozen_dice_rule(faces):
    game = DicePokerGame([0, 1], RNG, chance=[1, 1, 2, 5, 6])
    assert game.dice == (1, 1, 2, 5, 6) and game.rolls_used == 1
    assert game.legal_actions() == list(range(32))  # any re-roll after roll 1
    game.step(bits(3, 4), faces(5, {3: 3, 4: 4}))  # re-roll the 5 and the 6; 1 1 2 are frozen
    assert game.dice == (1, 1, 2, 3, 4)
    assert game.frozen == (True, True, True, False, False)
    assert game.rolls_used == 2
    # roll 3 may touch only the dice re-rolled at roll 2 (now the 3 and the 4)
    assert game.legal_actions() == [0, bits(3), bits(4), bits(3, 4)]
    with pytest.raises(
        ValueError, match=r"illegal action 1 .*legal re-roll bit sets now are \[0, 8, 16, 24\]"
    ):
        game.step(bits(0))
    assert game.dice == (1, 1, 2, 3, 4) and game.rolls_used == 2  # unchanged


def test_without_frozen_dice_everything_may_be_rerolled(faces):
    game = DicePokerGame([0, 1], RNG, DicePokerRules(lock_kept_dice=False), [1, 1, 2, 5, 6])
    game.step(bits(3, 4), faces(5, {3: 3, 4: 4}))
    assert game.frozen == (False,) * 5
    assert game.legal_actions() == list(range(32))


def test_third_roll_ends_the_turn_and_play_passes(faces):
    game = DicePokerGame([1, 0], RNG, chance=[1, 2, 3, 4, 6])
    assert game.current_player == 1
    game.step(bits(0, 1, 2, 3), [6, 6, 6, 6, 1])  # keep the 6, four more sixes
    # the kept six is frozen and sorts after the re-rolled sixes
    assert game.dice == (6,) * 5 and game.frozen == (False,) * 4 + (True,)
    assert bits(4) not in game.legal_actions()
    with pytest.raises(ValueError, match="must be 10 faces"):
        game.step(bits(0), [5, 1, 1, 1, 1])  # the third roll starts a turn: 2 x 5 faces
    assert game.rolls_used == 2 and game.dice == (6,) * 5  # unchanged
    game.step(bits(0), faces(5, {0: 5}, [2, 2, 3, 3, 4]))  # a six comes up 5: the turn ends
    assert game.rounds[0][0].rolls == [(1, 2, 3, 4, 6), (6, 6, 6, 6, 6), (5, 6, 6, 6, 6)]
    assert (game.rounds[0][0].hand.name, game.rounds[0][0].hand.points) == ("four", 24)
    assert game.current_player == 0 and game.rolls_used == 1
    assert game.dice == (2, 2, 3, 3, 4) and game.frozen == (False,) * 5


def test_tie_goes_to_a_playoff_without_new_ante(faces):
    # three players: seats 2, 0 tie with four fours; seat 1 has a pair
    game = DicePokerGame([2, 1, 0], RNG, DicePokerRules(ante=2), [4, 4, 4, 4, 1])  # seat 2
    assert game.pot == 6
    game.step(0, faces(5, next_roll=[1, 1, 2, 3, 5]))  # seat 1
    game.step(0, faces(5, next_roll=[4, 4, 4, 4, 6]))  # seat 0: ties (kickers don't count)
    # play-off: seat 2 first (earliest tied in the round order)
    game.step(0, faces(5, next_roll=[2, 2, 3, 5, 6]))
    assert not game.done and game.playoff == 1
    assert game.round_order == [2, 0]
    assert game.pot == 6
    assert game.current_player == 2 and game.dice == (2, 2, 3, 5, 6)
    game.step(0, faces(5, next_roll=[3, 3, 3, 1, 2]))  # play-off: seat 0
    assert game.best_so_far()[0].name == "pair"
    game.step(0, faces(5, next_roll=[6] * 5))  # the game ends: nothing reads the next roll
    assert game.done and game.winner == 0
    assert game.payoffs() == {0: 4, 1: -2, 2: -2}
    assert game.legal_actions() == []
    with pytest.raises(ValueError, match="the game is over"):
        game.step(0)


def test_best_so_far_counts_ties(faces):
    game = DicePokerGame([0, 1, 2], RNG, chance=[6, 6, 1, 2, 3])
    game.step(0, faces(5, next_roll=[6, 6, 2, 4, 5]))
    game.step(0, faces(5, next_roll=[1, 1, 1, 2, 3]))
    best, count = game.best_so_far()
    assert (best.name, best.points, count) == ("pair", 12, 2)
    assert game.players_after == 0


def test_roll_for_first_rerolls_tied_highest():
    # seats 0 and 2 tie on 6, then re-roll: 4 vs 5 (the faces of seats 1 and 3 are not read)
    first, rounds = roll_for_first(4, None, [[6, 3, 6, 2], [4, 1, 5, 1]])
    assert first == 2
    assert rounds == [{0: 6, 1: 3, 2: 6, 3: 2}, {0: 4, 2: 5}]
    with pytest.raises(ValueError, match=r"still tied among seats \[0, 2\] after the 1 round"):
        roll_for_first(4, None, [[6, 3, 6, 2]])


def test_the_drawn_seating_roll_is_the_given_one_with_the_drawn_faces():
    """Drawn, each round rolls the contenders' dice with ``roll`` (one draw a round) and
    decides as the given rolls decide."""
    from envs.rules.dice import roll

    for seed in range(300):
        n = 2 + seed % 5
        rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
        first, rounds = roll_for_first(n, rng)
        rolls = []
        for faces in rounds:
            drawn = roll(twin, len(faces))
            assert tuple(faces.values()) == drawn
            rolls.append([faces.get(s, 1) for s in range(n)])
        assert roll_for_first(n, None, rolls) == (first, rounds)
        assert rng.bit_generator.state == twin.bit_generator.state


def test_a_match_takes_its_chance_from_the_caller(faces):
    """Seating roll, first roll and each step's dice given: the second half of the step that
    ends the first game is the first roll of the next."""
    m = DicePokerMatch(2, RNG, n_games=2, chance=[2, 2, 3, 4, 5], seating=[[3, 3], [1, 5]])
    assert m.first == 1 and m.current_player == 1 and m.game.dice == (2, 2, 3, 4, 5)
    assert m.step(0, faces(5, next_roll=[6, 6, 6, 1, 2])) == {}
    assert m.step(0, faces(5, next_roll=[5, 5, 1, 1, 1])) == {0: 1, 1: -1}
    assert m.current_player == 0 and m.game.dice == (1, 1, 1, 5, 5)
    with pytest.raises(ValueError, match="faces must be 1..6"):
        m.step(bits(0), [7, 1, 1, 1, 1])
    assert m.game.dice == (1, 1, 1, 5, 5) and m.game.rolls_used == 1


def test_same_seed_same_rolls_as_before_the_seam():
    """Without chance the Generator is read exactly as before (a pinned trajectory)."""
    game = DicePokerGame([0, 1], np.random.default_rng(11))
    game.step(0b10101)
    game.step(0b01001)
    assert game.rounds[0][0].rolls == [(1, 3, 5, 5, 6), (1, 3, 4, 5, 5), (3, 4, 5, 5, 5)]
    assert game.current_player == 1 and game.dice == (1, 3, 6, 6, 6)


def test_turn_order_passes_left():
    assert turn_order(2, 4) == [2, 3, 0, 1]


def test_circle_start_moves_left():
    match = DicePokerMatch(3, np.random.default_rng(5), n_games=3, first=1)
    starters = [match.game.order[0]]
    while not match.done:
        if match.step(0) and not match.done:
            starters.append(match.game.order[0])
    assert starters == [1, 2, 0]
    assert match.games_played == 3
    assert sum(match.chips) == 0


def test_copy_is_independent():
    game = DicePokerGame([0, 1], np.random.default_rng(3))
    twin = game.copy()
    game.step(31)
    twin.step(31)
    assert game.dice == twin.dice  # same generator state, same roll
    game.step(0)
    assert twin.current_player == 0 and game.current_player == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_dice": 4}, "n_dice"),
        ({"ante": -1}, "ante"),
        ({"lock_kept_dice": "no"}, "lock_kept_dice"),
        ({"pyramid": "flat"}, "pyramid"),
    ],
)
def test_bad_rules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DicePokerRules(**kwargs)


def test_ten_thousand_random_games_conserve_chips():
    rng = np.random.default_rng(2024)
    for i in range(10_000):
        n = 2 + i % 5
        rules = DicePokerRules(n_dice=5 + i % 2, ante=1 + i % 3, lock_kept_dice=bool(i % 4))
        game = DicePokerGame(turn_order(int(rng.integers(n)), n), rng, rules)
        steps = 0
        while not game.done:
            game.step(int(rng.choice(game.legal_actions())))
            steps += 1
            assert steps < 10_000, "a game must end"
        pay = game.payoffs()
        assert sum(pay.values()) == 0
        assert pay[game.winner] == rules.ante * (n - 1)
        last = game.rounds[-1]
        assert max(t.hand for t in last) == next(t.hand for t in last if t.seat == game.winner)
