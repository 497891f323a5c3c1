"""The console entry points of pyproject.toml (``dicepoker-train`` and the rest) import and
answer ``--help``, as an installed command would."""

from __future__ import annotations

import importlib
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def test_the_entry_points_are_listed():
    assert {"dicepoker-train", "dicepoker-bench", "dicepoker-play", "dicepoker-seeds"} <= set(
        SCRIPTS
    )


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_entry_point_answers_help(name, monkeypatch, capsys):
    module, _, attr = SCRIPTS[name].partition(":")
    entry = getattr(importlib.import_module(module), attr)
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    try:
        entry()
    except SystemExit as done:
        assert done.code in (0, None), f"{name} --help exited {done.code}"
    out = capsys.readouterr().out
    assert "--" in out and len(out.splitlines()) > 3, f"{name} --help printed {out!r}"
