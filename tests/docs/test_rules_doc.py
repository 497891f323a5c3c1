"""docs/rules.md: the five numbered sections the code cites, and every rule option with the
default the code has."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from envs.rules.card_poker import CardPokerRules
from envs.rules.dice_poker import DicePokerRules
from envs.rules.scorecard import ScorecardRules

DOC = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()


def test_the_numbered_sections_stay():
    numbers = re.findall(r"^## (\d+)\. ", DOC, re.M)
    assert numbers == ["1", "2", "3", "4", "5"]


def cell(value) -> str:
    if isinstance(value, bool) or value is None:
        return f"`{value}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return str(value)


@pytest.mark.parametrize(
    "rules, skip",
    [(DicePokerRules(), {"n_dice"}), (CardPokerRules(), set()), (ScorecardRules(), {"rules"})],
)
def test_every_option_is_documented_with_its_default(rules, skip):
    for f in dataclasses.fields(rules):
        if f.name in skip:
            continue
        row = f"| `{f.name}` | {cell(getattr(rules, f.name))} |"
        assert row in DOC, f"docs/rules.md has no row {row!r}"
