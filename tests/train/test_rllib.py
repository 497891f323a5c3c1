"""train/rllib.py, envs/rllib.py and agents/rllib.py (the ``[rllib]`` extra).

Skipped where ray is not installed (the main venv). ``.ci/run`` runs this file in a second
venv with ``DICEPOKER_REQUIRE_RLLIB=1``, where a missing ray is an error, not a skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

if os.environ.get("DICEPOKER_REQUIRE_RLLIB") == "1":
    import ray  # noqa: F401  (must be there)
else:
    pytest.importorskip("ray.rllib")

import gymnasium as gym  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.rllib import RLlibAgent  # noqa: E402
from agents.tables import play_games  # noqa: E402
from envs.rllib import NextStepVectorEnv, TurnTable, make_env, masked_space  # noqa: E402
from train import rllib as train_rllib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SCORECARD = {
    "env": {"id": "YahtzeeClassic-v0", "kwargs": {"reward_scale": 0.02}},
    "ppo": {"n_steps": 64},  # train/ppo.py's section: ignored here
    "rllib": {
        "lr": 3.0e-4,
        "train_batch_size_per_learner": 256,
        "minibatch_size": 128,
        "num_epochs": 1,
        "gamma": 1.0,
        "lambda": 0.95,
        "model": {"fcnet_hiddens": [32, 32]},
    },
    "run": {
        "seed": 0,
        "n_envs": 8,
        "total_timesteps": 512,
        "eval_every": 256,
        "eval_episodes": 8,
        "final_eval_episodes": 8,
        "checkpoint_every": 256,
    },
}

DICE_LEAGUE = {
    "env": {"id": "DicePoker-v0", "kwargs": {"n_players": 3, "opponents": "heuristic"}},
    "rllib": {
        "train_batch_size_per_learner": 128,
        "minibatch_size": 64,
        "num_epochs": 1,
        "gamma": 1.0,
        "model": {"fcnet_hiddens": [16, 16]},
    },
    "run": {
        "seed": 0,
        "total_timesteps": 256,
        "eval_every": 128,
        "eval_episodes": 8,
        "eval_opponents": ["heuristic", "random"],
        "final_eval_episodes": 8,
        "checkpoint_every": 128,
        "self_play": {"enabled": True, "snapshot_every": 128, "pool_size": 2},
    },
}


def write(tmp_path, data, name="tiny.yaml", **run):
    data = {**data, "run": {**data["run"], "out_dir": str(tmp_path / "runs"), **run}}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


# -- the envs, without a Ray runtime -----------------------------------------------------------


def test_vector_env_is_next_step_and_loses_no_reward():
    vec = make_env({"kind": "vector", "env_id": "YahtzeeClassic-v0", "kwargs": {}, "num_envs": 3})
    assert isinstance(vec, NextStepVectorEnv)
    assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    assert vec.single_observation_space == masked_space(
        vec.single_observation_space["observations"], 45
    )
    rng = np.random.default_rng(0)
    obs, _ = vec.reset(seed=1)
    returns, episode, finished, just_ended = np.zeros(3), np.zeros(3), 0, np.zeros(3, bool)
    while finished < 6:
        mask = obs["action_mask"] > 0.5
        assert obs in vec.observation_space
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        obs, rewards, terminated, truncated, _ = vec.step(actions)
        assert not truncated.any()
        # the step after a finished game is its reset: no reward, not done, a fresh card
        assert (rewards[just_ended] == 0).all() and not terminated[just_ended].any()
        assert (obs["action_mask"][just_ended, 1:32] == 1).all()
        episode += rewards
        for g in np.flatnonzero(terminated):
            # the terminal observation is the finished card, and every point was paid
            assert not (obs["action_mask"][g] > 0).any()
            assert episode[g] == vec.engine.total[g]
            returns[g] += episode[g]
            episode[g] = 0
            finished += 1
        just_ended = terminated


def test_vector_env_rejects_an_illegal_action_naming_it():
    vec = NextStepVectorEnv("YahtzeeClassic-v0", 2)
    obs, _ = vec.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"][0] == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {bad} in game 0"):
        vec.step(np.array([bad, 0]))


def test_vector_env_checks_every_action_before_anything_moves():
    """Issue 27, defect 9: float actions are refused, not cast; an illegal action of a running
    game is refused before a finished game is reset, so nothing moves."""
    vec = NextStepVectorEnv("YahtzeeClassic-v0", 2)
    obs, _ = vec.reset(seed=0)
    with pytest.raises(ValueError, match="integer array"):
        vec.step(np.array([1.0, 1.0]))
    rng = np.random.default_rng(0)
    terminated = np.zeros(2, dtype=bool)
    while terminated.sum() != 1:  # until exactly one game has just ended
        assert not terminated.all(), "both games ended together; pick another seed"
        mask = obs["action_mask"] > 0.5
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        obs, _, terminated, _, _ = vec.step(actions)
    done, other = int(np.flatnonzero(terminated)[0]), int(np.flatnonzero(~terminated)[0])
    bad = int(np.flatnonzero(obs["action_mask"][other] == 0)[0])
    actions = np.zeros(2, dtype=np.int64)
    actions[other] = bad
    before = vec.engine.total.copy()
    with pytest.raises(ValueError, match=f"illegal action {bad} in game {other}"):
        vec.step(actions)
    assert vec.engine.done[done], "the finished game was reset although nothing may move"
    assert (vec.engine.total == before).all()
    actions[other] = int(np.flatnonzero(obs["action_mask"][other])[0])
    obs, rewards, terminated, _, _ = vec.step(actions)  # now its reset, and the other's move
    assert rewards[done] == 0 and not terminated[done] and not vec.engine.done[done]


def _vector(env_id, num_envs, **options):
    """NextStepVectorEnv with the registry's default opponents seated, as make_env seats them."""
    from envs import seat_options

    return NextStepVectorEnv(env_id, num_envs, **seat_options(env_id, options, batched=True))


def test_vector_env_checks_its_seed_and_seeds_game_i_with_seed_i():
    """Issue 27, defect 7, on RLlib's vector env: a bad seed is one clear line and nothing
    changes; a list seeds game i with seed[i] (envs.vector.seed_engine)."""
    vec = _vector("DicePoker-v0", 3)
    first, _ = vec.reset(seed=[4, 5, 6])
    for bad, says in (
        (True, "got True"),
        ([1, 2], "seed lists 2 seeds for 3 games"),
        ([1, 2.5, 3], r"\(e.g. 2.5\)"),
        (-1, "got -1"),
    ):
        with pytest.raises(ValueError, match=says):
            vec.reset(seed=bad)
    alone, _ = _vector("DicePoker-v0", 1).reset(seed=[5])
    for key in first:
        np.testing.assert_array_equal(first[key][1], alone[key][0])


def _always(action, n):
    return np.full(n, action, dtype=np.int64)


def test_vector_env_takes_illegal_action_like_every_env():
    """Issue 23's illegal_action on RLlib's vector env: "terminate" ends the game with the
    penalty and the next step restarts it; "penalize" pays it and truncates after
    max_illegal_steps; "raise" stays the default; a bad option is refused up front."""
    vec = _vector("YahtzeeClassic-v0", 2, illegal_action="terminate", illegal_penalty=-3.0)
    obs, _ = vec.reset(seed=0)
    legal = int(np.flatnonzero(obs["action_mask"][1])[0])
    obs, rewards, terminated, truncated, infos = vec.step(np.array([0, legal]))  # 0: illegal
    assert terminated.tolist() == [True, False] and not truncated.any()
    assert rewards[0] == -3.0 and infos["illegal_action"].tolist() == [True, False]
    # game 0 restarts (its action is not read); action 0 is illegal in game 1 too
    obs, rewards, terminated, _, infos = vec.step(np.array([0, 0]))
    assert rewards.tolist() == [0.0, -3.0] and terminated.tolist() == [False, True]
    assert infos["illegal_action"].tolist() == [False, True]
    vec = _vector(
        "CardPoker-v0", 2, illegal_action="penalize", illegal_penalty=-1, max_illegal_steps=3
    )
    obs, _ = vec.reset(seed=0)
    bad = int(np.flatnonzero(~(obs["action_mask"] > 0).any(axis=0))[0])  # illegal at both
    for step in range(3):
        obs, rewards, terminated, truncated, _ = vec.step(_always(bad, 2))
        assert (rewards == -1).all() and not terminated.any()
        assert truncated.all() == (step == 2)
    raising = NextStepVectorEnv("YahtzeeClassic-v0", 2)
    raising.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 0 in game 0"):
        raising.step(np.array([0, 0]))
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        NextStepVectorEnv("YahtzeeClassic-v0", 2, illegal_action="ignore")
    kwargs = {"illegal_action": "terminate"}
    env = make_env({"kind": "vector", "env_id": "DicePoker-v0", "num_envs": 2, "kwargs": kwargs})
    assert env._illegal.illegal.mode == "terminate"


def test_single_env_carries_its_mask():
    env = make_env({"kind": "single", "env_id": "CardPoker-v0", "kwargs": {"n_players": 3}})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    for _ in range(200):
        assert obs in env.observation_space
        assert (obs["action_mask"] == env.unwrapped.action_masks()).all()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize(
    ("game", "kwargs"),
    [("dice_poker", {"n_players": 3}), ("card_poker", {"n_players": 3})],
)
def test_turn_table_pays_every_seat_its_chips(game, kwargs):
    table = make_env({"kind": "table", "game": game, "kwargs": kwargs})
    assert isinstance(table, TurnTable)
    rng = np.random.default_rng(0)
    complete = 0
    for episode in range(30):
        obs, _ = table.reset(seed=episode)
        paid = dict.fromkeys(table.possible_agents, 0.0)
        while True:
            (agent,) = obs  # only the seat to act sees an observation
            assert obs[agent] in table.observation_spaces[agent]
            mask = obs[agent]["action_mask"] > 0.5
            obs, rewards, terminated, truncated, _ = table.step(
                {agent: int(rng.choice(np.flatnonzero(mask)))}
            )
            for a, r in rewards.items():
                paid[a] += r
            if terminated["__all__"]:
                break
            assert not truncated["__all__"]
        match = table.aec.unwrapped.match
        chips = match.chips if game == "dice_poker" else match.net
        for a in obs:  # every seat that acted: its final observation and all its chips
            assert terminated[a] and paid[a] == chips[table.possible_agents.index(a)]
        if len(obs) == len(table.possible_agents):
            assert sum(paid.values()) == 0
            complete += 1
    assert complete > 0


def test_turn_table_refuses_single_agent_options():
    with pytest.raises(ValueError, match=r"\['opponents'\] belong to the single-agent env"):
        TurnTable("dice_poker", opponents="heuristic")


def test_masked_module_never_prefers_or_samples_an_illegal_action():
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib import MaskedPPOModule

    space = masked_space(gym.spaces.Box(-1, 1, (4,), np.float32), 6)
    module = RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=space,
        action_space=gym.spaces.Discrete(6),
        model_config={"fcnet_hiddens": [8]},
    ).build()
    rng = np.random.default_rng(0)
    masks = (rng.random((500, 6)) < 0.3).astype(np.float32)
    masks[np.arange(500), rng.integers(6, size=500)] = 1
    masks[0] = 0  # a terminal observation: nothing legal, numbers still finite
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(rng.uniform(-1, 1, (500, 4)).astype(np.float32)),
            "action_mask": torch.as_tensor(masks),
        }
    }
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert torch.isfinite(logits).all()
        dist = module.get_exploration_action_dist_cls().from_logits(logits[1:])
        sampled = dist.sample().numpy()
        assert masks[1 + np.arange(499), sampled].all()
    values = module.compute_values(dict(batch))
    assert values.shape == (500,)


# -- configs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rllib", "message"),
    [
        ({"learning_rate": 0.1}, "unknown key 'learning_rate' in tiny.yaml: rllib"),
        ({"model": {"hidden": [8]}}, r"unknown key\(s\) \['hidden'\] in tiny.yaml: rllib.model"),
        ({"num_env_runners": 2}, "num_env_runners is set by train/rllib.py"),
        ({"model": [8]}, "rllib.model must be a mapping"),
    ],
)
def test_config_errors_name_the_key(tmp_path, rllib, message):
    path = write(tmp_path, {**SCORECARD, "rllib": rllib})
    with pytest.raises(ValueError, match=message):
        train_rllib.load_config(str(path))


def test_config_errors_from_the_shared_sections(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['n_env'\] in tiny.yaml: run"):
        train_rllib.load_config(str(write(tmp_path, SCORECARD, n_env=2)))
    with pytest.raises(ValueError, match="normalize_obs is not supported"):
        train_rllib.load_config(str(write(tmp_path, SCORECARD, normalize_obs=True)))
    league = {**DICE_LEAGUE, "env": {"id": "DicePoker-v0", "kwargs": {"opponents": "nobody"}}}
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        train_rllib.load_config(str(write(tmp_path, league)))
    # the same file, rllib: section and all, is a train/ppo.py config too
    from train.ppo import load_config as ppo_load_config

    assert ppo_load_config(str(write(tmp_path, SCORECARD))).ppo == {"n_steps": 64}


def test_main_exits_with_one_line_on_a_bad_config(tmp_path):
    path = write(tmp_path, {**SCORECARD, "rllib": {"lr_typo": 1}})
    out = subprocess.run(
        [sys.executable, "train/rllib.py", "--config", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]
    assert out.stderr.startswith("rllib.py: error: unknown key 'lr_typo'")


def test_importing_agents_does_not_import_ray():
    code = (
        "import sys, agents; agents.make_agent('random', 'dice_poker'); "
        "assert 'ray' not in sys.modules, 'ray was imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_rllib_spec_errors():
    with pytest.raises(FileNotFoundError, match="no RLlib model at 'nowhere'"):
        make_agent("rllib:nowhere", "dice_poker")
    with pytest.raises(ValueError, match="is not an RLlib model"):
        make_agent(f"rllib:{ROOT / 'configs'}", "dice_poker")


# -- training runs (a local Ray instance, then a two-node cluster) -----------------------------


def test_scorecard_run_checkpoint_agent_and_resume(tmp_path, capsys, monkeypatch):
    run_dir = train_rllib.main(["--config", str(write(tmp_path, SCORECARD))])
    assert run_dir.name == "yahtzee_classic__tiny-rllib__0"
    for name in ("config.yaml", "metrics.csv", "curve.png", "final.json", "model"):
        assert (run_dir / name).exists(), name
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    bonus = "upper_bonus_rate,upper_bonus_rate_ci95,yahtzee_bonuses,yahtzee_bonuses_ci95"
    assert rows[0] == f"timesteps,wall_s,score,score_ci95,pct_optimal,{bonus}" and len(rows) >= 4
    checkpoints = sorted(p for p in (run_dir / "checkpoints").glob("step_*") if p.is_dir())
    # the trained policy plays anywhere an agent does: batched games, the arena
    for spec in (f"rllib:{run_dir}", f"rllib:{run_dir / 'model'}", f"rllib:{checkpoints[-1]}"):
        agent = make_agent(spec, "yahtzee_classic")
        totals = play_games(agent.act_batch, "YahtzeeClassic-v0", 4, seed=0)
        assert (totals > 0).all()
    monkeypatch.chdir(run_dir.parent)  # a relative path works too
    assert isinstance(make_agent(f"rllib:{run_dir.name}", "yahtzee_classic"), RLlibAgent)
    from agents.arena import run_arena

    result = run_arena("yahtzee_classic", [f"rllib:{run_dir}", "random"], 2, progress=False)
    assert result.n_games == 2
    with pytest.raises(ValueError, match="trained on observations of shape"):
        make_agent(f"rllib:{run_dir}", "dice_poker").act_batch(np.zeros((1, 7)), np.ones((1, 32)))
    with pytest.raises(FileExistsError, match="already holds a finished run"):
        train_rllib.main(["--config", str(tmp_path / "tiny.yaml")])
    # --resume continues from the last checkpoint to the new total
    capsys.readouterr()
    train_rllib.main(
        ["--config", str(tmp_path / "tiny.yaml"), "--resume", "--total-timesteps", "1024"]
    )
    assert f"from {checkpoints[-1].name}" in capsys.readouterr().out
    more = (run_dir / "metrics.csv").read_text().splitlines()
    assert len(more) > len(rows) and int(more[-1].split(",")[0]) >= 1024


def test_dice_poker_league_run_and_agent(tmp_path):
    run_dir = train_rllib.main(["--config", str(write(tmp_path, DICE_LEAGUE))])
    header = (run_dir / "metrics.csv").read_text().splitlines()[0]
    assert header.startswith("timesteps,wall_s,heuristic_chips,heuristic_chips_ci95")
    # the league: a frozen snapshot in the last checkpoint is main as it was one checkpoint before
    from ray.rllib.core.rl_module.rl_module import RLModule

    steps = (p for p in (run_dir / "checkpoints").glob("step_*") if p.is_dir())  # no rows.json
    checkpoints = sorted(steps, key=lambda p: int(p.name[5:]))
    first, last = checkpoints[-2:]

    def weights(checkpoint, mid):
        folder = checkpoint / "learner_group" / "learner" / "rl_module" / mid
        return RLModule.from_checkpoint(folder).get_state()

    def same(a, b):
        return all(torch.equal(torch.as_tensor(a[k]), torch.as_tensor(b[k])) for k in a)

    assert not same(weights(first, "main"), weights(last, "main"))
    assert any(same(weights(last, s), weights(first, "main")) for s in ("snap_0", "snap_1"))
    agent = make_agent(f"rllib:{run_dir}", "dice_poker")
    assert isinstance(agent, RLlibAgent)
    env = gym.make("DicePoker-v0", n_players=3)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
        done = terminated or truncated
    # in train/play.py: a table against the trained policy, from scripted input
    from train.play import main as play_main

    out = __import__("io").StringIO()
    lines = iter(["stand"] * 50)
    code = play_main(
        ["--game", "dice_poker", "--opponents", f"rllib:{run_dir}", "--seed", "0"],
        lambda: next(lines),
        out,
        echo=True,
    )
    assert code == 0, out.getvalue()


def test_card_poker_league_with_two_fixed_players(tmp_path):
    # RLlib's own env check would step the table with an unmasked random action (an illegal
    # draw in card poker): the league must start and train all the same
    league = {
        **DICE_LEAGUE,
        "env": {
            "id": "CardPoker-v0",
            "kwargs": {"n_players": 3, "opponents": ["heuristic", "bluffer"]},
        },
    }
    run = {"total_timesteps": 128, "eval_opponents": ["bluffer"]}
    run_dir = train_rllib.main(["--config", str(write(tmp_path, league, **run))])
    modules = run_dir / "checkpoints"
    (last,) = sorted(p for p in modules.glob("step_*") if p.is_dir())
    names = {p.name for p in (last / "learner_group" / "learner" / "rl_module").iterdir()}
    assert {"main", "snap_0", "snap_1", "fixed_heuristic", "fixed_bluffer"} <= names
    assert isinstance(make_agent(f"rllib:{run_dir}", "card_poker"), RLlibAgent)


def test_two_node_cluster_runs_env_runners_on_both_nodes(tmp_path, capsys):
    from ray.cluster_utils import Cluster

    # one CPU per node and one per env runner: the two env runners must sit on both nodes
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        argv = ["--config", str(write(tmp_path, SCORECARD, n_envs=4, total_timesteps=256))]
        train_rllib.main([*argv, "--address", cluster.address, "--num-env-runners", "2"])
    finally:
        cluster.shutdown()
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("env runners on nodes:"))
    assert len(set(line.split(":", 1)[1].split())) == 2, line


# -- killed at random moments (tests/train/kill_driver.py, as tests/train/test_kill.py) ----------

KILLED = {
    "env": {"id": "YahtzeeClassic-v0", "kwargs": {"reward_scale": 0.02}},
    "rllib": {
        "train_batch_size_per_learner": 128,
        "minibatch_size": 128,
        "num_epochs": 1,
        "model": {"fcnet_hiddens": [16]},
    },
    "run": {
        "seed": 0,
        "n_envs": 8,
        "total_timesteps": 1536,
        "eval_every": 256,  # evaluations between checkpoints: rows a resume must cut
        "eval_episodes": 4,
        "final_eval_episodes": 4,
        "checkpoint_every": 384,
    },
}


# ray.init's own error when its node does not come up in time (seen at a load of 8 on 2 cores)
STARTUP_TIMEOUT = "The current node timed out during startup"


def alive_in_session(sid: int) -> set[int]:
    """The pids of the processes of session ``sid`` still running (not zombies)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.add(int(entry.name))
    return found


def test_kill_at_random_moments_then_resume_gives_the_uninterrupted_rows(tmp_path):
    """Killed (SIGKILL) three times at seeded random moments (a timer, in the middle of
    writing a file, right after a checkpoint is in place), then ``--resume`` until done:
    ``metrics.csv`` has one row per evaluation point, none missing, none twice, as an
    uninterrupted run of the same seed has.

    Not every figure matches: an RLlib checkpoint holds no env runner's games in progress, so
    a resumed run starts fresh games and its iterations sample a few steps more or fewer
    (Yahtzee's games differ in length) than the uninterrupted run's did: the timesteps after
    a resume differ by a few. So the rows are compared as evaluation points: each row's
    ``timesteps // eval_every`` (an iteration samples fewer than ``eval_every`` steps, so an
    evaluation is due at each multiple crossed, one row for each), the row count, and every
    column but ``wall_s`` of the rows up to the first checkpoint resumed from (a run that
    was never resumed is the same run to there). No Ray process outlives the test: the
    driver runs in its own process group, killed whole at the end whatever happens (a
    killed run leaves Ray's agents, ``ray::DashboardAgent`` and ``ray::RuntimeEnvAgent``,
    orphaned in that group). Skipped, saying so, where Ray itself times out starting."""
    import csv
    import json
    import signal

    config = write(tmp_path, KILLED, name="killed.yaml")
    log = tmp_path / "log.json"
    driver = ROOT / "tests" / "train" / "kill_driver.py"
    argv = [sys.executable, str(driver), "rllib", str(config), "3", "27", str(log)]
    proc = subprocess.Popen(
        [*argv, str(tmp_path / "ref")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=540)
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)  # SIGKILL is delivered; the orphans are reaped
    assert proc.returncode == 0, output[-3000:]
    events = json.loads(log.read_text())
    if any(STARTUP_TIMEOUT in e["output"] for e in events if not e["killed"]):
        pytest.skip(f"Ray did not start on this machine (load {os.getloadavg()[0]:.1f})")
    for event in events:
        assert event["exit_code"] in (0, None), event["output"]  # killed or finished
        assert "Traceback" not in event["output"], event["output"]
    assert sum(e["killed"] for e in events) >= 2
    assert events[-2]["exit_code"] == 0 and events[-1]["exit_code"] == 0  # finished, reference
    assert any(e["resume"] for e in events)  # some attempt went on from a checkpoint

    (killed,) = (tmp_path / "runs").iterdir()  # every attempt went on in the one run folder
    reference = tmp_path / "ref" / killed.name
    assert not list(killed.rglob("*.tmp"))

    def rows(run_dir):
        with (run_dir / "metrics.csv").open() as f:
            return [{k: v for k, v in r.items() if k != "wall_s"} for r in csv.DictReader(f)]

    got, want = rows(killed), rows(reference)
    assert len(want) >= 5
    every = KILLED["run"]["eval_every"]

    def points(rows):
        return [int(r["timesteps"]) // every for r in rows]

    assert points(want) == [*range(len(want) - 1), len(want) - 2]  # the final row: the last step
    assert points(got) == points(want)
    first = min(int(e["before"]["checkpoints"][-1][5:]) for e in events if e["resume"])
    same = [r for r in want if int(r["timesteps"]) <= first]
    assert same and got[: len(same)] == same
    assert (killed / "final.json").exists() and (killed / "model").is_dir()
    assert not alive_in_session(proc.pid), "processes of the driver's session outlived it"
