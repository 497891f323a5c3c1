"""train/ppo.py: a tiny training run, config errors, resume, and loading the model as an agent."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium as gym
import pytest
import yaml

from agents import make_agent
from train.common.config import find_config
from train.ppo import load_config, main

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
    assert sorted(p.name for p in (run_dir / "videos").iterdir()) == ["game_0.gif", "game_1.gif"]
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
    # a finished run is not overwritten by accident: named with --run, it is refused (a
    # plain rerun takes the next free number: tests/train/test_rundir.py)
    with pytest.raises(FileExistsError, match="finished run"):
        main(["--config", str(tiny_config(tmp_path)), "--no-progress", "--run", str(run_dir)])


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
        (lambda d: d.update(trainers={}), r"unknown section\(s\) \['trainers'\]"),
        (lambda d: d.update(trainer={}), r"trainer must be one of \[.*'ppo'.*got \{\}"),
        (lambda d: d.update(trainer="afterstate"), "train it with: python train/afterstate.py"),
        (lambda d: d["env"].update(kwarg={}), r"unknown key\(s\) \['kwarg'\] in .*env"),
        (lambda d: d["env"].update(id="Chess-v0"), "env.id 'Chess-v0'"),
        (
            lambda d: d["ppo"].update(learning_rat=0.1),
            r"unknown key\(s\) \['learning_rat'\] in ppo",
        ),
        (lambda d: d["run"].update(total_steps=5), r"unknown key\(s\) \['total_steps'\] in .*run"),
        (lambda d: d["run"].update(n_envs="four"), "run.n_envs must be a whole number, got 'four'"),
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
            "activation_fn must be one of .*got 'gelu2'",
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
    from train.common.sb3 import ppo_arguments

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
    """Every config names its trainer (``trainer:``) and loads in that script (a value:
    section: the afterstate learner, train/afterstate.py; a league: section: train/league.py;
    a learner: section: the dice-poker hand-value learner, train/handvalue.py; an mmd:
    section: train/mmd.py; else
    train/ppo.py or train/best_response.py); train/ppo.py says in one line which script
    reads a config of another trainer."""
    from train import afterstate, best_response, handvalue, league
    from train.common import mmd
    from train.common.config import CONFIG_DIR

    names = sorted(p.name for p in CONFIG_DIR.glob("*.yaml"))
    assert "quickstart.yaml" in names and "yahtzee_quickstart.yaml" in names
    for name in names:
        sections = yaml.safe_load((CONFIG_DIR / name).read_text())
        trainer = sections["trainer"]
        if "league" in sections:
            assert trainer == "league"
            assert league.load_config(name).run.total_timesteps > 0
        elif "value" in sections:
            assert trainer == "afterstate"
            assert afterstate.load_config(name).run.total_games > 0
        elif "learner" in sections:
            assert trainer == "handvalue"
            assert handvalue.load_config(name).run.total_games > 0
        elif "mmd" in sections:
            assert trainer == "mmd"
            assert mmd.load_config(name).run.total_timesteps > 0
        elif trainer == "best_response":
            assert best_response.load_config(name)[2].total_timesteps > 0
        else:
            assert trainer == "ppo", name
            assert load_config(name).run.total_timesteps > 0
        if trainer != "ppo":  # train/ppo.py reads only its own (ppo.py's main: ("ppo",))
            with pytest.raises(ValueError, match=f"train/{trainer}.py") as err:
                load_config(name, None, None, ("ppo",))
            assert "\n" not in str(err.value)


def test_self_play_pool_feeds_snapshots_back_as_opponents(tmp_path):
    from train.common.sb3 import SnapshotPool

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
    from train.common.sb3 import plot_curve
    from train.config import append_csv

    path = tmp_path / "metrics.csv"
    append_csv(
        path, {"timesteps": 0, "wall_s": 1.0, "heuristic_chips": -0.5, "heuristic_chips_ci95": 0.1}
    )
    append_csv(
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
    path = tiny_config(tmp_path, total_timesteps=64, eval_episodes=2, final_eval_episodes=2)
    run_dir = main(["--config", str(path), "--rule", "lock_kept_dice=false", "--no-progress"])
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["env"]["kwargs"]["lock_kept_dice"] is False
    with pytest.raises(SystemExit) as stop:
        main(["--config", str(path), "--rule", "lock_kept_dice", "--out", str(tmp_path / "x")])
    assert stop.value.code == 2 and "KEY=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# -- every bad config is one line, exit status 2, before anything is created ---------------------


def _set(*keys_and_value):
    """An edit of the config data: ``_set("ppo", "n_steps", "abc")``."""
    *keys, last, value = keys_and_value

    def edit(d):
        for k in keys:
            d = d.setdefault(k, {})
        d[last] = value

    return edit


def _drop(*keys):
    def edit(d):
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]

    return edit


NOT_YAML = "env: {id: DicePoker-v0\nppo: {}\n"
BAD_CONFIGS = [
    # (name, YAML text or an edit of the quickstart data, extra argv, what the line must name)
    ("yaml_unclosed_brace", NOT_YAML, [], ["not valid YAML", "line"]),
    ("yaml_unclosed_list", "env:\n  id: [DicePoker-v0\n", [], ["not valid YAML"]),
    ("yaml_tab_indent", "env:\n\tid: DicePoker-v0\n", [], ["not valid YAML"]),
    ("yaml_top_level_list", "- env\n- ppo\n", [], ["a config is a mapping", "['env', 'ppo']"]),
    ("yaml_scalar", "hello\n", [], ["a config is a mapping", "'hello'"]),
    ("unknown_section", _set("trainers", "x", 1), [], ["trainers"]),
    ("trainer_unknown", _set("trainer", "tpo"), [], ["trainer must be one of", "tpo"]),
    ("trainer_of_another_script", _set("trainer", "league"), [], ["python train/league.py"]),
    ("env_missing", _drop("env"), [], ["env: is missing"]),
    ("env_without_id", _drop("env", "id"), [], ["env.id is missing"]),
    ("env_not_mapping", _set("env", "DicePoker-v0"), [], ["env must be a mapping", "DicePoker"]),
    ("env_id_unknown", _set("env", "id", "Chess-v0"), [], ["env.id", "Chess-v0"]),
    ("env_id_number", _set("env", "id", 5), [], ["env.id", "5"]),
    ("env_kwargs_list", _set("env", "kwargs", [1]), [], ["env.kwargs", "[1]"]),
    ("env_kwarg_unknown", _set("env", "kwargs", "n_player", 3), [], ["env.kwargs", "n_player"]),
    ("env_kwarg_bad_value", _set("env", "kwargs", "n_players", 9), [], ["n_players", "9"]),
    ("env_kwarg_bad_opponent", _set("env", "kwargs", "opponents", "genius"), [], ["genius"]),
    ("env_kwarg_bad_episode", _set("env", "kwargs", "episode", "match"), [], ["episode", "match"]),
    ("ppo_not_mapping", _set("ppo", [1]), [], ["ppo: must be a mapping", "[1]"]),
    ("ppo_unknown_key", _set("ppo", "learning_rat", 0.1), [], ["learning_rat"]),
    ("n_steps_abc", _set("ppo", "n_steps", "abc"), [], ["ppo.n_steps", "'abc'"]),
    ("n_steps_zero", _set("ppo", "n_steps", 0), [], ["ppo.n_steps", "0"]),
    ("n_steps_float", _set("ppo", "n_steps", 1.5), [], ["ppo.n_steps", "1.5"]),
    ("learning_rate_fast", _set("ppo", "learning_rate", "fast"), [], ["learning_rate", "fast"]),
    ("learning_rate_negative", _set("ppo", "learning_rate", -1), [], ["learning_rate", "-1"]),
    ("learning_rate_bad_linear", _set("ppo", "learning_rate", {"linear": [1]}), [], ["linear"]),
    ("learning_rate_cosine", _set("ppo", "learning_rate", {"cosine": [1, 0]}), [], ["cosine"]),
    ("gamma_list", _set("ppo", "gamma", [1]), [], ["ppo.gamma", "[1]"]),
    ("gamma_above_one", _set("ppo", "gamma", 1.5), [], ["ppo.gamma", "1.5"]),
    ("gamma_nan", _set("ppo", "gamma", float("nan")), [], ["ppo.gamma", "nan"]),
    ("net_arch_foo", _set("ppo", "policy_kwargs", "net_arch", "foo"), [], ["net_arch", "'foo'"]),
    ("net_arch_negative", _set("ppo", "policy_kwargs", "net_arch", [64, -1]), [], ["-1"]),
    ("net_arch_bad_head", _set("ppo", "policy_kwargs", "net_arch", {"q": [8]}), [], ["'q'"]),
    ("activation_gelu", _set("ppo", "policy_kwargs", "activation_fn", "gelu2"), [], ["gelu2"]),
    ("policy_kwargs_number", _set("ppo", "policy_kwargs", 5), [], ["policy_kwargs", "5"]),
    ("policy_kwarg_unknown", _set("ppo", "policy_kwargs", "net_archh", [8]), [], ["net_archh"]),
    ("batch_size_one", _set("ppo", "batch_size", 1), [], ["ppo.batch_size", "1"]),
    ("batch_size_bool", _set("ppo", "batch_size", True), [], ["ppo.batch_size", "True"]),
    ("n_epochs_zero", _set("ppo", "n_epochs", 0), [], ["ppo.n_epochs", "0"]),
    ("ent_coef_negative", _set("ppo", "ent_coef", -0.1), [], ["ppo.ent_coef", "-0.1"]),
    ("ent_coef_bad_linear", _set("ppo", "ent_coef", {"linear": [0.1]}), [], ["ppo.ent_coef"]),
    ("clip_range_zero", _set("ppo", "clip_range", 0), [], ["ppo.clip_range", "0"]),
    ("target_kl_text", _set("ppo", "target_kl", "x"), [], ["ppo.target_kl", "'x'"]),
    ("normalize_advantage_yes", _set("ppo", "normalize_advantage", "yes"), [], ["'yes'"]),
    ("max_grad_norm_inf", _set("ppo", "max_grad_norm", float("inf")), [], ["max_grad_norm"]),
    ("run_not_mapping", _set("run", [1]), [], ["run: must be a mapping", "[1]"]),
    ("run_unknown_key", _set("run", "total_steps", 5), [], ["total_steps"]),
    ("n_envs_zero_flag", None, ["--n-envs", "0"], ["run.n_envs", "0"]),
    ("n_envs_text", _set("run", "n_envs", "four"), [], ["run.n_envs", "'four'"]),
    ("eval_every_zero", _set("run", "eval_every", 0), [], ["run.eval_every", "0"]),
    ("checkpoint_every_zero", _set("run", "checkpoint_every", 0), [], ["checkpoint_every", "0"]),
    ("torch_threads_zero", _set("run", "torch_threads", 0), [], ["run.torch_threads", "0"]),
    ("total_timesteps_negative", None, ["--total-timesteps", "-5"], ["total_timesteps", "-5"]),
    ("total_timesteps_zero", _set("run", "total_timesteps", 0), [], ["total_timesteps", "0"]),
    ("total_timesteps_float", _set("run", "total_timesteps", 1e6), [], ["total_timesteps"]),
    ("seed_true", _set("run", "seed", True), [], ["run.seed", "True"]),
    ("seed_negative_flag", None, ["--seed", "-1"], ["run.seed", "-1"]),
    ("eval_episodes_zero", _set("run", "eval_episodes", 0), [], ["run.eval_episodes", "0"]),
    ("eval_episodes_one", _set("run", "eval_episodes", 1), [], ["run.eval_episodes", "1"]),
    ("final_eval_episodes_zero", _set("run", "final_eval_episodes", 0), [], ["final_eval"]),
    ("eval_opponents_string", _set("run", "eval_opponents", "heuristic"), [], ["eval_opponents"]),
    ("eval_opponents_empty", _set("run", "eval_opponents", []), [], ["eval_opponents"]),
    ("eval_opponents_unknown", _set("run", "eval_opponents", ["genius"]), [], ["genius"]),
    ("vec_env_threads", _set("run", "vec_env", "threads"), [], ["run.vec_env", "threads"]),
    ("normalize_obs_yes", _set("run", "normalize_obs", "yes"), [], ["normalize_obs", "'yes'"]),
    ("normalize_reward_1", _set("run", "normalize_reward", 1), [], ["normalize_reward", "1"]),
    ("keep_head_bits", _set("ppo", "policy_kwargs", "keep_head", "bits"), [], ["'bits'"]),
    ("keep_head_mlp", _set("ppo", "policy_kwargs", "keep_head", "factored"), [], ["MlpPolicy"]),
    ("optimizer_sgd", _set("ppo", "policy_kwargs", "optimizer_class", "sgd"), [], ["'sgd'"]),
    ("optimizer_kwargs", _set("ppo", "policy_kwargs", "optimizer_kwargs", [1]), [], ["[1]"]),
    ("pool_size_zero", _set("run", "self_play", "pool_size", 0), [], ["pool_size", "0"]),
    ("snapshot_every_zero", _set("run", "self_play", "snapshot_every", 0), [], ["snapshot"]),
    ("heuristic_share_big", _set("run", "self_play", "heuristic_share", 1.5), [], ["1.5"]),
    ("self_play_unknown_key", _set("run", "self_play", "size", 3), [], ["size"]),
    ("out_is_a_file", None, ["--out", "{file}"], ["out_dir", "a_file"]),
    ("out_under_a_file", None, ["--out", "{file}/runs"], ["out_dir", "a_file"]),
]


@pytest.mark.parametrize(
    ("source", "argv", "names"),
    [case[1:] for case in BAD_CONFIGS],
    ids=[case[0] for case in BAD_CONFIGS],
)
def test_every_bad_config_is_one_line_and_exit_status_2(tmp_path, capsys, source, argv, names):
    from train.ppo import cli

    out = tmp_path / "runs"
    (tmp_path / "a_file").write_text("not a folder\n")
    if isinstance(source, str):
        text = source
    else:
        data = yaml.safe_load(find_config("quickstart.yaml").read_text())
        data["run"]["out_dir"] = str(out)
        if source is not None:
            source(data)
        text = yaml.safe_dump(data)
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    argv = [a.format(file=tmp_path / "a_file") for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        cli(["--config", str(path), "--no-progress", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ppo.py: error: "), err
    for name in names:
        assert name in err, (name, err)
    assert not out.exists()  # nothing was created
    assert (tmp_path / "a_file").read_text() == "not a folder\n"


def test_the_command_line_prints_one_line_and_exits_2(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "bad.yaml"
    path.write_text(NOT_YAML)
    proc = subprocess.run(
        [sys.executable, str(root / "train" / "ppo.py"), "--config", str(path)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not valid YAML" in proc.stderr


# -- kills, damaged files and resume -----------------------------------------------------------


KILL_CONFIG = {
    "env": {"id": "DicePoker-v0", "kwargs": {"n_players": 3, "opponents": "heuristic"}},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [16]}},
    "run": {
        "seed": 0,
        "n_envs": 2,
        "total_timesteps": 3072,
        "eval_every": 128,
        "eval_episodes": 4,
        "eval_opponents": ["random"],
        "final_eval_episodes": 4,
        "checkpoint_every": 128,
        "normalize_obs": True,
        "self_play": {"enabled": True, "snapshot_every": 128, "pool_size": 2},
    },
}


@pytest.mark.heavy
def test_sigkill_at_random_moments_then_resume(tmp_path):
    """Real runs killed with SIGKILL 12 times (at random delays, in the middle of writing a
    file, right after a checkpoint), each time resumed: a resume starts from the newest
    checkpoint on disk (only the steps since it are lost), no whole metrics row is ever
    lost, no evaluation is missing at the end, and every file left is whole."""
    import json
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    config = tmp_path / "kill.yaml"
    config.write_text(
        yaml.safe_dump(
            {**KILL_CONFIG, "run": {**KILL_CONFIG["run"], "out_dir": str(tmp_path / "runs")}}
        )
    )
    log = tmp_path / "log.json"
    driver = root / "tests" / "train" / "kill_driver.py"
    proc = subprocess.run(
        [sys.executable, str(driver), str(config), "12", "7", str(log)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = json.loads(log.read_text())
    run_dir = tmp_path / "runs" / "dice_poker__kill__0"

    resumed = 0
    for k, event in enumerate(events):
        assert event["exit_code"] in (0, None), event["output"]  # killed or finished, never failed
        assert "Traceback" not in event["output"], event["output"]
        if event["resume"]:
            if "resuming" in event["output"]:  # (a kill may come before it says so)
                newest = event["before"]["checkpoints"][-1]
                assert f"from {newest} " in event["output"], (newest, event["output"])
                resumed += 1
            if event["before"]:
                # nothing whole is lost: the rows before this run lead the rows after it
                before, after = event["before"]["metrics"], event["after"]["metrics"]
                assert after[: len(before)] == before, (k, before, after)
    assert sum(e["killed"] for e in events) >= 9 and resumed >= 5
    assert {e["death"] for e in events if e["killed"]} >= {"timer", "mid_save", "after_checkpoint"}
    last = events[-1]
    assert last["exit_code"] == 0 and not last["killed"]

    # the finished run: whole files, every evaluation, no temp file anywhere
    assert not [p for p in run_dir.rglob("*.tmp")]
    for zip_path in [
        run_dir / "model.zip",
        *run_dir.rglob("step_*.zip"),
        *run_dir.rglob("snap_*.zip"),
    ]:
        with zipfile.ZipFile(zip_path) as z:
            assert z.testzip() is None, zip_path
    final = json.loads((run_dir / "final.json").read_text())
    assert final["ppo"]["timesteps"] >= 3072
    assert (run_dir / "curve.png").read_bytes()[:4] == b"\x89PNG"
    steps = {int(r["timesteps"]) for r in rows(run_dir / "metrics.csv")}
    assert set(range(0, 3072 + 1, 128)) <= steps, sorted(steps)
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game="dice_poker")
    assert agent.normalizer is not None


def test_resume_steps_back_over_a_truncated_checkpoint(tmp_path, capsys):
    config = str(tiny_config(tmp_path))
    run_dir = main(["--config", config, "--no-progress"])
    (run_dir / "model.zip").unlink()
    (run_dir / "final.json").unlink()
    newest = run_dir / "checkpoints" / "step_512.zip"
    newest.write_bytes(newest.read_bytes()[:5000])  # what a kill during a plain save leaves
    capsys.readouterr()
    main(["--config", config, "--no-progress", "--resume"])
    captured = capsys.readouterr()
    assert "skipping damaged checkpoint step_512.zip" in captured.err
    assert "from step_256.zip" in captured.out
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(run_dir / "model.zip").num_timesteps >= 512
    assert MaskablePPO.load(newest).num_timesteps == 512  # written again, whole


def test_a_kill_between_checkpoint_and_evaluation_loses_no_evaluation(tmp_path):
    config = str(tiny_config(tmp_path, checkpoint_every=256, eval_every=256))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    # as if killed right after step_256.zip was saved: its evaluation and all after are gone
    metrics = run_dir / "metrics.csv"
    lines = metrics.read_text().splitlines(keepends=True)
    metrics.write_text("".join(lines[:2]))  # header and the step-0 row
    for name in ("model.zip", "final.json"):
        (run_dir / name).unlink()
    main(["--config", config, "--no-progress", "--resume"])
    steps = [int(r["timesteps"]) for r in rows(metrics)]
    assert steps[:3] == [0, 256, 512], steps


def test_a_fresh_start_beside_checkpoints_is_an_error(tmp_path):
    """In the folder named with --run; without it a fresh run takes the next free number
    (tests/train/test_rundir.py)."""
    config = str(tiny_config(tmp_path))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    (run_dir / "model.zip").unlink()  # interrupted
    (run_dir / "final.json").unlink()
    with pytest.raises(FileExistsError, match=r"checkpoints of an unfinished run .*--resume"):
        main(["--config", config, "--no-progress", "--run", str(run_dir)])


def test_metrics_rows_are_appended_and_a_cut_row_is_dropped(tmp_path):
    import os

    from train.config import append_csv, repair_csv

    path = tmp_path / "metrics.csv"
    append_csv(path, {"timesteps": 0, "wall_s": 1.0})
    inode, first = os.stat(path).st_ino, path.read_bytes()
    append_csv(path, {"timesteps": 128, "wall_s": 2.0})
    assert os.stat(path).st_ino == inode and path.read_bytes().startswith(first)  # appended
    with path.open("a") as f:
        f.write("256,3.")  # a kill in the middle of a row
    repair_csv(path)
    assert [r["timesteps"] for r in rows(path)] == ["0", "128"]


@pytest.fixture(scope="module")
def a_model_zip(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    path = tmp_path_factory.mktemp("model") / "model.zip"
    MaskablePPO("MlpPolicy", gym.make("DicePoker-v0"), n_steps=16, batch_size=16).save(path)
    return path


def test_self_play_skips_a_damaged_snapshot(tmp_path, a_model_zip, capsys):
    from train.common.sb3 import SnapshotPool

    pool_dir = tmp_path / "pool"
    pool_dir.mkdir()
    (pool_dir / "snap_000000000128.zip").write_bytes(a_model_zip.read_bytes()[:3000])
    pool = SnapshotPool(pool_dir, "dice_poker", "heuristic", 0.0, 5, rules={})
    for seed in range(5):
        pool.seed(seed)  # no exception: the fixed opponent plays instead
        assert pool.current is pool.fixed
    assert capsys.readouterr().err.count("skipping self-play snapshot") == 1
    env = gym.make("DicePoker-v0", opponents=[pool, "random"])
    obs, info = env.reset(seed=1)
    assert info["action_mask"].any()


def test_self_play_evicts_snapshots_that_left_the_pool(tmp_path, a_model_zip):
    import shutil

    from train.common.sb3 import SnapshotPool

    pool_dir = tmp_path / "pool"
    pool_dir.mkdir()
    pool = SnapshotPool(pool_dir, "dice_poker", "heuristic", 0.0, 2, rules={})
    for step in range(1, 7):
        shutil.copy(a_model_zip, pool_dir / f"snap_{step * 128:012d}.zip")
        for seed in range(6):
            pool.seed(step * 100 + seed)
        newest = sorted(pool_dir.glob("*.zip"))[-2:]
        assert set(pool._loaded) <= set(newest) and len(pool._loaded) <= 2


def test_dice_poker_config_trains_on_the_batched_engine(tmp_path):
    """dice_poker.yaml (self-play pool included) with run.engine: batched, a tiny budget."""
    from agents.tables import BatchedVecEnv
    from train.common.sb3 import make_vec_env

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
    # where the time went: stepping, updating and evaluating, and the training throughput
    assert all(float(final[k]) > 0 for k in ("rollout_s", "update_s", "eval_s", "steps_per_s"))
    assert float(final["rollout_s"]) + float(final["update_s"]) < float(final["wall_s"])


# -- the recipe levers: reward normalisation, the factored keep head, A2C -----------------------


def tiny_scorecard_config(tmp_path, ppo=None, **run):
    data = {
        "trainer": "ppo",
        "env": {"id": "YahtzeeClassic-v0", "kwargs": {"reward_scale": 0.02}},
        "ppo": {
            "policy": "ScorecardPolicy",
            "n_steps": 32,
            "batch_size": 128,
            "n_epochs": 1,
            "gamma": 1.0,
            "policy_kwargs": {"net_arch": [16]},
            **(ppo or {}),
        },
        "run": {
            "seed": 0,
            "engine": "batched",
            "n_envs": 8,
            "total_timesteps": 512,
            "eval_every": 256,
            "eval_episodes": 10,
            "final_eval_episodes": 20,
            "checkpoint_every": 256,
            "record_games": 0,
            "out_dir": str(tmp_path / "runs"),
            **run,
        },
    }
    path = tmp_path / "tiny_scorecard.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_normalized_rewards_train_and_resume_and_the_model_plays_in_points(tmp_path):
    config = str(tiny_scorecard_config(tmp_path, normalize_reward=True))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    from agents.ppo import load_normalizer

    stats = load_normalizer(run_dir / "checkpoints" / "step_256.zip")
    assert stats.norm_reward and not stats.norm_obs
    assert stats.gamma == 1.0 and stats.ret_rms.count > 100  # the config's gamma, and used
    (run_dir / "model.zip").unlink()
    main(["--config", config, "--no-progress", "--resume"])  # the statistics resume too
    metrics = rows(run_dir / "metrics.csv")
    assert int(metrics[-1]["timesteps"]) >= 512
    # evaluations are in the game's points (a scaled or normalised score would be < 10)
    assert all(float(r["score"]) > 30 for r in metrics)
    assert load_normalizer(run_dir / "model.zip").ret_rms.count > stats.ret_rms.count
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game="yahtzee_classic")
    assert agent.normalizer is None  # the observations go in as they are
    env = gym.make("YahtzeeClassic-v0")
    obs, info = env.reset(seed=0)
    assert info["action_mask"][agent.act(obs, info["action_mask"])]


def test_resume_with_other_normalization_is_one_line(tmp_path):
    from train.common.config import ConfigError

    config = str(tiny_scorecard_config(tmp_path, normalize_reward=True))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    (run_dir / "model.zip").unlink()
    flipped = yaml.safe_load(Path(config).read_text())
    flipped["run"]["normalize_obs"] = True
    Path(config).write_text(yaml.safe_dump(flipped))
    with pytest.raises(ConfigError, match=r"run.normalize_obs: False -> True") as err:
        main(["--config", config, "--no-progress", "--resume"])
    assert "\n" not in str(err.value)


def test_factored_keep_head_trains_saves_and_resumes(tmp_path):
    ppo = {"policy_kwargs": {"net_arch": [16], "keep_head": "factored"}}
    config = str(tiny_scorecard_config(tmp_path, ppo))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "256"])
    (run_dir / "model.zip").unlink()
    main(["--config", config, "--no-progress", "--resume"])
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game="yahtzee_classic")
    assert agent.model.policy.keep_head == "factored"
    assert int(rows(run_dir / "metrics.csv")[-1]["timesteps"]) >= 512
    categorical = yaml.safe_load(Path(config).read_text())
    categorical["ppo"]["policy_kwargs"]["keep_head"] = "categorical"
    Path(config).write_text(yaml.safe_dump(categorical))
    with pytest.raises(ValueError, match="keep_head"):  # a resume keeps its network
        main(["--config", config, "--no-progress", "--resume", "--total-timesteps", "1024"])


def test_the_a2c_config_is_masked_a2c():
    """configs/recipe/recipe_a2c.yaml: one gradient step per rollout on the whole rollout,
    a clip range that never binds, no advantage normalisation, RMSprop as SB3's A2C."""
    import torch

    from train.common.sb3 import build_model, make_vec_env

    cfg = load_config("recipe/recipe_a2c.yaml")
    vec = make_vec_env(cfg, 4, 0)
    model = build_model(cfg.ppo, vec, 0)
    assert model.n_epochs == 1 and cfg.ppo["batch_size"] == model.n_steps * cfg.run.n_envs
    assert model.clip_range(1.0) >= 1000 and not model.normalize_advantage
    optimizer = model.policy.optimizer
    assert isinstance(optimizer, torch.optim.RMSprop)
    assert optimizer.defaults["alpha"] == 0.99 and optimizer.defaults["eps"] == 1e-5
    vec.close()


def test_every_recipe_config_loads_and_names_its_lever():
    from train.common.config import CONFIG_DIR

    names = sorted((CONFIG_DIR / "recipe").glob("*.yaml"))
    assert len(names) >= 5
    stems = {p.stem for p in CONFIG_DIR.glob("*.yaml")}
    for path in names:
        cfg = load_config(f"recipe/{path.name}")
        assert cfg.run.total_timesteps > 0 and path.stem not in stems  # own run folders
        assert yaml.safe_load(path.read_text())["trainer"] == "ppo"


def test_an_entropy_schedule_falls_with_the_steps_and_travels_with_the_model(tmp_path):
    from agents.ppo import load_model

    config = str(tiny_scorecard_config(tmp_path, {"ent_coef": {"linear": [0.1, 0.0]}}))
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "1024"])
    # rollouts of 256 steps; a checkpoint is saved inside a rollout, so step_512's value is
    # the one set after the rollout that ended at 256: 0.1 x (1 - 256 / 1024)
    checkpoints = run_dir / "checkpoints"
    assert load_model(checkpoints / "step_512.zip").ent_coef == pytest.approx(0.075)
    assert load_model(checkpoints / "step_768.zip").ent_coef == pytest.approx(0.05)
    model = load_model(run_dir / "model.zip")
    assert model.ent_coef == pytest.approx(0.0)
    # the schedule is saved with the model: a --resume goes on with it (learn_rest)
    assert model.ent_coef_schedule(0.5) == pytest.approx(0.05)
