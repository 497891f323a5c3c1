"""train/curves.py: learning curves of several runs and when each reached a level."""

from __future__ import annotations

import pytest

from train.curves import main


def _run(root, name, header, rows):
    d = root / name
    d.mkdir(parents=True)
    lines = [",".join(header)] + [",".join(str(v) for v in r) for r in rows]
    (d / "metrics.csv").write_text("\n".join(lines) + "\n")
    return d


def test_table_and_picture(tmp_path):
    a = _run(
        tmp_path,
        "g__pure__0",
        ["games", "wall_s", "pct_optimal"],
        [(0, 0, 80), (10, 5, 98.5), (20, 9, 99.2)],
    )
    b = _run(
        tmp_path,
        "g__ppo__1",
        ["timesteps", "wall_s", "pct_optimal", "score"],
        [(0, 0, 20), (100, 7, 60)],
    )
    out = tmp_path / "pics" / "c.png"
    text = main([str(a), str(b), "--out", str(out), "--levels", "98", "99"])
    assert "| g__pure__0 | 10 (5) | 20 (9) | 99.20 | 9 |" in text
    assert "| g__ppo__1 | - | - | 60.00 | 7 |" in text
    assert out.read_bytes()[:4] == b"\x89PNG" and out.with_suffix(".md").read_text() == text


def test_bad_runs_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        main([str(tmp_path / "nothing"), "--out", str(tmp_path / "c.png")])
    assert err.value.code == 2 and "no metrics.csv" in capsys.readouterr().err
    chips = _run(tmp_path, "p__x__0", ["timesteps", "wall_s", "random_chips"], [(0, 0, 0.1)])
    with pytest.raises(SystemExit) as err:
        main([str(chips), "--out", str(tmp_path / "c.png")])
    assert err.value.code == 2 and "pct_optimal" in capsys.readouterr().err
    with pytest.raises(SystemExit) as err:
        main([str(chips), "--out", str(tmp_path / "c.gif")])
    assert err.value.code == 2 and "must end in .png" in capsys.readouterr().err
