"""A whole turn in one call (``DicePokerGame.play_turn``, what ``DicePoker-v0``'s table
opponents play by) and the re-rolls by the turn tables: the same game, state for state and
draw for draw, as moving by ``step`` and as the re-roll that sorts its dice."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from agents import make_agent
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame, DicePokerMatch, DicePokerRules


def _state(game: DicePokerGame) -> tuple:
    rounds = [[(t.seat, list(t.rolls), t.hand) for t in r] for r in game.rounds]
    live = (game.dice, game.frozen, game.rolls_used, game.frozen_mask(), game.state_id)
    best = (game.best_hand, game.best_strength, game.best_count, game.round_seats)
    return rounds, live, best, game.position, game.winner, game.rng.bit_generator.state


def _pair(rules: DicePokerRules, players: int, seed: int) -> tuple[DicePokerGame, DicePokerGame]:
    order = list(range(players))
    a = DicePokerGame(order, np.random.default_rng(seed), rules)
    b = DicePokerGame(order, np.random.default_rng(seed), rules)
    return a, b


def _turn_by_steps(game: DicePokerGame, policy, step=None) -> dict:
    """The current player's turn move by move: to a stand or the third roll."""
    while True:
        rolls = game.rolls_used
        action = policy(game)
        out = (step or game.step)(action)
        if action == 0 or rolls + 1 == MAX_ROLLS:
            return out


CASES = [
    ("heuristic", {}),
    ("heuristic", {"lock_kept_dice": False}),
    ("heuristic", {"n_dice": 6}),
    ("optimal", {}),
    ("optimal", {"n_dice": 6}),
]


@pytest.mark.parametrize(("spec", "rules"), CASES)
def test_play_turn_is_step_by_step(spec, rules):
    """Turn by turn, a game played by ``play_turn`` on the policy's table of moves (filled
    as it goes) equals the same game moved by ``step`` with the policy's answers."""
    table = DicePokerRules(**rules)
    name = "dice_poker" if table.n_dice == 5 else "dice_poker6"
    variant = {k: v for k, v in rules.items() if k != "n_dice"}
    policy = make_agent(spec, game=name, **variant).game_policy(table)
    reference = make_agent(spec, game=name, **variant).game_policy(table)
    turns = hits = 0
    for g in list(range(80)) * 2:  # the second pass reads its moves from the tables
        fast, slow = _pair(table, 2 + g % 4, 100 + g)
        while not fast.done:
            moves = policy.turn_moves(fast)
            known = sum(m >= 0 for m in moves)
            fast.play_turn(moves, policy)
            hits += known == sum(m >= 0 for m in moves)  # nothing new was decided
            _turn_by_steps(slow, reference)
            assert _state(fast) == _state(slow)
            turns += 1
    assert turns > 500 and hits > turns / 2


def test_a_table_move_that_rerolls_a_frozen_die_raises():
    game = DicePokerGame([0, 1], np.random.default_rng(0))
    game.step(0b00011)  # roll 2: the three dice kept are frozen now
    moves = [-1] * (2 * game._turns.n_states)
    moves[game.decision] = game.frozen_mask()
    before = _state(game)
    with pytest.raises(ValueError, match="illegal action"):
        game.play_turn(moves, lambda g: 0)
    assert _state(game) == before


def test_a_missing_move_is_asked_and_checked():
    game = DicePokerGame([0, 1], np.random.default_rng(1))
    asked = []

    def decide(g):
        asked.append((g.decision, g.rolls_used))
        return 64  # no such re-roll of five dice

    with pytest.raises(ValueError, match="illegal action 64"):
        game.play_turn([-1] * (2 * game._turns.n_states), decide)
    assert asked == [(game.decision, 1)]


def test_the_match_pays_the_game_a_turn_ends():
    rules = DicePokerRules()
    policy = make_agent("heuristic", game="dice_poker").game_policy(rules)
    fast = DicePokerMatch(3, np.random.default_rng(5), rules, n_games=3)
    slow = DicePokerMatch(3, np.random.default_rng(5), rules, n_games=3)
    paid = []
    while not fast.done:
        paid.append(fast.play_turn(policy.turn_moves(fast.game), policy))
        assert _turn_by_steps(slow.game, policy, slow.step) == paid[-1]
    assert slow.done and fast.chips == slow.chips and sum(map(bool, paid)) == 3
    with pytest.raises(ValueError, match="over"):
        fast.play_turn([], policy)


@pytest.mark.parametrize(
    "rules", [DicePokerRules(), DicePokerRules(lock_kept_dice=False), DicePokerRules(n_dice=6)]
)
def test_the_table_rolls_are_the_sorting_rolls(rules):
    """The second and third rolls by the turn tables leave the game as the re-roll that
    places the new faces and sorts the dice (``_step_sorted``), draw for draw."""
    rng = np.random.default_rng(9)
    n = 0
    for g in range(200):
        game = DicePokerGame(list(range(2 + g % 3)), np.random.default_rng(g), rules)
        while not game.done:
            legal = game.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            if action:
                other = game.copy()
                other._step_sorted(action)
                game.step(action)
                assert _state(game) == _state(other)
                n += 1
            else:
                game.step(action)
    assert n > 500


def test_a_copied_or_unpickled_game_draws_from_its_own_generator():
    game = DicePokerGame([0, 1, 2], np.random.default_rng(4))
    for twin in (copy.deepcopy(game), pickle.loads(pickle.dumps(game)), game.copy()):
        assert twin.rng is not game.rng
        twin.step(0b11111)
        assert twin.rng.bit_generator.state != game.rng.bit_generator.state
        game_again = copy.deepcopy(game)
        game_again.step(0b11111)
        assert _state(game_again) == _state(twin)


def test_move_tables_fill_a_situation_whole_and_check_its_size():
    from array import array

    from envs.rules.dice_poker import MoveTables

    asked = []

    def fill(key):
        asked.append(key)
        return array("b", [key]) * 8

    tables = MoveTables(4, limit=2, fill=fill)
    assert list(tables.get(3)) == [3] * 8 and tables.get(3) is tables.get(3)
    tables.get(1)
    tables.get(2)  # over the limit: it starts afresh
    assert asked == [3, 1, 2] and set(tables.tables) == {2}
    assert list(MoveTables(4, limit=2).get("x")) == [-1] * 8
    short = MoveTables(4, limit=2, fill=lambda key: array("b", [0]) * 3)
    with pytest.raises(ValueError, match="fill\\('k'\\) gave 3 moves; the table needs 8"):
        short.get("k")
