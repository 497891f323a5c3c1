"""The arena and train/benchmark.py: seating, seeds, intervals, ratings, outputs, CLI errors."""

from __future__ import annotations

import csv
import itertools
import json
import math

import numpy as np
import pytest

from agents.arena import (
    display_name,
    make_setup,
    mean_interval,
    run_arena,
    seat_orders,
    wilson_interval,
)
from train.benchmark import main as benchmark_main


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_seat_orders_rotate_every_entry_through_every_position(n):
    orders = seat_orders(n)
    assert sorted(orders) == sorted(itertools.permutations(range(n)))
    for start in range(0, len(orders), n):
        block = orders[start : start + n]
        for position in range(n):
            assert sorted(order[position] for order in block) == list(range(n))


@pytest.mark.parametrize(
    ("game", "specs", "players", "message"),
    [
        ("chess", ["random"], None, "unknown game 'chess'"),
        ("dice_poker", ["random", "heuristic", "optimal"], 2, "3 agents need at least 3 seats"),
        ("card_poker", ["random"], 1, "players must be 2..6"),
        ("card_poker", ["random"], 7, "players must be 2..6"),
        ("yahtzee", ["random"], 0, "players must be 1..6"),
        ("dice_poker", [], None, "no agents"),
    ],
)
def test_setup_errors(game, specs, players, message):
    with pytest.raises(ValueError, match=message):
        make_setup(game, specs, players)


@pytest.mark.parametrize(
    ("game", "specs", "players", "default"),
    [
        ("dice_poker", ["random"], None, 2),
        ("card_poker", ["random", "careful", "bluffer"], None, 3),
        ("yahtzee", ["random", "heuristic"], None, 1),
        ("dice_poker6", ["random", "heuristic"], 5, 5),
    ],
)
def test_default_players_and_cyclic_seats(game, specs, players, default):
    setup = make_setup(game, specs, players)
    assert setup.players == default
    if not setup.solo:
        assert setup.entries == [k % len(specs) for k in range(default)]


@pytest.mark.parametrize(
    ("specs", "names"),
    [
        (["random", "random", "heuristic"], ("random", "random#2", "heuristic")),
        (["ppo:runs/dice_poker__dice_poker__0/model.zip"], ("ppo:dice_poker__dice_poker__0",)),
        (["ppo:runs/yahtzee__y__1/checkpoints/step_500.zip"], ("ppo:yahtzee__y__1@step_500",)),
        (["ppo:best.zip"], ("ppo:best",)),
    ],
)
def test_agent_names_are_short_and_distinct(specs, names):
    assert make_setup("dice_poker", specs, 3).names == names
    assert display_name(specs[0]) == names[0]


# Small, quick matches for every game: (game, specs, players)
MATCHES = [
    ("dice_poker", ["random", "heuristic"], 3),
    ("dice_poker6", ["random", "random"], 2),
    ("card_poker", ["random", "random", "random"], 3),
    ("yahtzee", ["random", "random"], 1),
    ("yahtzee_classic", ["random", "random"], 3),
]


@pytest.mark.parametrize(("game", "specs", "players"), MATCHES)
def test_same_seed_same_result_for_any_number_of_workers(game, specs, players):
    kw = {"players": players, "progress": False, "chunk_games": 8}
    one = run_arena(game, specs, 20, seed=3, workers=1, **kw)
    two = run_arena(game, specs, 20, seed=3, workers=2, **kw)
    for name in ("agent", "value", "win"):
        np.testing.assert_array_equal(getattr(one.records, name), getattr(two.records, name))
    assert json.dumps(one.to_json()) == json.dumps(two.to_json())
    other = run_arena(game, specs, 20, seed=4, workers=1, **kw)
    assert not np.array_equal(one.records.value, other.records.value)


@pytest.mark.parametrize(("game", "specs", "players"), MATCHES)
def test_records_are_consistent(game, specs, players):
    result = run_arena(game, specs, 12, players=players, progress=False, chunk_games=5)
    rec = result.records
    n_pos = len(specs) if players == 1 else players
    assert rec.value.shape == rec.win.shape == rec.agent.shape == (12, n_pos)
    np.testing.assert_allclose(rec.win.sum(axis=1), 1.0)  # one winner, or shares of one
    if game in ("yahtzee", "yahtzee_classic"):
        upper_and_rows = rec.rows.sum(axis=2) + rec.bonus
        if game == "yahtzee":
            np.testing.assert_array_equal(upper_and_rows, rec.value)
        else:  # classic totals also hold the Yahtzee bonuses
            assert (upper_and_rows <= rec.value).all()
        if players > 1:  # settlements: totals minus the table mean, over every seat
            seats = np.array([result.setup.entries.count(a) for a in range(len(specs))])
            np.testing.assert_allclose(result.agent_settlements() @ seats, 0.0, atol=1e-9)
    else:
        assert (rec.value.sum(axis=1) == 0).all()  # poker is zero-sum
    if players > 1:  # 12 games = whole blocks of rotations: every seat entry in every position
        entries = result.setup.entries
        for a in range(len(specs)):
            assert ((rec.agent == a).sum(axis=0) == 12 * entries.count(a) // players).all()


def test_scorecard_agents_get_the_same_dice():
    # a deterministic agent twice: the same dice make the same games
    result = run_arena("yahtzee", ["heuristic", "heuristic"], 4, progress=False)
    v = result.agent_values()
    np.testing.assert_array_equal(v[:, 0], v[:, 1])
    h2h = result.head_to_head()
    assert h2h["rate"][0][1] == 0.5 and h2h["difference"][0][1] == 0.0
    # and a game's dice do not depend on who plays: heuristic's totals are unchanged
    # when a random agent joins the table
    mixed = run_arena("yahtzee", ["random", "heuristic"], 4, progress=False)
    np.testing.assert_array_equal(mixed.agent_values()[:, 1], v[:, 0])


def _covered(value, interval):
    lo, hi = interval
    return lo <= value <= hi


def test_intervals_cover_the_symmetric_answer():
    # Three random players: by symmetry each wins 1/3 of the games, nets 0 chips and
    # finishes ahead of each other one half the time (ties half).
    hits = {"win": [], "chips": [], "h2h": [], "difference": []}
    for seed in range(20):
        r = run_arena("dice_poker", ["random"] * 3, 60, seed=seed, progress=False)
        h2h = r.head_to_head()
        for a, row in enumerate(r.summary()):
            hits["win"].append(_covered(1 / 3, row["win_rate_ci95"]))
            hits["chips"].append(_covered(0.0, row["chips_per_game_ci95"]))
            for b in range(3):
                if a != b:
                    hits["h2h"].append(_covered(0.5, h2h["ci95"][a][b]))
                    hits["difference"].append(_covered(0.0, h2h["difference_ci95"][a][b]))
    for kind, hit in hits.items():
        assert np.mean(hit) >= 0.85, kind
    # the same intervals exclude a clearly wrong answer
    r = run_arena("dice_poker", ["heuristic", "random", "random"], 120, progress=False)
    assert not _covered(1 / 3, r.summary()[0]["win_rate_ci95"])


def test_intervals_cover_the_symmetric_answer_on_the_same_dice():
    # two random players on the same dice: each scores more than the other half the time
    hits = []
    for seed in range(20):
        r = run_arena("yahtzee_classic", ["random", "random"], 15, seed=seed, progress=False)
        h2h = r.head_to_head()
        hits.append(_covered(0.5, h2h["ci95"][0][1]))
        hits.append(_covered(0.0, h2h["difference_ci95"][0][1]))
        assert h2h["difference"][0][1] == -h2h["difference"][1][0]
    assert np.mean(hits) >= 0.85


@pytest.mark.parametrize(
    ("wins", "n", "expected"),
    [
        (50, 100, (0.4038, 0.5962)),  # the textbook example
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
    ],
)
def test_wilson_interval(wins, n, expected):
    np.testing.assert_allclose(wilson_interval(wins, n), expected, atol=1e-4)


def test_mean_interval():
    mean, lo, hi = mean_interval(np.array([1.0, 3.0]))
    assert mean == 2.0 and math.isclose(hi - mean, 1.959963984540054 * 1.0, rel_tol=1e-12)
    assert math.isnan(mean_interval(np.array([5.0]))[1])


def test_ratings_order_the_agents():
    r = run_arena("dice_poker", ["random", "heuristic"], 120, progress=False)
    random_, heuristic = r.ratings()
    assert heuristic["ordinal"] > random_["ordinal"]
    assert heuristic["mu"] > 25 > random_["mu"]  # openskill starts everyone at mu = 25
    assert (
        r.ratings()
        == run_arena("dice_poker", ["random", "heuristic"], 120, progress=False).ratings()
    )


# -- the command line -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess", "--agents", "random"], "invalid choice: 'chess'"),
        (["--game", "dice_poker", "--agents", "random", "genius"], "unknown agent 'genius'"),
        (
            ["--game", "dice_poker", "--agents", "careful"],
            "agent 'careful' does not exist for game 'dice_poker'",
        ),
        (
            ["--game", "yahtzee", "--agents", "ppo:no/such/model.zip"],
            "no model file at 'no/such/model.zip'",
        ),
        (
            ["--game", "card_poker", "--agents", "random", "careful", "--players", "1"],
            "players must be 2..6",
        ),
        (["--game", "dice_poker", "--agents", "random", "--rule", "lock=1"], "lock"),
        (["--game", "dice_poker", "--agents", "random", "--option", "ante=2"], "unrecognized"),
        (
            ["--game", "yahtzee_classic", "--agents", "random", "--rule", "joker=wild"],
            "joker must be one of",
        ),
        (["--game", "dice_poker", "--agents", "random", "--games", "0"], "--games"),
        (["--game", "dice_poker", "--agents", "random", "--seed", "-1"], "--seed must be"),
        (["--game", "yahtzee", "--agents", "random", "--out", "{file}"], "is a file; give"),
        (["--game", "yahtzee", "--agents", "random", "--out", "{file}/sub"], "is a file, not a"),
        (["--game", "yahtzee", "--agents", "random", "--out", "{folder}"], "there is a folder"),
        (["--game", "dice_poker", "--agents", "random", "--record", "x.avi"], ".gif or .mp4"),
    ],
)
def test_cli_errors_are_one_clear_line(argv, message, capsys, tmp_path, monkeypatch):
    """Every bad argument is one line and exit status 2, before a single game is played."""
    import train.benchmark as bm

    (tmp_path / "a_file").write_text("results of an earlier run\n")
    (tmp_path / "out" / "results.csv").mkdir(parents=True)
    names = {"file": tmp_path / "a_file", "folder": tmp_path / "out"}
    argv = [a.format(**names) for a in argv]
    monkeypatch.setattr(bm, "run_arena", lambda *a, **k: pytest.fail("played before checking"))
    with pytest.raises(SystemExit) as exit_info:
        benchmark_main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert (tmp_path / "a_file").read_text() == "results of an earlier run\n"


@pytest.mark.parametrize(
    ("game", "agents", "column"),
    [
        ("card_poker", ["random", "careful"], "chips/game"),
        ("yahtzee", ["random", "heuristic"], "mean score"),
    ],
)
def test_cli_writes_table_csv_json_and_chart(game, agents, column, tmp_path, capsys):
    argv = ["--game", game, "--agents", *agents, "--games", "6", "--workers", "1"]
    benchmark_main([*argv, "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert column in out and "Head to head" in out
    data = json.loads((tmp_path / "results.json").read_text(), parse_constant=pytest.fail)
    assert data["game"] == game and [row["agent"] for row in data["summary"]] == agents
    with (tmp_path / "results.csv").open() as f:
        assert [row["agent"] for row in csv.DictReader(f)] == agents
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"


def test_benchmark_rule_values_are_typed(tmp_path):
    """``lock_kept_dice=false`` is the boolean False (it was the string "false" once)."""
    argv = ["--game", "dice_poker", "--agents", "random", "heuristic", "--games", "4"]
    argv += ["--workers", "1", "--rule", "lock_kept_dice=false", "--rule", "ante=2", "--no-chart"]
    result = benchmark_main([*argv, "--out", str(tmp_path), "--no-progress"])
    assert dict(result.setup.rule_options) == {"lock_kept_dice": False, "ante": 2}


@pytest.mark.parametrize(("game", "suffix"), [("dice_poker", "gif"), ("yahtzee", "mp4")])
def test_cli_records_one_game(game, suffix, tmp_path):
    from envs.render.record import read_frames

    argv = ["--game", game, "--agents", "random", "heuristic", "--games", "4", "--workers", "1"]
    video = tmp_path / f"game.{suffix}"
    benchmark_main([*argv, "--out", str(tmp_path), "--no-progress", "--record", str(video)])
    frames = read_frames(video)
    assert len(frames) > 3 and len({f.shape for f in frames}) == 1
