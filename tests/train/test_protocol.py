"""train.common, the one run protocol: run folders (numbered, never over a tracked file,
--resume the newest), checkpoints that a temporary file is not, the trainer a config names,
the progress lines, final.json, and the bad values every trainer refuses before training
(one line, exit status 2). The moved scripts' old names keep working."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from train.common.config import ConfigError
from train.common.progress import Progress, summary
from train.common.results import learner_result, write_final
from train.common.rundir import Rows, checkpoints, choose_run_dir, save_rows

ROOT = Path(__file__).resolve().parents[2]


def _checkpoint(folder: Path, name: str = "step_128.zip") -> Path:
    (folder / "checkpoints").mkdir(parents=True, exist_ok=True)
    path = folder / "checkpoints" / name
    path.write_bytes(b"x")
    return path


# -- the run folder ------------------------------------------------------------------------


def test_a_taken_folder_gives_the_next_free_number(tmp_path, capsys):
    base = tmp_path / "yahtzee__yahtzee__0"
    assert choose_run_dir(base, False) == (base, [])  # free
    base.mkdir()
    (base / "metrics.csv").write_text("timesteps\n0\n")  # an attempt killed before a checkpoint
    assert choose_run_dir(base, False)[0] == base  # nothing worth keeping: reused
    (base / "final.json").write_text("{}")  # finished
    assert choose_run_dir(base, False)[0] == tmp_path / "yahtzee__yahtzee__0_2"
    assert "is taken (a finished run); this run goes to" in capsys.readouterr().err
    _checkpoint(tmp_path / "yahtzee__yahtzee__0_2")  # unfinished
    assert choose_run_dir(base, False)[0] == tmp_path / "yahtzee__yahtzee__0_3"


def test_resume_continues_the_newest_folder_of_the_name(tmp_path):
    base = tmp_path / "dice_poker__dice_poker__0"
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        choose_run_dir(base, True)
    _checkpoint(base)
    second = tmp_path / "dice_poker__dice_poker__0_2"
    last = _checkpoint(second, "step_256.zip")
    (tmp_path / "dice_poker__dice_poker__0_3").mkdir()  # no checkpoint: not resumable
    assert choose_run_dir(base, True) == (second, [last])
    assert choose_run_dir(base, True, run=base)[0] == base  # --run names it


def test_run_names_the_folder_itself(tmp_path):
    folder = tmp_path / "mine"
    assert choose_run_dir(tmp_path / "other", False, run=folder) == (folder, [])
    _checkpoint(folder)
    with pytest.raises(FileExistsError, match="checkpoints of an unfinished run .*--resume"):
        choose_run_dir(tmp_path / "other", False, run=folder)
    (folder / "final.json").write_text("{}")
    with pytest.raises(FileExistsError, match="already holds a finished run"):
        choose_run_dir(tmp_path / "other", False, run=folder)
    (tmp_path / "a_file").write_text("")
    with pytest.raises(ConfigError, match="is a file"):
        choose_run_dir(tmp_path / "other", False, run=tmp_path / "a_file")


def test_a_run_never_writes_into_a_folder_git_tracks(tmp_path):
    repo = tmp_path / "repo"
    run = repo / "runs" / "yahtzee__yahtzee__0"
    run.mkdir(parents=True)
    (run / "metrics.csv").write_text("timesteps\n0\n")  # committed, no checkpoint
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "a run"], check=True)
    assert choose_run_dir(run, False)[0] == run.with_name("yahtzee__yahtzee__0_2")
    _checkpoint(run)  # even with a checkpoint, --resume does not write there
    with pytest.raises(ConfigError, match="tracked by git"):
        choose_run_dir(run, True)
    with pytest.raises(FileExistsError, match="tracked by git"):
        choose_run_dir(run, False, run=run)


def test_the_committed_run_folder_is_not_written_over():
    """``python train/ppo.py --config yahtzee.yaml`` in this checkout: its run name's folder
    is committed, so a fresh run goes to a numbered one."""
    base = ROOT / "runs" / "yahtzee__yahtzee__0"
    cmd = ["git", "-C", str(ROOT), "ls-files", "--error-unmatch", "runs/yahtzee__yahtzee__0"]
    if not base.is_dir() or subprocess.run(cmd, capture_output=True).returncode != 0:
        pytest.skip("not a checkout with the committed run")
    folder, _ = choose_run_dir(base, False)
    assert folder != base and folder.name.startswith("yahtzee__yahtzee__0_")


def test_the_russian_configs_keep_the_committed_run_names():
    """configs/yahtzee*.yaml say PokerNaKostyah-v0 (Yahtzee-v0 is its old id): the run folder
    is still named by the registered game, so the committed runs are found by their names."""
    from train.common.sb3 import load_config

    for name in ("yahtzee", "yahtzee_normalized"):
        cfg = load_config(f"{name}.yaml")
        assert cfg.env.id == "PokerNaKostyah-v0"
        assert cfg.run_name == f"yahtzee__{name}__0" and (ROOT / "runs" / cfg.run_name).is_dir()


def test_a_temporary_file_or_an_empty_file_is_no_checkpoint(tmp_path, monkeypatch):
    """issue 27, item 1: a seed killed while saving its first checkpoint is started afresh,
    not resumed (train/seeds.py passes --resume only where a checkpoint is)."""
    folder = tmp_path / "run"
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "checkpoints" / ".games_16.pt.4242.tmp").write_bytes(b"half")
    (folder / "checkpoints" / "games_32.pt").write_bytes(b"")
    (folder / "checkpoints" / "games_16.rows.json").write_text('{"rows": 1}')
    assert checkpoints(folder) == []
    assert choose_run_dir(folder, False)[0] == folder  # a fresh run may take it

    from tools import seeds

    calls = []
    monkeypatch.setattr(seeds.subprocess, "call", lambda cmd, **kw: calls.append(cmd) or 0)
    seeds._train("afterstate", "c.yaml", 0, folder, [])
    cmd = calls[0]
    assert "--resume" not in cmd and cmd[cmd.index("--run") + 1] == str(folder)


def test_rows_after_the_checkpoint_stand_for_the_evaluations_made_again(tmp_path):
    metrics = tmp_path / "metrics.csv"
    rows = Rows(metrics, "games")
    for step in (0, 32):
        rows.add({"games": step, "score": step})
    ckpt = tmp_path / "checkpoints" / "games_32.pt"
    ckpt.parent.mkdir()
    save_rows(ckpt, metrics)
    rows.add({"games": 64, "score": 1.0})  # then killed before the checkpoint of 96
    again = Rows(metrics, "games", resume=True, last=ckpt)
    assert [again.add({"games": s, "score": 2.0}) for s in (64, 96, 96)] == [False, True, True]
    lines = metrics.read_text().splitlines()
    assert [line.split(",")[0] for line in lines] == ["games", "0", "32", "64", "96", "96"]
    assert lines[3] == "64,1.0"  # the row written before the kill stays as it was


def test_rows_match_by_evaluation_point_where_a_resume_samples_other_steps(tmp_path):
    """RLlib's resumed run reaches the evaluation points at a few steps more or fewer than
    the killed attempt did: with ``every`` a row stands for the one of its point."""
    metrics = tmp_path / "metrics.csv"
    rows = Rows(metrics, "timesteps", every=1000)
    for step in (0, 1010):
        rows.add({"timesteps": step, "score": 0.0})
    ckpt = tmp_path / "checkpoints" / "step_1010"
    ckpt.parent.mkdir()
    save_rows(ckpt, metrics)
    rows.add({"timesteps": 2030, "score": 1.0})  # then killed before the next checkpoint
    again = Rows(metrics, "timesteps", resume=True, last=ckpt, every=1000)
    assert [again.add({"timesteps": s, "score": 2.0}) for s in (2003, 3001)] == [False, True]
    lines = metrics.read_text().splitlines()
    assert [line.split(",")[0] for line in lines] == ["timesteps", "0", "1010", "2030", "3001"]
    plain = Rows(metrics, "timesteps", resume=True, last=ckpt)  # by step: 2003 is not 2030
    assert plain.add({"timesteps": 2003, "score": 2.0})


# -- config, progress, results -------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "script"),
    [
        ("yahtzee_classic_afterstate.yaml", "afterstate"),
        ("dice_poker_handvalue.yaml", "handvalue"),
        ("card_poker_league.yaml", "league"),
        ("best_response.yaml", "best_response"),
        ("yahtzee.yaml", "ppo"),
    ],
)
def test_the_wrong_script_names_the_right_one_in_one_line(config, script):
    wrong = "league" if script != "league" else "afterstate"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "train" / f"{wrong}.py"), "--config", config],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 2
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith(f"{wrong}.py: error:")]
    assert len(line) == 1 and f"python train/{script}.py --config {config}" in line[0]


def test_dicepoker_train_dispatches_on_the_trainer(monkeypatch):
    from train import cli, handvalue

    seen = []
    monkeypatch.setattr(handvalue, "cli", lambda argv: seen.append(argv))
    cli.main(["--config", "dice_poker_handvalue.yaml", "--seed", "3"])
    assert seen == [["--config", "dice_poker_handvalue.yaml", "--seed", "3"]]
    assert cli.trainer_of("yahtzee.yaml") == "ppo"
    with pytest.raises(SystemExit) as err:
        cli.main(["--config", "no_such_config"])
    assert err.value.code == 2


def test_progress_lines_go_to_stdout_and_the_log_at_once(tmp_path, capsys):
    progress = Progress(tmp_path, 1000, 0, "games")
    progress.start("run")
    text = progress.line(
        500, {"games": 500, "score": 200.0, "score_ci95": 2.5, "pct_optimal": 89.3}
    )
    assert "500/1,000 games: score 200.00 ± 2.50 = 89.30% of the optimum" in text
    assert "elapsed" in text and "ETA" in text
    assert (tmp_path / "progress.log").read_text().splitlines()[-1] == text
    assert text in capsys.readouterr().out
    chips = summary({"heuristic_chips": -0.25, "heuristic_chips_ci95": 0.1, "train_chips": 3})
    assert chips == "vs heuristic -0.250 ± 0.100 chips/game"


def test_final_json_names_its_learner(tmp_path):
    out = write_final(tmp_path, "afterstate", {"score": 1.0}, {"heuristic": {"score": 0.5}})
    assert json.loads((tmp_path / "final.json").read_text()) == out
    assert out["heuristic_in_its_place"] == {"score": 0.5}
    assert learner_result(out) == {"score": 1.0}
    assert learner_result({"ppo": {"score": 2.0}, "optimal": 3.0}) == {"score": 2.0}  # older


# -- bad values, before any training (issue 27, items 6 and 8) ----------------------------


def _write(tmp_path, name: str, edit) -> str:
    data = yaml.safe_load((ROOT / "configs" / name).read_text())
    edit(data)
    path = tmp_path / f"bad_{name}"
    path.write_text(yaml.safe_dump(data))
    return str(path)


A_FILE = "{file}"
BAD = [
    ("afterstate", "yahtzee_classic_afterstate.yaml", None, ["--out", A_FILE], "out_dir"),
    ("handvalue", "dice_poker_handvalue.yaml", None, ["--out", A_FILE], "out_dir"),
    ("league", "card_poker_league.yaml", None, ["--out", A_FILE], "out_dir"),
    ("afterstate", "yahtzee_classic_afterstate.yaml", {"eval_games": 1}, [], "run.eval_games"),
    (
        "afterstate",
        "yahtzee_classic_afterstate.yaml",
        {"final_eval_games": 0},
        [],
        "run.final_eval_games",
    ),
    ("handvalue", "dice_poker_handvalue.yaml", {"eval_games": 1}, [], "run.eval_games must be"),
    ("handvalue", "dice_poker_handvalue.yaml", {"n_games": 10**11}, [], "run.n_games must be at"),
    ("handvalue", "dice_poker_handvalue.yaml", {"n_games": "1e11"}, [], "run.n_games must be"),
]


@pytest.mark.parametrize(("trainer", "config", "run", "argv", "message"), BAD)
def test_bad_values_are_one_line_and_exit_2_before_training(
    tmp_path, capsys, trainer, config, run, argv, message
):
    import importlib

    (tmp_path / "a_file").write_text("not a folder\n")
    out = tmp_path / "runs"

    def edit(data):
        data["run"] = {**(data.get("run") or {}), "out_dir": str(out), **(run or {})}

    path = _write(tmp_path, config, edit)
    argv = [a.replace(A_FILE, str(tmp_path / "a_file")) for a in argv]
    with pytest.raises(SystemExit) as err:
        importlib.import_module(f"train.{trainer}").cli(["--config", path, *argv])
    assert err.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{trainer}.py: error: ")
    assert message in lines[0], lines[0]
    assert not out.exists()  # nothing was created


@pytest.fixture(scope="module")
def card_model(tmp_path_factory):
    """An untrained card-poker PPO model of the default bid range (max_bid 8)."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    path = tmp_path_factory.mktemp("card") / "model.zip"
    MaskablePPO("MlpPolicy", gym.make("CardPoker-v0"), n_steps=16, batch_size=16).save(path)
    return path


def test_benchmark_refuses_a_model_of_another_bid_range(tmp_path, card_model, capsys):
    from tools.benchmark import main

    argv = ["--game", "card_poker", "--agents", f"ppo:{card_model}", "random", "--games", "2"]
    with pytest.raises(SystemExit) as err:
        main([*argv, "--players", "3", "--rule", "max_bid=12", "--out", str(tmp_path / "out")])
    assert err.value.code == 2
    assert "42 actions" in capsys.readouterr().err  # named by the loader or by check_fits


def test_best_response_refuses_a_model_of_another_bid_range(tmp_path, card_model, capsys):
    from train.best_response import main

    with pytest.raises(SystemExit) as err:
        main(["--against", f"ppo:{card_model}", "--rule", "max_bid=12", "--steps", "64",
              "--out", str(tmp_path / "out"), "--no-progress"])  # fmt: skip
    assert err.value.code == 2
    assert "42 actions" in capsys.readouterr().err  # named by the loader or by check_fits
    assert not (tmp_path / "out").exists()


def test_benchmark_refuses_a_hand_value_table_of_other_players(tmp_path, capsys):
    from agents.handvalue import HandValues, save_values
    from tools.benchmark import main

    path = tmp_path / "values.npz"
    save_values(HandValues.new("dice_poker", 3, 0.0, 1.0), path, {"games": 0})
    argv = ["--game", "dice_poker", "--agents", f"handvalue:{path}", "random", "--games", "2"]
    with pytest.raises(SystemExit) as err:
        main([*argv, "--players", "4", "--out", str(tmp_path / "out")])
    assert err.value.code == 2
    assert "3-player rounds; it cannot play at 4 players" in capsys.readouterr().err


def _tiny_ppo(tmp_path, name: str) -> tuple[Path, dict]:
    """A quickstart config of two 64-step rollouts, one evaluation and one checkpoint at
    the end: its path and its data."""
    data = yaml.safe_load((ROOT / "configs" / "quickstart.yaml").read_text())
    data["ppo"].update(n_steps=64, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [8]})
    data["run"] = {
        "n_envs": 2,
        "total_timesteps": 128,
        "eval_every": 128,
        "eval_episodes": 2,
        "final_eval_episodes": 2,
        "checkpoint_every": 128,
        "record_games": 0,
        "out_dir": str(tmp_path / "runs"),
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path, data


def test_resume_with_another_network_is_refused_naming_the_keys(tmp_path):
    from train.ppo import main

    path, data = _tiny_ppo(tmp_path, "net")
    run_dir = main(["--config", str(path), "--no-progress"])
    data["ppo"]["policy_kwargs"]["net_arch"] = [16, 16]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"ppo.policy_kwargs.net_arch: \[8\] -> \[16, 16\]"):
        main(["--config", str(path), "--no-progress", "--resume", "--total-timesteps", "256"])
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["ppo"]["policy_kwargs"] == {
        "net_arch": [8]
    }


# -- the moved scripts' old names ----------------------------------------------------------


def test_moved_modules_keep_their_old_names():
    import importlib

    def name(module: str):
        return importlib.import_module(module)

    assert name("train.benchmark") is name("tools.benchmark")
    assert name("train.playing.base") is name("tools.playing.base")
    assert name("train.play") is name("tools.play")
    assert name("train.config") is name("train.common.config")


def test_resuming_a_finished_but_crashed_run_logs_its_final_line_once(tmp_path):
    # killed after the final evaluation (its row and its line written) but before final.json:
    # --resume measures that evaluation again and keeps the row; the log keeps its one line
    from train.ppo import main

    path, _ = _tiny_ppo(tmp_path, "crash")
    run_dir = main(["--config", str(path), "--no-progress"])
    log = (run_dir / "progress.log").read_text().splitlines()
    (run_dir / "final.json").unlink()
    assert main(["--config", str(path), "--no-progress", "--resume"]) == run_dir
    again = (run_dir / "progress.log").read_text().splitlines()
    evaluations = [line for line in again if "ETA" in line]
    assert evaluations == [line for line in log if "ETA" in line]
    assert [line.startswith("final: ") for line in evaluations] == [False, False, True]
    assert (run_dir / "final.json").exists()
