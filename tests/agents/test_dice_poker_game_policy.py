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


@pytest.mark.parametrize(
    ("name", "rules"),
    [("dice_poker", {}), ("dice_poker", {"lock_kept_dice": False}), ("dice_poker6", {})],
)
def test_the_heuristic_fills_each_situation_with_the_moves_pick_chooses(name, rules):
    """A situation's table comes whole (one product of transitions and worths); every move
    in it is :meth:`_pick`'s on that state, and what the product cannot tell apart (values
    within rounding) is left at -1 for ``_pick``, never guessed."""
    agent = make_agent("heuristic", game=name, **rules)
    table = agent.rules
    policy = agent.game_policy(table)
    n = policy.n_states
    everything = [True] * table.n_actions
    hands = len(agent.table.order)
    keys = [(-1, 0, False), (-1, 0, True)]
    every = 4 if table.n_dice == 5 else 9  # targets: a spread of the hands
    keys += [(t, c, ch) for t in range(0, hands, every) for c in (1, 3) for ch in (False, True)]
    left = 0
    for target, count, chase in keys:
        moves = policy.tables.fill((target, count, chase))
        assert len(moves) == 2 * n and moves[:n] == moves[n:]  # act reads no rolls_used
        for sid in range(n):
            if moves[sid] < 0:
                left += 1
                continue
            pick = agent._pick(*policy.by_state[sid], target, count, int(chase), everything)
            assert moves[sid] == pick, (target, count, chase, sid)
    assert 0 < left < 0.3 * n * len(keys)


@pytest.mark.parametrize(("name", "rules"), [("dice_poker", {}), ("dice_poker6", {})])
def test_the_optimal_fills_each_situation_with_the_solved_moves(name, rules):
    """Every move of a filled situation is what ``_decide`` plays there (the solved policy's
    kept dice, re-rolled by ``_reroll_bits``); only a first roll with frozen dice (never
    met) is left at -1."""
    from agents.optimal.dice_poker import _reroll_bits
    from envs.rules.dice_poker_tables import scalar_turns

    agent = make_agent("optimal", game=name, **rules)
    table = DicePokerRules(n_dice=agent.rules.n_dice)
    policy = agent.game_policy(table)
    turns = scalar_turns(table.n_dice, table.lock_kept_dice)
    n, subs = turns.n_states, agent.shape.subs
    for players, position, best, count in [(2, 0, -1, 0), (3, 1, 20, 1), (3, 2, 35, 2)]:
        moves = policy.tables.fill((players, position, best, count))
        pol = agent.policy(players, position, None if best < 0 else best, count)
        for sid in range(n):
            dice, frozen = turns.dice[sid], turns.frozen[sid]
            if any(frozen):
                assert moves[sid] == -1
            else:
                keep = subs[pol.pick1[policy.final_of[sid]]]
                assert moves[sid] == _reroll_bits(dice, frozen, keep)
            keep = subs[pol.pick2[policy.state2_of[sid]]]
            assert moves[n + sid] == _reroll_bits(dice, frozen, keep), (sid, dice, frozen)


def test_the_tables_of_plain_agents_are_shared():
    """Seats of one kind and rules read one table of moves (what one decided, the next
    reads), a subclass its own."""
    rules = DicePokerRules()
    for spec in ("heuristic", "optimal"):
        a, b = (make_agent(spec, game="dice_poker").game_policy(rules) for _ in range(2))
        assert a.tables is b.tables
    base = type(make_agent("optimal", game="dice_poker"))

    class Mine(base):
        pass

    assert Mine().game_policy(rules).tables is not a.tables


def test_an_optimal_policy_that_decided_by_itself_pickles():
    """A move left to ``_decide`` (a table entry of -1) keeps the solved picks; the policy
    and its tables pickle with them and answer the same."""
    import pickle

    rules = DicePokerRules()
    policy = make_agent("optimal", game="dice_poker").game_policy(rules)
    game = DicePokerGame([0, 1, 2], np.random.default_rng(4), rules)
    moves = policy.turn_moves(game)
    expected = moves[game.decision]
    moves[game.decision] = -1
    assert policy(game) == expected and moves[game.decision] == expected
    assert policy.picks  # decided by _decide, which kept the picks
    again = pickle.loads(pickle.dumps(policy))
    assert again(game) == expected
