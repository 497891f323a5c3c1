"""benchmarks/ab_speed.py: a revision against the working tree, side by side."""

from __future__ import annotations

import argparse
import subprocess

import pytest

from benchmarks import ab_speed


def _worktrees() -> str:
    git = ["git", "-C", str(ab_speed.ROOT), "worktree", "list"]
    return subprocess.run(git, capture_output=True, text=True).stdout


@pytest.mark.heavy
def test_head_against_itself_prints_a_row_per_case():
    before = _worktrees()
    lines = ab_speed.main(
        ["--base", "HEAD", "--case", "YahtzeeClassic-v0::4", "--case", "DicePoker-v0:random:3"]
        + ["--rounds", "1", "--seconds", "0.01"]
    )
    rows = lines[2:]
    assert [r.split(" | ")[0] for r in rows] == [
        "| YahtzeeClassic-v0::4",
        "| DicePoker-v0:random:3",
    ]
    assert all(float(r.split(" | ")[3].rstrip("x |")) > 0 for r in rows)
    assert _worktrees() == before  # the temporary checkout is gone


@pytest.mark.parametrize("text", ["DicePoker-v0:random", "DicePoker-v0:random:0", "x:y:z"])
def test_a_bad_case_is_one_line(text):
    with pytest.raises(argparse.ArgumentTypeError, match="ENV_ID:OPPONENTS:N"):
        ab_speed.parse_case(text)


def test_an_unknown_revision_is_one_line():
    with pytest.raises(SystemExit, match="cannot check out 'no-such-ref'"):
        ab_speed.main(["--base", "no-such-ref", "--case", "YahtzeeClassic-v0::4"])
