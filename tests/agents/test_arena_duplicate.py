"""Duplicate deals in the arena: each block of ``players`` games replays one deal (the same
cards, the same dice roll by roll) with the seats rotated; the same seed, the same result."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import arena
from agents.arena import DuplicateDeal, make_setup, run_arena
from train import benchmark


def _logged_deals(monkeypatch):
    """Every game DuplicateDeal starts, with its block and what it held at the start."""
    log = []
    new_game = DuplicateDeal.new_game

    def logging(self):
        game = new_game(self)
        start = [tuple(h) for h in game.hands] if not self.dice else None
        log.append((self.block, game, start))
        return game

    monkeypatch.setattr(DuplicateDeal, "new_game", logging)
    return log


def _rotations(records, block, players):
    """The agents at each position of a block's games: every rotation of the first."""
    rows = [tuple(r) for r in records.agent[block * players : (block + 1) * players]]
    first = rows[0]
    assert sorted(rows) == sorted(
        tuple(first[(j + r) % players] for j in range(players)) for r in range(players)
    )
    return rows


@pytest.mark.parametrize("deck", [36, 54])
def test_card_deals_replay_the_same_hands_with_the_seats_rotated(deck, monkeypatch):
    log = _logged_deals(monkeypatch)
    res = run_arena(
        "card_poker",
        ["careful", "bluffer", "random"],
        12,
        players=3,
        seed=5,
        progress=False,
        duplicate=True,
        deck=deck,
    )
    assert [b for b, _, _ in log] == [g // 3 for g in range(12)]
    starts = [s for _, _, s in log]
    for block in range(4):
        _rotations(res.records, block, 3)
        games = starts[3 * block : 3 * block + 3]
        assert games[0] == games[1] == games[2]  # position p: the same five cards each time
        assert len({c for hand in games[0] for c in hand}) == 15  # three hands, no overlap
    assert len({s[0] for s in starts[::3]}) == 4  # another deal in every block


def test_dice_deals_replay_the_same_rolls_with_the_seats_rotated(monkeypatch):
    log = _logged_deals(monkeypatch)
    res = run_arena(
        "dice_poker",
        ["heuristic", "optimal", "random"],
        30,
        players=3,
        seed=2,
        progress=False,
        duplicate=True,
    )
    games = [g for _, g, _ in log]
    for block in range(10):
        _rotations(res.records, block, 3)
        firsts = [[sorted(t.rolls[0]) for t in g.rounds[0]] for g in games[3 * block :][:3]]
        assert firsts[0] == firsts[1] == firsts[2]  # each position's first roll
    # common dice: the same choice in the same place meets the same dice
    deal = DuplicateDeal(make_setup("dice_poker", ["heuristic"], 3, True), 2, 0)
    for action in (0b00001, 0b10110):
        a, b = deal.new_game(), deal.new_game()
        deal.step(a, action)
        deal.step(b, action)
        assert a.dice == b.dice and a.current_player == b.current_player
    c = deal.new_game()
    first = sorted(deal.roll(0, 0, 0))
    assert list(c.dice) == first
    deal.step(c, 0b00001)  # die 0 re-rolled comes up face 0 of roll (0, 0, 1)
    assert list(c.dice) == sorted([deal.roll(0, 0, 1)[0], *first[1:]])


@pytest.mark.parametrize(
    "game, spec",
    [("card_poker", "quick"), ("dice_poker", "optimal"), ("dice_poker6", "heuristic")],
)
def test_one_deterministic_player_everywhere_wins_the_same_in_every_rotation(game, spec):
    # Three copies of one deterministic player: a block replays the same cards and dice,
    # so each position ends every game of the block with the same chips.
    res = run_arena(game, [spec], 60, players=3, seed=1, progress=False, duplicate=True)
    v = res.records.value.reshape(20, 3, 3)
    assert (v == v[:, :1]).all()
    plain = run_arena(game, [spec], 60, players=3, seed=1, progress=False)
    w = plain.records.value.reshape(20, 3, 3)
    assert not (w == w[:, :1]).all()  # without duplicate deals they differ


def test_same_seed_same_result_for_any_number_of_workers():
    args = ("card_poker", ["careful", "random"], 330)
    one = run_arena(*args, players=3, seed=3, progress=False, duplicate=True)
    two = run_arena(*args, players=3, seed=3, progress=False, duplicate=True, workers=2)
    again = run_arena(*args, players=3, seed=3, progress=False, duplicate=True)
    for r in (two, again):
        assert np.array_equal(one.records.value, r.records.value)
        assert np.array_equal(one.records.agent, r.records.agent)
    other = run_arena(*args, players=3, seed=4, progress=False, duplicate=True)
    assert not np.array_equal(one.records.value, other.records.value)


def test_intervals_count_blocks():
    res = run_arena(
        "dice_poker", ["optimal", "random"], 60, players=3, seed=0, progress=False, duplicate=True
    )
    v = res.agent_values()
    blocks = v.reshape(20, 3, 2).mean(axis=1)
    row = res.summary()[0]
    mean, lo, hi = arena.mean_interval(blocks[:, 0])
    assert row["chips_per_game"] == pytest.approx(v[:, 0].mean())
    assert row["chips_per_game_ci95"] == pytest.approx([lo, hi])
    assert res.to_json()["duplicate"] is True


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"game": "yahtzee", "specs": ["random"], "n_games": 6}, "duplicate deals are for"),
        ({"game": "card_poker", "specs": ["random"], "n_games": 7, "players": 3}, "multiple of 3"),
    ],
)
def test_duplicate_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_arena(progress=False, duplicate=True, **kwargs)


def test_benchmark_duplicate_smoke(tmp_path, capsys):
    out = tmp_path / "b"
    argv = ["--game", "card_poker", "--agents", "careful", "random", "--players", "3"]
    benchmark.main(
        [
            *argv,
            "--games",
            "12",
            "--duplicate",
            "--out",
            str(out),
            "--no-chart",
            "--no-progress",
            "--workers",
            "1",
        ]
    )
    assert "duplicate deals" in capsys.readouterr().out
    data = json.loads((out / "results.json").read_text())
    assert data["duplicate"] is True and data["games"] == 12
    with pytest.raises(SystemExit):
        benchmark.main([*argv, "--games", "10", "--duplicate", "--out", str(out)])
    assert "multiple of 3" in capsys.readouterr().err
