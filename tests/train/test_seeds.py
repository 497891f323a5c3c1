"""train/seeds.py: several seeds of one config, skipped once finished, summarised."""

from __future__ import annotations

import json

import pytest
import yaml

from train.seeds import main


def _tiny(tmp_path):
    cfg = {
        "env": {"id": "Yahtzee-v0"},
        "value": {"hidden": [8], "batch_size": 32, "updates_per_turn": 1},
        "run": {
            "n_games": 16,
            "total_games": 16,
            "eval_every": 16,
            "eval_games": 10,
            "final_eval_games": 10,
            "checkpoint_every": 16,
            "torch_threads": 1,
            "out_dir": str(tmp_path / "runs"),
        },
    }
    path = tmp_path / "tiny_afterstate.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_two_seeds_at_once_then_summary_and_no_retraining(tmp_path, capsys):
    path = _tiny(tmp_path)
    summary = main(["afterstate", "--config", str(path), "--seeds", "0", "1", "--parallel", "2"])
    runs = tmp_path / "runs"
    names = ["yahtzee__tiny_afterstate__0", "yahtzee__tiny_afterstate__1"]
    assert list(summary["seeds"]) == names and summary["missing"] == []
    scores = [summary["seeds"][n]["score"] for n in names]
    assert summary["mean_sd"]["score"]["mean"] == pytest.approx(sum(scores) / 2)
    assert summary["mean_sd"]["games"] == {"mean": 16.0, "sd": 0.0}
    assert json.loads((runs / "yahtzee__tiny_afterstate__seeds.json").read_text()) == summary
    table = (runs / "yahtzee__tiny_afterstate__seeds.md").read_text()
    assert "mean ± sd (2 seeds)" in table and table in capsys.readouterr().out
    # a finished seed is not trained again: its files stay as they were
    before = (runs / names[0] / "value.pt").stat().st_mtime_ns
    again = main(["afterstate", "--config", str(path), "--seeds", "0", "1"])
    assert again == summary
    assert (runs / names[0] / "value.pt").stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seeds", "0", "0"], "distinct"),
        (["--seeds", "0", "--parallel", "0"], "--parallel must be >= 1"),
        (["--seeds", "0", "--", "--seed", "3"], "set by seeds.py"),
    ],
)
def test_bad_arguments_exit_2_naming_them(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as err:
        main(["afterstate", "--config", str(_tiny(tmp_path)), *argv])
    assert err.value.code == 2 and message in capsys.readouterr().err


def test_unknown_config_and_nothing_finished(tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        main(["afterstate", "--config", "no_such_config", "--seeds", "0"])
    assert err.value.code == 2 and "no config 'no_such_config'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as err:
        main(["afterstate", "--config", str(_tiny(tmp_path)), "--seeds", "0", "--summary-only"])
    assert err.value.code == 1 and "no seed has finished" in capsys.readouterr().err
