"""benchmarks/differential.py: every variant group of the three differential tests, run
through the tests' own code, and the table it prints."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks import differential

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "batched"))


def test_every_variant_of_the_differential_tests_is_a_case():
    from test_card_poker_differential import GROUPS
    from test_dice_poker_differential import FIVE, SIX
    from test_scorecard_differential import VARIANTS

    cases = {name: list(section()) for name, section in differential.SECTIONS.items()}
    assert len(cases["scorecard"]) == len(VARIANTS)
    assert len(cases["dice_poker"]) == len(FIVE) + len(SIX)
    assert len(cases["card"]) == sum(len(c) for c in GROUPS.values())


@pytest.mark.parametrize("section", list(differential.SECTIONS))
def test_a_small_case_compares_games_bit_for_bit(section):
    group, run = next(differential.SECTIONS[section]())
    assert run(0.002, 3) >= 1


def test_the_table_and_bad_arguments(capsys, monkeypatch):
    def fake():
        yield "group a", lambda scale, seed: 2 * scale
        yield "group a", lambda scale, seed: 3 * scale
        yield "group b", lambda scale, seed: seed

    monkeypatch.setitem(differential.SECTIONS, "scorecard", fake)
    differential.main(["--only", "scorecard", "--scale", "2", "--seed", "7"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("| group a | 10 |") and lines[3].startswith("| group b | 7 |")
    with pytest.raises(SystemExit):
        differential.main(["--scale", "0"])
