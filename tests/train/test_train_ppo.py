"""train/ppo.py: a tiny training run, config errors, resume, and loading the model as an agent."""

from __future__ import annotations

import csv

import gymnasium as gym
import pytest
import yaml

from agents import make_agent
from train.ppo import find_config, load_config, main

TINY_RUN = {
    "seed": 0,
    "n_envs": 2,
    "total_timesteps": 512,
    "eval_every": 256,
    "eval_episodes": 10,
    "eval_opponents": ["heuristic", "random"],
    "final_eval_episodes": 20,
    "checkpoint_every": 256,
}


def tiny_config(tmp_path, **run):
    data = yaml.safe_load(find_config("quickstart.yaml").read_text())
    data["ppo"].update(n_steps=128, batch_size=128, n_epochs=1)
    data["run"] = {**TINY_RUN, "out_dir": str(tmp_path / "runs"), **run}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


def test_train_save_and_play(tmp_path):
    run_dir = main(["--config", str(tiny_config(tmp_path)), "--no-progress"])
    assert run_dir.name == "dice_poker__tiny__0"
    for name in ("model.zip", "config.yaml", "metrics.csv", "curve.png"):
        assert (run_dir / name).is_file(), name
    metrics = rows(run_dir / "metrics.csv")
    assert [int(r["timesteps"]) for r in metrics][0] == 0
    assert int(metrics[-1]["timesteps"]) >= 512
    assert {"heuristic_chips", "heuristic_win_rate", "random_chips"} <= set(metrics[0])
    resolved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert resolved["run"]["total_timesteps"] == 512 and resolved["env"]["id"] == "DicePoker-v0"

    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game="dice_poker")
    env = gym.make("DicePoker-v0", opponents="random")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action]
        obs, _, done, _, info = env.step(action)
    # a finished run is not overwritten by accident
    with pytest.raises(FileExistsError, match="finished run"):
        main(["--config", str(tiny_config(tmp_path)), "--no-progress"])


def test_resume_continues_from_the_last_checkpoint(tmp_path):
    config = str(tiny_config(tmp_path))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    (run_dir / "model.zip").unlink()  # as if the run had been interrupted after its checkpoint
    before = rows(run_dir / "metrics.csv")
    main(["--config", config, "--no-progress", "--resume"])
    after = rows(run_dir / "metrics.csv")
    assert after[: len(before)] == before  # nothing lost
    assert int(after[-1]["timesteps"]) >= 512
    assert float(after[-1]["wall_s"]) >= float(before[-1]["wall_s"])
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(run_dir / "model.zip").num_timesteps >= 512


def test_resume_without_checkpoint_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        main(["--config", str(tiny_config(tmp_path)), "--resume"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(trainer={}), r"unknown section\(s\) \['trainer'\]"),
        (lambda d: d["env"].update(kwarg={}), r"unknown key\(s\) \['kwarg'\] in .*env"),
        (lambda d: d["env"].update(id="Chess-v0"), "env.id 'Chess-v0'"),
        (
            lambda d: d["ppo"].update(learning_rat=0.1),
            r"unknown key\(s\) \['learning_rat'\] in ppo",
        ),
        (lambda d: d["run"].update(total_steps=5), r"unknown key\(s\) \['total_steps'\] in .*run"),
        (lambda d: d["run"].update(n_envs="four"), "run.n_envs must be int, got 'four'"),
        (lambda d: d["run"].update(vec_env="threads"), "vec_env must be 'dummy' or 'subproc'"),
        (lambda d: d["run"].update(self_play={"size": 3}), r"unknown key\(s\) \['size'\]"),
        (lambda d: d["ppo"].update(learning_rate={"cosine": [1, 0]}), "ppo.learning_rate"),
        (
            lambda d: d["run"].update(eval_opponents=["genius"]),
            "run.eval_opponents: unknown agent 'genius'",
        ),
        (
            lambda d: d["run"].update(eval_opponents=["bluffer"]),
            "run.eval_opponents: agent 'bluffer' does not exist for game 'dice_poker'",
        ),
        (
            lambda d: d["ppo"]["policy_kwargs"].update(activation_fn="gelu2"),
            "activation_fn 'gelu2'",
        ),
    ],
)
def test_config_errors_name_the_bad_key(tmp_path, edit, message):
    data = yaml.safe_load(find_config("quickstart.yaml").read_text())
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=message):
        load_config(str(path))


def test_missing_config_lists_the_available_ones():
    with pytest.raises(FileNotFoundError, match=r"available: \[.*'quickstart.yaml'"):
        find_config("nope.yaml")


def test_bare_name_is_looked_up_in_configs():
    cfg = load_config("quickstart.yaml", {"seed": 3})
    assert cfg.run.seed == 3 and cfg.run_name == "dice_poker__quickstart__3"


def test_schedule_becomes_a_callable():
    from train.ppo import ppo_arguments

    args = ppo_arguments({"learning_rate": {"linear": [1.0e-3, 0.0]}})
    assert args["learning_rate"](1.0) == pytest.approx(1e-3)
    assert args["learning_rate"](0.0) == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [(None, FileNotFoundError, "no model file"), (b"not a zip", ValueError, "not a model zip")],
)
def test_broken_model_files(tmp_path, content, error, message):
    path = tmp_path / "model.zip"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error, match=message):
        make_agent(f"ppo:{path}", game="dice_poker")


def test_every_committed_config_loads():
    from train.ppo import CONFIG_DIR

    names = sorted(p.name for p in CONFIG_DIR.glob("*.yaml"))
    assert "quickstart.yaml" in names
    for name in names:
        cfg = load_config(name)
        assert cfg.run.total_timesteps > 0


def test_self_play_pool_feeds_snapshots_back_as_opponents(tmp_path):
    from train.ppo import SnapshotPool

    sp = {"enabled": True, "snapshot_every": 128, "pool_size": 2, "heuristic_share": 0.0}
    run_dir = main(["--config", str(tiny_config(tmp_path, self_play=sp)), "--no-progress"])
    snaps = sorted((run_dir / "pool").glob("*.zip"))
    assert len(snaps) >= 2
    pool = SnapshotPool(run_dir / "pool", "dice_poker", "heuristic", 0.0, 2, rules={})
    pool.seed(0)
    assert pool.current is not pool.fixed  # with no fixed share it always plays a snapshot
    assert str(pool.current.name).endswith(snaps[-1].name) or str(pool.current.name).endswith(
        snaps[-2].name
    )
    env = gym.make("DicePoker-v0", opponents=[pool, "random"])
    obs, info = env.reset(seed=1)
    assert info["action_mask"].any()


def test_metrics_widen_when_a_resumed_run_measures_more(tmp_path):
    from train.ppo import _append_csv, plot_curve

    path = tmp_path / "metrics.csv"
    _append_csv(
        path, {"timesteps": 0, "wall_s": 1.0, "heuristic_chips": -0.5, "heuristic_chips_ci95": 0.1}
    )
    _append_csv(
        path,
        {
            "timesteps": 10,
            "wall_s": 2.0,
            "heuristic_chips": 0.1,
            "heuristic_chips_ci95": 0.1,
            "optimal_chips": -0.2,
            "optimal_chips_ci95": 0.1,
        },
    )
    got = rows(path)
    assert list(got[0]) == [
        "timesteps",
        "wall_s",
        "heuristic_chips",
        "heuristic_chips_ci95",
        "optimal_chips",
        "optimal_chips_ci95",
    ]
    assert got[0]["optimal_chips"] == "" and got[1]["optimal_chips"] == "-0.2"
    cfg = load_config("dice_poker.yaml")
    plot_curve(path, tmp_path / "curve.png", cfg, None)
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_normalized_observations_travel_with_the_model(tmp_path):
    config = str(tiny_config(tmp_path, normalize_obs=True))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    stats = run_dir / "model.vecnormalize.pkl"
    assert stats.is_file()
    assert (run_dir / "checkpoints" / "step_256.vecnormalize.pkl").is_file()
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game="dice_poker")
    assert agent.normalizer is not None and agent.normalizer.obs_rms.count > 1
    env = gym.make("DicePoker-v0")
    obs, info = env.reset(seed=0)
    assert info["action_mask"][agent.act(obs, info["action_mask"])]
    (run_dir / "model.zip").unlink()
    main(["--config", config, "--no-progress", "--resume"])  # the statistics resume too
    assert int(rows(run_dir / "metrics.csv")[-1]["timesteps"]) >= 512
    stats.write_bytes(b"garbage")
    with pytest.raises(ValueError, match="observation statistics"):
        make_agent(f"ppo:{run_dir / 'model.zip'}", game="dice_poker")


def test_rule_flags_override_env_kwargs(tmp_path):
    cfg = load_config("quickstart.yaml", None, {"lock_kept_dice": False, "ante": 2})
    assert cfg.env.kwargs["lock_kept_dice"] is False and cfg.env.kwargs["ante"] == 2
    assert load_config("quickstart.yaml").env.kwargs.get("lock_kept_dice") is None


def test_rule_flag_reaches_the_run_and_a_bad_one_exits_2(tmp_path, capsys):
    path = tiny_config(tmp_path, total_timesteps=0, eval_episodes=2, final_eval_episodes=2)
    run_dir = main(["--config", str(path), "--rule", "lock_kept_dice=false", "--no-progress"])
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["env"]["kwargs"]["lock_kept_dice"] is False
    with pytest.raises(SystemExit) as stop:
        main(["--config", str(path), "--rule", "lock_kept_dice", "--out", str(tmp_path / "x")])
    assert stop.value.code == 2 and "KEY=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_dice_poker_config_trains_on_the_batched_engine(tmp_path):
    """dice_poker.yaml (self-play pool included) with run.engine: batched, a tiny budget."""
    from envs.vector import BatchedVecEnv
    from train.ppo import make_vec_env

    data = yaml.safe_load(find_config("dice_poker.yaml").read_text())
    data["ppo"].update(n_steps=16, batch_size=128, n_epochs=1)
    sp = {"enabled": True, "snapshot_every": 256, "pool_size": 2, "heuristic_share": 0.5}
    run = {**TINY_RUN, "n_envs": 32, "engine": "batched", "self_play": sp}
    data["run"] = {**run, "out_dir": str(tmp_path / "runs")}
    path = tmp_path / "dice_batched.yaml"
    path.write_text(yaml.safe_dump(data))
    cfg = load_config(str(path))
    assert isinstance(make_vec_env(cfg, 4, 0), BatchedVecEnv)
    run_dir = main(["--config", str(path), "--no-progress"])
    final = rows(run_dir / "metrics.csv")[-1]
    assert int(float(final["timesteps"])) >= 512
    assert 0.0 <= float(final["random_win_rate"]) <= 1.0
    assert (run_dir / "model.zip").exists() and sorted((run_dir / "pool").glob("*.zip"))
