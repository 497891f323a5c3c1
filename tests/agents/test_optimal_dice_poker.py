"""Exact optimal prison dice poker: one turn, whole games and the agent.

Checks: a published figure (Yahtzee within one turn), an independent brute
force over ordered rolls and re-roll bit sets (the game's own action space)
for every target hand, the two-player game recomputed from that brute force,
the play-off fixed point, and games simulated with the agent at every seat.
"""

from __future__ import annotations

import itertools
from functools import cache
from math import sqrt

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.heuristic.dice_poker import DicePokerHeuristic
from agents.optimal.dice_poker import (
    DicePokerOptimal,
    hand_chance,
    hand_keys,
    solve_game,
    target_odds,
    win_probabilities,
)
from envs.dice_poker import observe
from envs.rules.dice import multisets
from envs.rules.dice_poker import DicePokerGame, DicePokerRules


def brute_turn(value_of: dict, n_dice: int, lock: bool) -> np.ndarray:
    """Best expected utility of one turn, by plain recursion over ordered rolls.

    ``value_of[sorted dice]`` is a vector of utilities (one column per
    problem); each column is maximised on its own. Moves are the re-roll bit
    sets of the game over its sorted (face, frozen) dice, with the frozen flags
    set as the rules say. Shares no code with the solver.
    """

    @cache
    def state(dice: tuple, rolls: int) -> np.ndarray:
        best = value_of[tuple(d for d, _ in dice)]
        if rolls == 3:
            return best
        frozen = sum(1 << i for i, (_, z) in enumerate(dice) if z)
        for a in range(1, 2**n_dice):
            if a & frozen:
                continue
            kept = tuple(
                (d, z or (lock and rolls == 1)) for i, (d, z) in enumerate(dice) if not a >> i & 1
            )
            best = np.maximum(best, throw(kept, a.bit_count(), rolls + 1))
        return best

    @cache
    def throw(kept: tuple, k: int, rolls: int) -> np.ndarray:
        total = 0.0
        for out in itertools.product(range(1, 7), repeat=k):
            total = total + state(tuple(sorted(kept + tuple((o, False) for o in out))), rolls)
        return total / 6**k

    return throw((), n_dice, 1)


def _target_columns(n_dice: int, variant: dict, tie_value: float) -> tuple[dict, list]:
    """Per final multiset: 1 above each target, tie_value level with it; plus a poker column."""
    rules = DicePokerRules(n_dice=n_dice, **variant)
    hk = hand_keys(rules)
    idx = np.arange(len(hk.keys))
    value_of = {}
    for f, k in zip(multisets(n_dice), hk.key_of_final, strict=True):
        col = (idx < k) + tie_value * (idx == k)
        value_of[f] = np.append(col, float(rules.rank(f).name == "poker"))
    return value_of, idx


@pytest.mark.parametrize(
    "n_dice, variant, tie_value",
    [
        (5, {}, 0.0),
        (5, {"lock_kept_dice": False}, 1.0),
        (5, {"full_house_tiebreak": "triple", "two_pairs_tiebreak": "high_pair"}, 0.5),
        (6, {}, 0.3),
    ],
)
def test_one_turn_matches_brute_force_for_every_target(n_dice, variant, tie_value):
    value_of, _ = _target_columns(n_dice, variant, tie_value)
    brute = brute_turn(value_of, n_dice, variant.get("lock_kept_dice", True))
    odds = target_odds(n_dice, tie_value, **variant)
    np.testing.assert_allclose(odds.beat + tie_value * odds.tie, brute[:-1], rtol=0, atol=1e-12)
    assert hand_chance("poker", n_dice, **variant) == pytest.approx(brute[-1], abs=1e-14)


def test_yahtzee_within_one_turn_is_the_published_figure():
    # Free re-rolls: the classic chance of a Yahtzee in one turn, 2,783,176 / 6**10.
    assert hand_chance("poker", 5, lock_kept_dice=False) == pytest.approx(
        2_783_176 / 60_466_176, abs=1e-15
    )
    # Freezing the dice kept after roll 1 can only hurt.
    assert hand_chance("poker", 5) < hand_chance("poker", 5, lock_kept_dice=False)


@pytest.mark.parametrize(
    "variant",
    [{}, {"lock_kept_dice": False, "full_house_tiebreak": "triple"}],
)
def test_two_players_recomputed_by_brute_force(variant):
    """Seat 1 chases each target with a tie worth its play-off share x1; seat 0 then
    values a hand at 1 - (seat 1's best value against it). The play-off is the same
    game, so x must be a fixed point: seat 0's brute-force value is x0."""
    x0, x1 = win_probabilities(2, 5, **variant)
    assert x0 + x1 == pytest.approx(1.0, abs=1e-14)
    value_of, _ = _target_columns(5, variant, x1)
    lock = variant.get("lock_kept_dice", True)
    chase = brute_turn(value_of, 5, lock)[:-1]
    hk = hand_keys(DicePokerRules(**variant))
    first = {
        f: np.array([1.0 - chase[k]]) for f, k in zip(multisets(5), hk.key_of_final, strict=True)
    }
    assert brute_turn(first, 5, lock)[0] == pytest.approx(x0, abs=1e-12)


@pytest.mark.parametrize("n_players, n_dice", [(2, 5), (3, 5), (4, 5), (2, 6), (3, 6)])
def test_game_values_sum_to_one_and_the_first_seat_is_worst(n_players, n_dice):
    win = win_probabilities(n_players, n_dice)
    assert len(win) == n_players
    assert sum(win) == pytest.approx(1.0, abs=1e-12)
    # the source: going first is the worst position; each later seat does better
    assert all(a < b for a, b in itertools.pairwise(win))


@pytest.mark.parametrize("n_players", [2, 3])
def test_playoff_is_a_fixed_point(n_players):
    sol = solve_game(n_players, 5)
    # the all-tie play-off replays the same game: its seat values are the answer itself
    np.testing.assert_allclose(sol.playoff[n_players], sol.win, rtol=0, atol=1e-13)
    for t in range(2, n_players):
        np.testing.assert_allclose(sol.playoff[t], win_probabilities(t, 5), atol=0)
    # the last player wins above the best, loses below it, and a tie is worth its
    # place at the end of a play-off of the t holders plus itself
    for t in range(1, n_players):
        u = sol.utility(n_players - 1, 10, t)
        assert (u[11:] == 1).all() and (u[:10] == 0).all()
        assert u[10] == sol.playoff[t + 1][t]


def test_ante_does_not_change_the_solution():
    assert win_probabilities(3, 5, ante=7) == win_probabilities(3, 5)


def test_hand_chance_names_and_predicates():
    assert hand_chance(lambda h: h.name == "poker", 6) == hand_chance("poker", 6)
    # four of a kind or better is at least as likely as five of a kind
    assert hand_chance(lambda h: h.rank >= 5, 5) > hand_chance("poker", 5)
    with pytest.raises(ValueError, match="pentagon"):
        hand_chance("pentagon", 5)


@pytest.mark.parametrize("bad", [1, 0, 2.5])
def test_bad_player_count(bad):
    with pytest.raises(ValueError, match="n_players"):
        win_probabilities(bad)


def _play(agents: list, rules: DicePokerRules, rng: np.random.Generator) -> int:
    game = DicePokerGame(list(range(len(agents))), rng, rules)
    while not game.done:
        seat = game.current_player
        game.step(agents[seat].act(observe(game, seat), game.action_mask()))
    return game.winner


@pytest.mark.parametrize("n_players, n_dice, games", [(2, 5, 2000), (3, 6, 1800)])
def test_simulated_seat_win_rates_match_the_solution(n_players, n_dice, games):
    game_name = "dice_poker" if n_dice == 5 else "dice_poker6"
    agents = [make_agent("optimal", game_name) for _ in range(n_players)]
    rules = DicePokerRules(n_dice=n_dice)
    rng = np.random.default_rng(12345)
    wins = np.bincount([_play(agents, rules, rng) for _ in range(games)], minlength=n_players)
    for seat, p in enumerate(win_probabilities(n_players, n_dice)):
        sigma = sqrt(p * (1 - p) / games)
        assert abs(wins[seat] / games - p) < 4 * sigma, (seat, wins / games, p)


def test_beats_the_heuristic():
    # One optimal player against two heuristic ones, in each position in turn.
    opt, heur = DicePokerOptimal("dice_poker6"), DicePokerHeuristic("dice_poker6")
    rules = DicePokerRules(n_dice=6)
    rng = np.random.default_rng(7)
    games, won = 1500, 0
    for i in range(games):
        agents = [heur, heur, heur]
        agents[i % 3] = opt
        won += _play(agents, rules, rng) == i % 3
    fair = 1 / 3
    # measured edge about +0.06 (0.391 over 3000 games): well clear of two sigmas
    assert won / games > fair + 2 * sqrt(fair * (1 - fair) / games)


def test_agent_in_the_env_plays_legal_moves_and_follows_the_rules_options():
    env = gym.make(
        "DicePoker-v0",
        n_players=3,
        opponents="optimal",
        lock_kept_dice=False,
        full_house_tiebreak="triple",
    )
    me = make_agent("optimal", "dice_poker", lock_kept_dice=False, full_house_tiebreak="triple")
    assert me.rules.lock_kept_dice is False
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = me.act(obs, info["action_mask"])
            assert info["action_mask"][action]
            obs, _, done, _, info = env.step(action)


@pytest.mark.parametrize(
    "first_hand, roll1, move1, roll2, expected",
    [
        # seat 1 already beats a pair of twos outright: stand
        ((2, 2, 1, 3, 4), (6, 6, 1, 2, 3), None, None, 0),
        # only 6 6 6 6 6 beats 5 5 5 5 5: keep the four sixes, re-roll the one (die 0)
        ((5, 5, 5, 5, 5), (1, 6, 6, 6, 6), None, None, 0b00001),
        # kickers don't count: four fives tie whatever the fifth die, so re-roll the 2
        # (free, sorted first) for the 1/6 chance of five fives rather than stand on the tie
        ((5, 5, 5, 5, 1), (1, 1, 1, 5, 5), 0b00111, (5, 5, 2), 0b00001),
        # same, but the kept fives are frozen and only the re-rolled dice may move again
        ((6, 6, 6, 6, 6), (1, 1, 1, 6, 6), 0b00111, (6, 6, 2), 0b00001),
    ],
)
def test_agent_moves_in_clear_positions(faces, first_hand, roll1, move1, roll2, expected):
    game = DicePokerGame([0, 1], np.random.default_rng(0), DicePokerRules(), first_hand)
    game.step(0, faces(5, next_roll=roll1))  # seat 0 stands on its first roll
    if move1 is not None:
        rerolled = [i for i in range(5) if move1 >> i & 1]
        game.step(move1, faces(5, dict(zip(rerolled, roll2, strict=True))))
    agent = DicePokerOptimal("dice_poker")
    assert agent.act(observe(game, 1), game.action_mask()) == expected


@pytest.mark.parametrize("game", ["yahtzee", "card_poker"])
def test_wrong_game(game):
    with pytest.raises(ValueError, match="dice_poker"):
        DicePokerOptimal(game)


@pytest.mark.parametrize(
    "game, variant", [("dice_poker", {}), ("dice_poker6", {"lock_kept_dice": False})]
)
def test_action_values_best_is_the_solved_value_and_the_agents_move(game, variant):
    """Over every first roll of the first seat of two, the best move's chance averages to
    the solved seat value, and the agent's move attains the best."""
    from agents.optimal.dice_poker import action_values
    from envs.rules.dice import multiset_probability

    agent = DicePokerOptimal(game, **variant)
    n = 5 if game == "dice_poker" else 6
    rules = DicePokerRules(n_dice=n, ante=3, **variant)  # the ante changes nothing
    expected = 0.0
    for dice in multisets(n):
        g = DicePokerGame([0, 1], np.random.default_rng(0), rules, chance=dice)
        obs = observe(g, 0)
        values = agent.action_values(obs)
        assert values == action_values(obs, rules)
        assert set(values) == set(np.flatnonzero(g.action_mask()).tolist())
        assert values[agent.act(obs, g.action_mask())] == pytest.approx(max(values.values()))
        expected += multiset_probability(dice) * max(values.values())
    assert expected == pytest.approx(solve_game(2, n, **variant).win[0], abs=1e-12)


@pytest.mark.parametrize(("n_dice", "lock"), [(5, True), (5, False), (6, True)])
def test_optimal_column_reads_decide_as_the_decoded_observation(n_dice, lock):
    """act reads the observation's columns (_lookup_act); _act decodes it first: the same
    move on every situation of a few hundred games (2-4 players, every position)."""
    from envs.dice_poker import observe
    from envs.rules.dice_poker import DicePokerGame, DicePokerRules

    game = "dice_poker" if n_dice == 5 else "dice_poker6"
    agent = make_agent("optimal", game=game, lock_kept_dice=lock)
    rules = DicePokerRules(n_dice=n_dice, lock_kept_dice=lock)
    rng = np.random.default_rng(11)
    decisions = 0
    for k in range(120):
        g = DicePokerGame(list(range(2 + k % 3)), rng, rules)
        while not g.done:
            obs, mask = observe(g, g.current_player), g.action_mask()
            assert agent._lookup_act(obs, mask) == agent._act(obs, mask), obs
            decisions += 1
            legal = np.flatnonzero(mask)
            g.step(int(legal[rng.integers(len(legal))]))
    assert decisions > 400
