"""benchmarks/league_speed.py: the table kinds it times and one tiny round of one."""

from __future__ import annotations

import pytest

from benchmarks import league_speed


def test_the_kinds_seat_what_they_name():
    found = league_speed.kinds(6)
    assert list(found) == [
        "2 careful",
        "2 bluffer",
        "2 snapshots",
        "careful+bluffer",
        "quick+random",
        "mix",
    ]
    assert found["2 careful"] == (["careful"], 0) and found["2 snapshots"] == ([], 6)
    assert found["careful+bluffer"] == (["careful", "bluffer"], 0)
    assert found["mix"] == (["random", "careful", "bluffer", "quick"], 6)
    assert sorted(league_speed.SNAPSHOTS.glob("snap_*.zip")), "the committed snapshots"
    against = league_speed.best_responses()
    assert list(against) == ["BR vs league", "BR vs careful"]
    assert against["BR vs careful"] == "careful" and league_speed.LEAGUE_AGENT.exists()


@pytest.mark.heavy
def test_one_round_prints_before_and_after(capsys):
    league_speed.main(["--rounds", "1", "--n-envs", "32", "--only", "2 snapshots"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2 ")]
    assert [r.split(" | ")[1] for r in rows] == ["before", "after"]


@pytest.mark.heavy
def test_one_round_of_a_best_response_prints_its_row(capsys):
    league_speed.main(["--rounds", "1", "--n-envs", "16", "--only", "BR vs league"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| BR")]
    assert [r.split(" | ")[1] for r in rows] == ["agent"]
    assert float(rows[0].split(" | ")[2].replace(",", "")) > 0


def test_an_unknown_kind_is_named(capsys):
    with pytest.raises(SystemExit):
        league_speed.main(["--only", "3 careful"])
    assert "'3 careful'" in capsys.readouterr().err


def test_bad_rounds():
    with pytest.raises(SystemExit):
        league_speed.main(["--rounds", "0"])


def test_base_takes_the_configs_tables(capsys):
    with pytest.raises(SystemExit):
        league_speed.main(["--base", "HEAD", "--n-envs", "8", "--only", "2 careful"])
    assert "leave out --n-envs" in capsys.readouterr().err


def test_an_unknown_base_revision_is_named():
    with pytest.raises(SystemExit, match="cannot read revision 'no-such-revision'"):
        league_speed.main(["--base", "no-such-revision", "--only", "2 careful", "--repeats", "1"])
