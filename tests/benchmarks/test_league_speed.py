"""benchmarks/league_speed.py: the table kinds it times and one tiny round of one."""

from __future__ import annotations

import pytest

from benchmarks import league_speed


def test_the_kinds_seat_what_they_name():
    found = league_speed.kinds(6)
    assert list(found) == ["2 careful", "2 bluffer", "2 snapshots", "mix"]
    assert found["2 careful"] == (["careful"], 0) and found["2 snapshots"] == ([], 6)
    assert found["mix"] == (["random", "careful", "bluffer", "quick"], 6)
    assert sorted(league_speed.SNAPSHOTS.glob("snap_*.zip")), "the committed snapshots"


@pytest.mark.heavy
def test_one_round_prints_before_and_after(capsys):
    league_speed.main(["--rounds", "1", "--n-envs", "32", "--only", "2 snapshots"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2 ")]
    assert [r.split(" | ")[1] for r in rows] == ["before", "after"]


def test_bad_rounds():
    with pytest.raises(SystemExit):
        league_speed.main(["--rounds", "0"])
