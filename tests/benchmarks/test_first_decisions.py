"""benchmarks/first_decisions.py: a habit shows as one first move, a random player as many."""

from __future__ import annotations

import pytest

from agents import make_agent
from agents.degenerate import AlwaysPass
from benchmarks import first_decisions


def test_a_player_who_always_stands_pat_makes_one_first_move():
    first, distinct = first_decisions.first_decisions(AlwaysPass(), 12, seed=3)
    assert first == {0: 12}
    assert distinct <= 2  # stand pat, then pass


def test_a_random_player_makes_many_and_the_table_counts_every_deal():
    first, _ = first_decisions.first_decisions(make_agent("random", game="card_poker"), 20, seed=3)
    assert sum(first.values()) == 20 and len(first) > 3
    lines = first_decisions.main(["--agents", "random", "careful", "--deals", "4"])
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| random", "| careful"]
    assert all(sum(int(n) for n in _counts(line)) == 4 for line in lines[2:])


def _counts(line: str) -> list[str]:
    """The deal counts of one table row: the numbers in brackets."""
    return [part.split(")")[0] for part in line.split(" | ")[1].split("(")[1:]]


def test_bad_deals():
    with pytest.raises(SystemExit):
        first_decisions.main(["--agents", "random", "--deals", "0"])
