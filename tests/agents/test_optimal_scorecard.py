"""The exact scorecard solvers and the optimal player (agents/optimal/scorecard.py).

Checked against: published optimal expected scores of classic Yahtzee; an
independent brute force over dice positions (every re-roll mask, every
outcome) for single turns and for small end games scored by the rules
module; 10,000 simulated games per solved game; the rules module's legality.
The solutions are cached in a temporary folder, never the user's cache.
"""

from __future__ import annotations

import itertools
import math
import os
from functools import cache

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.optimal import _scorecard_classic as classic
from agents.optimal import _scorecard_russian as russian
from agents.optimal import _scorecard_turn as turn
from agents.optimal import scorecard as yz
from envs.rules.dice import outcome_distribution
from envs.rules.scorecard import Scorecard, legal_rows, make_rules

# Published optimal expected scores of solitaire classic Yahtzee (README, "Optimal play"),
# with the tolerance their printed precision allows.
PUBLISHED = [
    # Verhoeff's Optimal Solitaire Yahtzee Player (1999), Glenn's CS-TR-0002 (2006): any open
    # row, joker values once the matching upper row is filled (joker="free"), Yahtzee bonus.
    ({"joker": "free", "yahtzee_bonus": True}, 254.5896, 1e-4),
    # Verhoeff's Yahtzee talk: no Yahtzee bonus and no joker, 245.87 (printed to 2 decimals;
    # independent solvers give 245.870775, which the solver also reproduces to 1e-6).
    ({"joker": "none", "yahtzee_bonus": False}, 245.87, 5e-3),
]
Z_999 = 3.2905  # two-sided 99.9% normal quantile: seeded games, but keep the bar honest


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    old = os.environ.get("DICEPOKER_GYM_CACHE")
    os.environ["DICEPOKER_GYM_CACHE"] = str(tmp_path_factory.mktemp("solutions"))
    yz._MEMORY.clear()
    yield
    yz._MEMORY.clear()
    if old is None:
        del os.environ["DICEPOKER_GYM_CACHE"]
    else:
        os.environ["DICEPOKER_GYM_CACHE"] = old


@pytest.fixture(scope="module")
def russian_solution() -> yz.Solution:
    return yz.solve("russian")


@pytest.fixture(scope="module")
def free_solution() -> yz.Solution:
    return yz.solve("classic", joker="free")


# -- an independent brute force over dice positions -----------------------------------


@cache
def _reroll_targets() -> list[list[np.ndarray]]:
    """For each multiset (as sorted positions) and re-roll mask 1..31: the multiset index of
    every equally likely outcome of re-rolling those positions."""
    code = np.array([6**4, 6**3, 6**2, 6, 1])
    by_code = {int((np.array(d) - 1) @ code): i for i, d in enumerate(turn.DICE)}
    lookup = np.full(6**5, -1)
    lookup[list(by_code)] = list(by_code.values())
    out = []
    for d in turn.DICE:
        per_mask = []
        for mask in range(1, 32):
            pos = [i for i in range(5) if mask >> i & 1]
            outcomes = np.array(list(itertools.product(range(1, 7), repeat=len(pos))))
            dice = np.tile(np.array(d), (len(outcomes), 1))
            dice[:, pos] = outcomes
            per_mask.append(lookup[(np.sort(dice, axis=1) - 1) @ code])
        out.append(per_mask)
    return out


def brute_turn(stop: np.ndarray, stop_first: np.ndarray | None = None) -> float:
    """Expected value of one turn by brute force over positions: every mask, every outcome."""
    targets = _reroll_targets()
    stop_first = stop if stop_first is None else stop_first

    def after(value_next: np.ndarray, stop_now: np.ndarray) -> np.ndarray:
        best = stop_now.copy()
        for i in range(len(turn.DICE)):
            for t in targets[i]:
                best[i] = max(best[i], value_next[t].mean())
        return best

    after2 = after(stop, stop)
    after1 = after(after2, stop_first)
    first = targets[turn.DICE.index((1, 1, 1, 1, 1))][-1]  # re-rolling all five: 7776 rolls
    return float(after1[first].mean())


# -- the turn machinery ------------------------------------------------------------------


def test_transition_rows_are_distributions():
    assert np.allclose(turn.TRANSITION.sum(axis=1), 1.0, atol=1e-12)
    outs, probs = outcome_distribution(5)
    assert np.allclose(turn.FIRST_ROLL[[turn.DICE_INDEX[o] for o in outs]], probs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keep_expectations_equal_the_dense_product(seed):
    after = np.random.default_rng(seed).normal(size=(252, 7))
    assert np.allclose(turn.keep_expectations(after), turn.TRANSITION @ after, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_best_subkeep_equals_subset_enumeration(seed):
    expect = np.random.default_rng(seed).normal(size=(462, 5))
    best = turn.best_subkeep(expect)
    for i, d in enumerate(turn.DICE):
        subsets = {tuple(sorted(d[j] for j in range(5) if m >> j & 1)) for m in range(32)}
        want = expect[[turn.KEEP_INDEX[s] for s in subsets]].max(axis=0)
        assert np.array_equal(best[i], want)


@pytest.mark.parametrize("seed", [0, 1])
def test_best_keep_index_takes_the_lowest_of_tied_keeps(seed):
    # small integers: many exact ties, which must go to the lowest keep index
    expect = np.random.default_rng(seed).integers(0, 4, size=(462, 6)).astype(float)
    arg = turn.best_subkeep_index(expect)
    for i, d in enumerate(turn.DICE):
        subs = turn.subkeeps(d)
        for c in range(expect.shape[1]):
            top = expect[subs, c].max()
            assert arg[i, c] == min(k for k in subs if expect[k, c] == top)


@pytest.mark.parametrize("seed,first", [(0, False), (1, True), (2, True)])
def test_turn_value_equals_positional_brute_force(seed, first):
    rng = np.random.default_rng(seed)
    stop = rng.normal(size=(252, 1))
    stop_first = stop + rng.uniform(0, 2, size=(252, 1)) if first else None
    got = turn.turn_values(stop, stop_first)[0]
    want = brute_turn(stop[:, 0], None if stop_first is None else stop_first[:, 0])
    assert got == pytest.approx(want, abs=1e-12)


def test_chance_of_a_yahtzee_in_one_turn():
    # 2,783,176 / 6^10: the well-known chance of five of a kind within three rolls
    stop = np.array([[float(len(set(d)) == 1)] for d in turn.DICE])
    assert turn.turn_values(stop)[0] == pytest.approx(2_783_176 / 6**10, abs=1e-15)


# -- agreement with the rules module -----------------------------------------------------


@pytest.mark.parametrize("scratch", ["only_if_nothing", "any"])
def test_russian_stage2_legality_matches_the_rules_module(scratch):
    rules = make_rules("russian", scratch=scratch)
    tab = russian.RussianTables(rules)
    rng = np.random.default_rng(3)
    masks = np.r_[[0, 2**11 - 2, 2**11 - 1 - 2**10, 2**10], rng.integers(0, 2**11 - 1, 30)]
    rows = rules.rows[russian.N_UPPER :]
    for mask in masks.tolist():
        legal = np.array([russian.stage2_legal(tab, np.array([mask]), r)[:, 0] for r in range(11)])
        open_rows = [row for j, row in enumerate(rows) if not mask >> j & 1]  # stage 1 done
        for i, d in enumerate(turn.DICE):
            want = set(legal_rows(open_rows, d, rules))
            assert {rows[j] for j in range(11) if legal[j, i]} == want, (mask, d)


@pytest.mark.parametrize("joker", ["forced", "free", "none"])
def test_classic_joker_rows_match_the_rules_module(joker):
    rules = make_rules("classic", joker=joker)
    legal, _ = classic.classic_yahtzee_table(rules)
    for filled in (classic.Y_BIT, classic.Y_BIT | 0b11111, 2**13 - 1 - 1 - 2**6):
        open_rows = [r for k, r in enumerate(rules.rows) if not filled >> k & 1]
        for f in range(1, 7):
            want = set(legal_rows(open_rows, (f,) * 5, rules))
            got = {r for k, r in enumerate(rules.rows) if legal[filled, f - 1] >> k & 1}
            assert got == want


# -- small end games: the solver against a brute force scored by the rules module ---------


def _card(rules, open_rows: set[str], upper: dict[str, int], yahtzee: int | None = None):
    """A card with ``open_rows`` open, the given upper-row scores and 0 in the other rows."""
    scores = []
    for row in rules.rows:
        if row in open_rows:
            scores.append(None)
        elif row in upper:
            scores.append(upper[row])
        elif row == "yahtzee" and yahtzee is not None:
            scores.append(yahtzee)
        else:
            scores.append(0)
    return Scorecard(rules, tuple(scores))


def brute_value(card: Scorecard, memo: dict) -> float:
    """Expected points still to come, by brute force, scored by the rules module."""
    if card.is_complete:
        return 0.0
    russian_stage2 = card.rules.rules == "russian" and card.stage == 2
    key = (card.open_rows, min(card.upper_sum, 63), card.yahtzee_scored, russian_stage2)
    if key in memo:
        return memo[key]
    stops = []
    for first in (False, True):
        stop = np.empty(252)
        for i, d in enumerate(turn.DICE):
            stop[i] = max(
                card.points(row, d, first) + brute_value(card.fill(row, d, first)[0], memo)
                for row in card.legal_rows(d)
            )
        stops.append(stop)
    memo[key] = brute_turn(stops[0], stops[1])
    return memo[key]


CLASSIC_END_GAMES = [
    # forced joker: a Yahtzee of sixes must go in sixes; with 50 in the Yahtzee row, +100
    ("forced", {"sixes", "full_house"}, {"ones": 3, "twos": 6, "threes": 9, "fours": 12}, 50),
    # forced joker with its upper row filled: lower rows score full value
    ("forced", {"small_straight", "large_straight"}, {"fives": 15}, 0),
    # free joker: full house/straights at full value only once the upper row is filled
    ("free", {"full_house", "fours"}, {"ones": 2, "sixes": 24}, 50),
    # no joker; the upper bonus hangs on the last upper row
    (
        "none",
        {"threes", "chance"},
        {"ones": 3, "twos": 8, "fours": 16, "fives": 20, "sixes": 12},
        0,
    ),
    ("forced", {"yahtzee", "chance"}, {"sixes": 30, "fives": 25}, None),
]


@pytest.mark.parametrize("joker,open_rows,upper,yahtzee", CLASSIC_END_GAMES)
def test_classic_end_games_match_brute_force(joker, open_rows, upper, yahtzee):
    rules = make_rules("classic", joker=joker)
    card = _card(rules, open_rows, upper, yahtzee)
    filled = sum(1 << k for k, s in enumerate(card.scores) if s is not None)
    values = classic.solve_classic(rules, within=filled)
    y = int(card.yahtzee_scored)
    got = values[filled, min(card.upper_sum, classic.CAP), y]
    assert got == pytest.approx(brute_value(card, {}), abs=1e-9)


RUSSIAN_END_GAMES = [
    ("only_if_nothing", {"pair", "poker"}),
    ("only_if_nothing", {"chance", "large_straight"}),
    ("any", {"two_pairs", "odd"}),
]


@pytest.mark.parametrize("scratch,open_rows", RUSSIAN_END_GAMES)
def test_russian_stage2_end_games_match_brute_force(scratch, open_rows):
    rules = make_rules("russian", scratch=scratch)
    card = _card(rules, open_rows, {})
    _, stage2 = russian.solve_russian(rules)
    mask = sum(1 << j for j, r in enumerate(rules.rows[6:]) if r not in open_rows)
    assert stage2[mask] == pytest.approx(brute_value(card, {}), abs=1e-9)


@pytest.mark.parametrize(
    "open_rows,upper",
    [
        ({"sixes"}, {"ones": -1, "twos": -2, "threes": 0, "fours": -4, "fives": 5}),
        ({"ones", "fives"}, {"twos": 2, "threes": -3, "fours": 0, "sixes": -6}),
    ],
)
def test_russian_stage1_end_games_match_brute_force(open_rows, upper):
    # stage 2 adds the same stage2[0] to every end of stage 1, so the brute force stops
    # at the end of stage 1 (bonus included) and the solver's value is compared less it
    rules = make_rules("russian")
    card = _card(rules, open_rows | set(rules.rows[6:]), upper)
    stage1, stage2 = russian.solve_russian(rules)
    memo: dict = {}

    def stage1_value(c: Scorecard) -> float:
        if c.stage == 2:
            return 0.0
        key = (c.open_rows, c.upper_sum)
        if key not in memo:
            stop = np.array(
                [
                    max(c.points(r, d) + stage1_value(c.fill(r, d)[0]) for r in c.legal_rows(d))
                    for d in turn.DICE
                ]
            )
            memo[key] = brute_turn(stop)
        return memo[key]

    filled = sum(1 << k for k, r in enumerate(rules.rows[:6]) if r not in open_rows)
    got = stage1[filled, card.upper_sum + russian.OFFSET] - stage2[0]
    assert got == pytest.approx(stage1_value(card), abs=1e-9)


# -- published values and simulation ---------------------------------------------------------


@pytest.mark.heavy
@pytest.mark.parametrize("options,published,tolerance", PUBLISHED)
def test_classic_reproduces_published_expected_score(options, published, tolerance):
    solution = yz.solve("classic", **options)
    assert abs(solution.expected_score - published) < tolerance


@pytest.fixture(scope="module")
def russian_games(russian_solution) -> dict[str, np.ndarray]:
    return yz.simulate(russian_solution, 10_000, seed=2026)


@pytest.mark.parametrize("options", [{"scratch": "only_if_nothing"}, {"scratch": "any"}])
def test_russian_fills_are_scored_as_the_rules_module_scores_them(options):
    # every fill is also made on a Scorecard; any difference in points raises
    games = yz.simulate(yz.solve("russian", **options), 300, seed=1, check_with_rules=True)
    assert games["total"].size == 300


def test_russian_simulation_agrees_with_the_expected_score(russian_solution, russian_games):
    played = russian_games["total"]
    half_width = Z_999 * played.std(ddof=1) / math.sqrt(played.size)
    assert abs(played.mean() - russian_solution.expected_score) < half_width


def test_russian_statistics_agree_with_simulation(russian_solution, russian_games):
    stats = yz.statistics(russian_solution)
    assert stats["mean"] == pytest.approx(russian_solution.expected_score, abs=1e-9)
    played, n = russian_games["total"], russian_games["total"].size
    # within five standard errors of a sample standard deviation (normal approximation)
    assert abs(played.std(ddof=1) - stats["std"]) < 5 * stats["std"] / math.sqrt(2 * n)
    p = stats["p_bonus"]
    assert abs(russian_games["bonus"].mean() - p) < Z_999 * math.sqrt(p * (1 - p) / n)


@pytest.mark.heavy
def test_classic_simulation_agrees_with_the_expected_score(free_solution):
    yz.simulate(free_solution, 200, seed=1, check_with_rules=True)  # raises on a difference
    played = yz.simulate(free_solution, 10_000, seed=2026)["total"]
    half_width = Z_999 * played.std(ddof=1) / math.sqrt(played.size)
    assert abs(played.mean() - free_solution.expected_score) < half_width


# -- the agent ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game,env_id,options,games",
    [
        ("yahtzee", "Yahtzee-v0", {}, 12),
        pytest.param(
            "yahtzee_classic", "YahtzeeClassic-v0", {"joker": "free"}, 4, marks=pytest.mark.heavy
        ),
    ],
)
def test_agent_plays_whole_games_from_observations(game, env_id, options, games, request):
    request.getfixturevalue("free_solution" if game == "yahtzee_classic" else "russian_solution")
    agent = make_agent("optimal", game=game, **options)
    env = gym.make(env_id, **options)
    for seed in range(games):
        obs, info = env.reset(seed=seed)
        ret, done = 0.0, False
        while not done:
            action = agent.act(obs, info["action_mask"])
            assert info["action_mask"][action]
            obs, reward, done, _, info = env.step(action)
            ret += reward
        assert ret == info["total"]


def test_agent_action_follows_the_plan(russian_solution):
    # the first decision of a game: a plan of the empty card decides the same
    agent = make_agent("optimal", game="yahtzee")
    env = gym.make("Yahtzee-v0")
    obs, info = env.reset(seed=5)
    dice = tuple(sorted(int(d) for d in env.unwrapped.game.dice))
    empty = russian_solution.model.state([True] * 17, 0, False)
    plan = russian_solution.turn_plan(empty)
    want = plan.actions(np.array([turn.DICE_INDEX[dice]]), 1)[0]
    assert agent.act(obs, info["action_mask"]) == want


@pytest.mark.parametrize(
    "game,options,error",
    [
        ("yahtzee", {"joker": "free"}, ValueError),
        ("dice_poker", {}, ValueError),
        ("yahtzee", {"rules": "classic"}, ValueError),
        ("yahtzee", {"colour": 1}, TypeError),
    ],
)
def test_agent_rejects_wrong_games_and_options(game, options, error):
    with pytest.raises(error):
        yz.YahtzeeOptimal(game=game, **options)


# -- the cache ---------------------------------------------------------------------------


def test_solution_is_cached_on_disk_and_loads_without_solving(russian_solution, monkeypatch):
    path = yz.cache_path(russian_solution.rules)
    assert path.exists() and f"v{yz.CACHE_VERSION}" in path.name
    assert "scratch=only_if_nothing" in path.name
    yz._MEMORY.clear()

    def no_solving(*args):
        raise AssertionError("solved again although the cache holds the solution")

    monkeypatch.setattr(yz.russian, "solve_russian", no_solving)
    loaded = yz.solve("russian")
    assert loaded.expected_score == russian_solution.expected_score
    assert np.array_equal(loaded.arrays["stage2"], russian_solution.arrays["stage2"])


def test_unreadable_cache_is_solved_again(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEPOKER_GYM_CACHE", str(tmp_path))
    rules = make_rules("russian", scratch="any")
    yz.cache_path(rules).write_bytes(b"not an npz file")
    yz._MEMORY.pop(rules, None)
    with pytest.warns(RuntimeWarning, match="damaged"):
        assert yz.solve(rules).expected_score > 200
    assert yz._load(yz.cache_path(rules), rules) is not None


@pytest.mark.parametrize("xdg", [True, False])
def test_cache_folder_follows_xdg(tmp_path, monkeypatch, xdg):
    monkeypatch.delenv("DICEPOKER_GYM_CACHE", raising=False)
    if xdg:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert yz.cache_dir() == tmp_path / "dicepoker-gym"
    else:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path))
        assert yz.cache_dir() == tmp_path / ".cache" / "dicepoker-gym"


@pytest.mark.parametrize(
    "fixture", ["russian_solution", pytest.param("free_solution", marks=pytest.mark.heavy)]
)
def test_action_values_best_is_the_solved_value_and_the_agents_move(request, scripted, fixture):
    """Over every first roll of an empty card the best action averages to the solved
    score; through a seeded game the agent's move is always a best one."""
    from envs.rules.scorecard import ScorecardGame
    from envs.scorecard import observe

    sol = request.getfixturevalue(fixture)
    finals, probs = outcome_distribution(5)
    expected = 0.0
    for dice, p in zip(finals, probs, strict=True):
        g = ScorecardGame(scripted(dice), sol.rules)
        values = yz.action_values(sol, observe(g), g.action_mask())
        assert set(values) == set(g.legal_actions())
        expected += p * max(values.values())
    assert expected == pytest.approx(sol.expected_score, abs=1e-9)
    agent = make_agent("optimal", "yahtzee" if sol.rules.rules == "russian" else "yahtzee_classic",
                       **sol.rules.options)  # fmt: skip
    g = ScorecardGame(np.random.default_rng(3), sol.rules)
    while not g.done:
        obs, mask = observe(g), g.action_mask()
        values = agent.action_values(obs, mask)
        action = agent.act(obs, mask)
        assert values[action] == pytest.approx(max(values.values()), abs=1e-9)
        g.step(action)
