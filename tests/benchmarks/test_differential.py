"""benchmarks/differential.py: every variant group of the three differential tests, run
through the runners the tests run (envs.batched.differential), and the table it prints."""

from __future__ import annotations

import pytest

from benchmarks import differential
from envs.batched.differential import CARD_GROUPS, DICE_FIVE, DICE_SIX, SCORECARD_VARIANTS


def test_every_variant_of_the_differential_tests_is_a_case():
    cases = {name: list(section()) for name, section in differential.SECTIONS.items()}
    assert len(cases["scorecard"]) == len(SCORECARD_VARIANTS)
    assert len(cases["dice_poker"]) == len(DICE_FIVE) + len(DICE_SIX)
    assert len(cases["card"]) == sum(len(c) for c in CARD_GROUPS.values())


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
