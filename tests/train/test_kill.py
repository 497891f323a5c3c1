"""Every trainer survives SIGKILL at any moment: killed again and again (at random delays,
in the middle of writing a file, right after a checkpoint is in place) and resumed each
time, a run ends with the same ``metrics.csv`` rows as an uninterrupted run of the same
seed: one row per evaluation point, none missing, none twice (tests/train/kill_driver.py
does the killing). The hand-value learner plays the same games after a resume, so there
every figure but the wall time matches too.

Budgets are tiny: each trainer's series is about two short runs of training and a few
seconds of startups (about 20-40 s per trainer on a quiet 2-core machine; several times
that under load: the best response's series took 154 s at load 10, hence a limit of 600 s).
Marked ``heavy``.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "train" / "kill_driver.py"

CONFIGS = {
    "ppo": {
        "trainer": "ppo",
        "env": {"id": "DicePoker-v0", "kwargs": {"n_players": 3, "opponents": "heuristic"}},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}},
        "run": {
            "n_envs": 2,
            "total_timesteps": 512,
            "eval_every": 64,  # evaluations between checkpoints: rows a resume must cut
            "eval_episodes": 4,
            "eval_opponents": ["random"],
            "final_eval_episodes": 4,
            "checkpoint_every": 192,
            "record_games": 0,
        },
    },
    "league": {
        "trainer": "league",
        "env": {"id": "CardPoker-v0", "kwargs": {"n_players": 3}},
        "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}},
        "league": {
            "fixed": ["random", "quick"],
            "snapshot_every": 256,
            "pool_size": 1,
            "eval_every": 128,
            "eval_deals": 10,
        },
        "run": {
            "n_envs": 8,
            "total_timesteps": 768,
            "checkpoint_every": 384,
            "final_eval_deals": 10,
        },
    },
    "afterstate": {
        "trainer": "afterstate",
        "env": {"id": "Yahtzee-v0"},
        "value": {"hidden": [8], "batch_size": 32, "updates_per_turn": 1},
        "run": {
            "n_games": 16,
            "total_games": 96,
            "eval_every": 32,
            "eval_games": 8,
            "final_eval_games": 8,
            "checkpoint_every": 48,
            "torch_threads": 1,
        },
    },
    "handvalue": {
        "trainer": "handvalue",
        "env": {"id": "DicePoker-v0", "kwargs": {"n_players": 3, "opponents": "heuristic"}},
        "run": {
            "n_games": 200,
            "total_games": 1600,
            "eval_every": 400,
            "eval_games": 40,
            "final_eval_games": 40,
            "checkpoint_every": 600,
        },
    },
}
# a best response to random players (the ppo config's learner, on the card-poker engine)
CONFIGS["best_response"] = {
    **CONFIGS["ppo"],
    "trainer": "best_response",
    "env": {"id": "CardPoker-v0", "kwargs": {"n_players": 3, "opponents": "random"}},
}
CONFIGS["best_response"]["run"] = {
    **CONFIGS["ppo"]["run"],
    **{"n_envs": 8, "total_timesteps": 768, "eval_every": 128, "checkpoint_every": 384},
}
STEP = {"afterstate": "games", "handvalue": "games"}  # the others count timesteps
# where a trainer's run folders are, under its run.out_dir
FOLDERS = {"best_response": "best_response"}


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.mark.heavy
@pytest.mark.parametrize("trainer", sorted(CONFIGS))
def test_kill_at_random_moments_then_resume_gives_the_uninterrupted_rows(tmp_path, trainer):
    data = {**CONFIGS[trainer]}
    data["run"] = {**data["run"], "out_dir": str(tmp_path / "runs")}
    config = tmp_path / f"kill_{trainer}.yaml"
    config.write_text(yaml.safe_dump(data))
    log = tmp_path / "log.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(DRIVER),
            trainer,
            str(config),
            "6",
            "11",
            str(log),
            str(tmp_path / "ref"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = json.loads(log.read_text())
    for event in events:
        assert event["exit_code"] in (0, None), event["output"]  # killed or finished
        assert "Traceback" not in event["output"], event["output"]
    assert sum(e["killed"] for e in events) >= 2
    assert events[-2]["exit_code"] == 0 and events[-1]["exit_code"] == 0  # finished, reference

    under = FOLDERS.get(trainer, ".")
    runs = list((tmp_path / "runs" / under).iterdir())
    assert len(runs) == 1, runs  # every attempt went on in the one run folder
    killed, reference = runs[0], tmp_path / "ref" / under / runs[0].name
    assert not list(killed.rglob("*.tmp"))
    got, want = rows(killed / "metrics.csv"), rows(reference / "metrics.csv")
    step = STEP.get(trainer, "timesteps")
    assert [r[step] for r in got] == [r[step] for r in want]
    assert len(want) >= 5
    if trainer == "handvalue":  # the same games after a resume: the same figures
        for a, b in zip(got, want, strict=True):
            assert {k: v for k, v in a.items() if k != "wall_s"} == {
                k: v for k, v in b.items() if k != "wall_s"
            }
    final = json.loads((killed / "final.json").read_text())
    assert final["learner"] == trainer
    # every evaluation said its line (with the time left) in the run's log as it happened
    said = [line for line in (killed / "progress.log").read_text().splitlines() if "ETA" in line]
    assert len(said) >= len(want)
