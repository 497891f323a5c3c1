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


def test_code_cites_docs_rules_md_and_only_sections_that_exist():
    """Citations point into the repository: "docs/rules.md section(s) N" with N a numbered
    section of the page; no file outside the repository (a "RULES.md") is cited."""
    root = Path(__file__).resolve().parents[2]
    sections = set(re.findall(r"^## (\d+)\. ", DOC, re.M))
    cited: set[str] = set()
    for path in [root / "README.md", *root.glob("[!.]*/**/*.py")]:
        if "runs" in path.relative_to(root).parts or path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        assert "RULES.md" not in text, f"{path} cites RULES.md, which is not in the repository"
        for numbers in re.findall(r"docs/rules\.md\s+sections?\s+([\d ,and]+)", text):
            cited |= set(re.findall(r"\d+", numbers))
    assert cited and cited <= sections, cited - sections
