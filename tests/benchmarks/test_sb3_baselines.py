"""benchmarks/sb3_baselines.py on a tiny budget: the table and the JSON, every kind of row
(mask-aware policy-gradient and value-based, mask-unaware, recurrent) and both kinds of
game."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchmarks import sb3_baselines


@pytest.fixture
def tiny(monkeypatch):
    """Every algorithm with rollouts of a few steps, so a budget of 64 is a few updates."""
    small = {}
    for name, algo in sb3_baselines.ALGOS.items():
        kwargs = dict(algo.kwargs)
        if "n_steps" in kwargs:
            kwargs.update(n_steps=4, batch_size=16)
        if name in ("PPO", "MaskablePPO", "RecurrentPPO", "TRPO"):
            kwargs["n_epochs" if name != "TRPO" else "n_critic_updates"] = 1
        if "buffer_size" in kwargs:
            kwargs["buffer_size"] = 1_000
        small[name] = dataclasses.replace(algo, n_envs=4, kwargs=kwargs)
    monkeypatch.setattr(sb3_baselines, "ALGOS", small)


def test_tiny_table(tiny, tmp_path, capsys):
    out = tmp_path / "table.md"
    result = sb3_baselines.main(
        [
            "--budget", "64", "--seeds", "1", "--eval-games", "4",
            "--only", "PPO,DQN,QR-DQN,RecurrentPPO,MaskablePPO,MaskableDQN,"
            "yahtzee_classic,dice_poker",
            "--out", str(out),
        ]
    )  # fmt: skip
    runs = result["runs"]
    assert {(r["game"], r["algo"]) for r in runs} == {
        (g, a)
        for g in ("yahtzee_classic", "dice_poker")
        for a in ("PPO", "DQN", "QR-DQN", "RecurrentPPO", "MaskablePPO", "MaskableDQN")
    }
    for r in runs:
        assert r["steps"] >= 64 and r["train_s"] > 0 and 0 <= r["illegal"] <= 1
        assert r["masks"] == r["algo"].startswith("Maskable")
        if r["masks"]:
            assert r["illegal"] == 0
        assert set(r["sampled"]) == {"mean", "ci95"}
    assert result["optimal"]["yahtzee_classic"] == pytest.approx(254.59, abs=0.01)
    assert result["optimal"]["dice_poker"] is None
    assert set(result["references"]["dice_poker"]) == {"heuristic", "optimal", "random"}
    text = out.read_text()
    assert text.count("| yahtzee_classic |") == 6 and text.count("| dice_poker |") == 6
    assert "| aware |" in text and "| unaware |" in text
    assert json.loads(out.with_suffix(".json").read_text())["runs"] == runs
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("[") for line in lines) == 12  # a progress line per run


def test_only_names_what_it_does_not_know(tmp_path):
    with pytest.raises(SystemExit, match="unknown name"):
        sb3_baselines.main(["--only", "PPO,chess", "--out", str(tmp_path / "t.md")])


def test_resume_measures_only_the_missing_runs(tiny, tmp_path, capsys):
    out = tmp_path / "table.md"
    args = ["--budget", "64", "--eval-games", "4", "--only", "PPO,dice_poker", "--out", str(out)]
    first = sb3_baselines.main([*args, "--seeds", "1"])
    with pytest.raises(SystemExit):  # an existing table is never written over unasked
        sb3_baselines.main([*args, "--seeds", "2"])
    capsys.readouterr()
    second = sb3_baselines.main([*args, "--seeds", "2", "--resume"])
    assert [r["seed"] for r in second["runs"]] == [0, 1]
    assert second["runs"][0] == first["runs"][0]  # kept, not measured again
    assert second["references"] == first["references"]
    printed = capsys.readouterr().out
    assert "1 runs kept" in printed and "[1/1] dice_poker PPO seed 1" in printed
    assert json.loads(out.with_suffix(".json").read_text())["runs"] == second["runs"]
    with pytest.raises(SystemExit, match="PPO budget=64 \\(this command: 128\\)"):
        sb3_baselines.main(["--budget", "128", *args[2:], "--resume"])


def _untimed(record: dict) -> list[dict]:
    """The runs without their wall times (the only thing two measurements may differ in)."""
    return [
        {k: v for k, v in r.items() if k not in ("train_s", "train_cpu_s", "eval_s")}
        for r in record["runs"]
    ]


def test_a_killed_table_resumed_is_the_table_in_one_go(tiny, tmp_path, monkeypatch):
    args = ["--budget", "64", "--seeds", "2", "--eval-games", "4"]
    args += ["--only", "PPO,MaskableDQN,dice_poker,yahtzee_classic"]
    whole = sb3_baselines.main([*args, "--out", str(tmp_path / "whole.md")])
    assert len(whole["runs"]) == 8

    out = tmp_path / "killed.md"
    run_one, calls = sb3_baselines.run_one, []

    def killed_at_the_fourth(*a, **k):
        calls.append(a)
        if len(calls) == 4:
            raise KeyboardInterrupt  # as a Ctrl-C or a kill in the middle of a run
        return run_one(*a, **k)

    monkeypatch.setattr(sb3_baselines, "run_one", killed_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        sb3_baselines.main([*args, "--out", str(out)])
    assert len(json.loads(out.with_suffix(".json").read_text())["runs"]) == 3
    monkeypatch.setattr(sb3_baselines, "run_one", run_one)
    resumed = sb3_baselines.main([*args, "--out", str(out), "--resume"])
    assert _untimed(resumed) == _untimed(whole)
    assert resumed["references"] == whole["references"]

    def untimed_table(path):  # the markdown rows less their two wall-time cells
        rows = [line.split("|") for line in path.read_text().splitlines() if "| dice_poker" in
                line or "| yahtzee_classic" in line]  # fmt: skip
        return [row[:-3] for row in rows]

    assert untimed_table(out) == untimed_table(tmp_path / "whole.md")


def test_the_header_says_what_differs_from_sb3(tmp_path, tiny):
    out = tmp_path / "t.md"
    sb3_baselines.main(
        ["--budget", "64", "--seeds", "1", "--eval-games", "4", "--only", "PPO,DQN,dice_poker",
         "--out", str(out)]
    )  # fmt: skip
    text = out.read_text()
    assert "| PPO | 64 | 4 | n_steps=4, batch_size=16, n_epochs=1 |" in text
    value_based = ", ".join(f"{k}={v}" for k, v in sb3_baselines.VALUE_BASED.items())
    assert f"| DQN | 64 | 4 | {value_based}, buffer_size=64 |" in text  # the buffer: the budget
    assert text.startswith("`python benchmarks/sb3_baselines.py --budget 64")


def test_estimate_predicts_each_row_and_writes_nothing(tiny, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = sb3_baselines.main(
        ["--estimate", "64", "--seeds", "3", "--eval-games", "4", "--only", "A2C,QR-DQN,dice_poker"]
    )
    printed = capsys.readouterr().out
    per_run = [float(line.split("= ")[1].split(" min")[0]) for line in printed.splitlines()
               if "min per run" in line]  # fmt: skip
    assert len(per_run) == 2 and "dice_poker: references" in printed
    assert (
        out["predicted_s"]["wall"] > 0 < out["predicted_s"]["cpu"] and "predicted table:" in printed
    )
    assert "1,000,000 steps + eval" in printed and "100,000 steps + eval" in printed
    assert not list(tmp_path.iterdir())


def test_the_masked_dqn_row_is_scaled_as_dqn():
    """MaskableDQN and DQN differ only in the masks: the same games, replay start and
    buffer (scaled to the budget alike by Algo.build)."""
    dqn, masked = sb3_baselines.ALGOS["DQN"], sb3_baselines.ALGOS["MaskableDQN"]
    assert masked.masked and not dqn.masked
    assert (masked.n_envs, masked.kwargs, masked.policy, masked.budget) == (
        dqn.n_envs, dqn.kwargs, dqn.policy, dqn.budget
    )  # fmt: skip


def test_resume_takes_new_settings_only_for_rows_not_yet_measured(tiny, tmp_path, monkeypatch):
    args = ["--budget", "64", "--seeds", "1", "--eval-games", "4", "--only", "PPO,A2C,dice_poker"]
    args += ["--out", str(tmp_path / "t.md")]
    run_one = sb3_baselines.run_one

    def killed_at_a2c(algo, *a, **k):
        if algo.name == "A2C":
            raise KeyboardInterrupt
        return run_one(algo, *a, **k)

    monkeypatch.setattr(sb3_baselines, "run_one", killed_at_a2c)
    with pytest.raises(KeyboardInterrupt):
        sb3_baselines.main(args)
    monkeypatch.setattr(sb3_baselines, "run_one", run_one)
    algos = sb3_baselines.ALGOS
    monkeypatch.setitem(algos, "A2C", dataclasses.replace(algos["A2C"], n_envs=2))
    record = sb3_baselines.main([*args, "--resume"])
    assert [r["algo"] for r in record["runs"]] == ["PPO", "A2C"]
    assert record["settings"]["A2C"]["n_envs"] == 2
    monkeypatch.setitem(algos, "PPO", dataclasses.replace(algos["PPO"], n_envs=2))
    with pytest.raises(SystemExit, match="PPO n_envs=4 \\(this command: 2\\)"):
        sb3_baselines.main([*args, "--resume"])


def test_seed_by_seed_and_recurrent_ppo_once(tiny, tmp_path):
    """The runs go seed by seed (every row's first seed before any second), and
    RecurrentPPO runs only its ``max_seeds`` of them."""
    out = tmp_path / "table.md"
    result = sb3_baselines.main(
        ["--budget", "64", "--eval-games", "4", "--seeds", "2",
         "--only", "PPO,RecurrentPPO,dice_poker", "--out", str(out)]
    )  # fmt: skip
    assert [(r["algo"], r["seed"]) for r in result["runs"]] == [
        ("PPO", 0), ("RecurrentPPO", 0), ("PPO", 1)
    ]  # fmt: skip
    assert "| dice_poker | RecurrentPPO | unaware | 64 | 1 |" in out.read_text()


def test_a_row_runs_only_on_its_games(tiny, tmp_path):
    result = sb3_baselines.main(
        ["--budget", "64", "--eval-games", "4", "--seeds", "1",
         "--only", "PPO,RecurrentPPO,card_poker", "--out", str(tmp_path / "t.md")]
    )  # fmt: skip
    assert not sb3_baselines.ALGOS["RecurrentPPO"].runs_on("card_poker")
    assert [r["algo"] for r in result["runs"]] == ["PPO"]


@pytest.mark.parametrize("mode", ["penalize", "terminate"])
def test_the_unaware_rows_train_with_the_given_mode_and_penalty(tiny, tmp_path, monkeypatch, mode):
    built = []
    vec_env = sb3_baselines.BatchedVecEnv

    def recorded(*a, **k):
        built.append(k)
        return vec_env(*a, **k)

    monkeypatch.setattr(sb3_baselines, "BatchedVecEnv", recorded)
    out = tmp_path / "table.md"
    args = ["--budget", "64", "--seeds", "1", "--eval-games", "4", "--out", str(out)]
    unaware = ["--unaware-penalty", "-50", "--unaware-training", mode]
    result = sb3_baselines.main([*args, "--only", "PPO,MaskablePPO,dice_poker", *unaware])
    assert sb3_baselines.EVAL_SEED != 0
    training = [k for k in built if k["seed"] == 0]  # the evaluations' envs: EVAL_SEED
    assert len(training) == 2
    assert {"illegal_action": mode, "illegal_penalty": -50.0}.items() <= training[0].items()
    assert training[1]["illegal_action"] == "raise" and "illegal_penalty" not in training[1]
    assert result["unaware_penalty"] == -50.0 and result["unaware_training"] == mode
    assert f'illegal_action="{mode}" (-50 per illegal action' in out.read_text()
    with pytest.raises(SystemExit, match="unaware_penalty=-50.0 \\(this command: -1.0\\)"):
        sb3_baselines.main([*args, "--only", "PPO,dice_poker", "--resume",
                            "--unaware-training", mode])  # fmt: skip
    other = {"penalize": "terminate", "terminate": "penalize"}[mode]
    with pytest.raises(SystemExit, match=f"unaware_training={mode} \\(this command: {other}\\)"):
        sb3_baselines.main([*args, "--only", "PPO,dice_poker", "--resume",
                            "--unaware-penalty", "-50", "--unaware-training", other])  # fmt: skip
