"""train/league.py: a tiny league, PFSP sampling, per-table opponents, --resume, config errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

from agents import Agent, make_agent
from agents.members import Members
from envs.rules.card_poker import PASS
from train.common.config import ConfigError
from train.common.league import (
    LeagueVecEnv,
    Population,
    load_config,
    pfsp_weights,
    state_path,
)
from train.league import main

TINY = {
    "env": {"id": "CardPoker-v0", "kwargs": {"n_players": 3}},
    "ppo": {"n_steps": 16, "batch_size": 128, "n_epochs": 1, "policy_kwargs": {"net_arch": [16]}},
    "league": {
        "fixed": ["random", "quick"],
        "snapshot_every": 512,
        "pool_size": 2,
        "eval_every": 512,
        "eval_deals": 40,
    },
    "run": {
        "n_envs": 16,
        "total_timesteps": 2048,
        "checkpoint_every": 1024,
        "final_eval_deals": 60,
    },
}


def tiny_config(tmp_path, edit=None) -> str:
    data = json.loads(json.dumps(TINY))
    data["run"]["out_dir"] = str(tmp_path / "runs")
    if edit:
        edit(data)
    path = tmp_path / "tiny_league.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_pfsp_weights_favour_the_opponents_that_take_chips():
    w = pfsp_weights(np.array([3.0, 0.0, -1.0, -1.0]), temperature=1.0, floor=0.2)
    assert w.sum() == pytest.approx(1.0)
    assert w[0] < w[1] < w[2] == w[3]  # who takes more chips from the learner is met more
    assert w.min() >= 0.2 / 4  # the floor: nobody is dropped
    assert pfsp_weights(np.array([np.nan, 0.0]), 1.0, 0.0) == pytest.approx([0.5, 0.5])
    hot = pfsp_weights(np.array([1.0, -1.0]), temperature=0.1, floor=0.0)
    assert hot[1] > 0.99  # a low temperature meets almost only the worst spot


class Passer(Agent):
    """Never bids: passes when it may, else stands pat."""

    def act(self, observation, action_mask) -> int:
        return PASS if action_mask[PASS] else int(np.flatnonzero(action_mask)[0])


def test_each_table_meets_the_member_drawn_for_it(tmp_path):
    cfg = load_config(tiny_config(tmp_path, lambda d: d["run"].update(n_envs=600)))
    pop = Population(cfg)
    pop.members[1].agent = Passer()  # "quick" plays as a passer: its tables never see a bid
    pop.members[0].chips, pop.members[1].chips = 2.0, -1.0  # the passer takes more: met more
    vec = LeagueVecEnv(cfg, pop, seed=3)
    tables = vec.engine
    tables.seed(3)
    tables.reset()
    share = np.mean(tables.uid == pop.members[1].uid)
    assert abs(share - pop.weights()[1]) < 4 * np.sqrt(0.25 / 600)
    assert pop.weights()[1] > pop.weights()[0]
    uid = tables.uid.copy()
    rng = np.random.default_rng(0)
    while not tables.done.all():
        masks = tables.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        tables.table.step_some(acts, ~tables.done)
    core, learner = tables.table.core, tables.table.agent_seat
    others = np.ones_like(core.bids_made, dtype=bool)
    others[np.arange(len(learner)), learner] = False
    opponent_bids = np.where(others, core.bids_made, 0).sum(axis=1)
    passer = uid == pop.members[1].uid
    assert (opponent_bids[passer] == 0).all()
    assert (opponent_bids[~passer] > 0).any()  # the random player's tables do see bids


def test_tiny_league_trains_and_its_agent_plays_in_the_arena(tmp_path):
    run_dir = main(["--config", tiny_config(tmp_path), "--no-progress"])
    for name in ("model.zip", "config.yaml", "metrics.csv", "curve.png", "final.json"):
        assert (run_dir / name).is_file(), name
    final = json.loads((run_dir / "final.json").read_text())
    assert {"random", "quick", "snap_1536", "snap_2048"} == set(final["opponents"])
    assert final["steps_per_s"] > 0 and final["timesteps"] == 2048
    header = (run_dir / "metrics.csv").read_text().splitlines()[0].split(",")
    assert {"steps_per_s", "deals_per_s", "quick_chips", "quick_weight", "snapshot_min_chips"} <= (
        set(header)
    )
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", "card_poker")
    from train.benchmark import main as benchmark

    result = benchmark(
        ["--game", "card_poker", "--agents", f"ppo:{run_dir / 'model.zip'}", "random"]
        + ["--players", "3", "--games", "12", "--out", str(tmp_path / "bench"), "--no-chart"]
        + ["--no-progress"]
    )
    assert result is not None and agent is not None


def test_resume_restores_the_population(tmp_path):
    config = tiny_config(tmp_path)
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "1024"])
    saved = json.loads(state_path(run_dir / "checkpoints" / "step_1024.zip").read_text())
    assert [m["name"] for m in saved["members"]] == ["random", "quick", "snap_512", "snap_1024"]
    cfg = load_config(config)
    pop = Population.from_state(cfg, saved, "step_1024.zip")
    assert [m.name for m in pop.members] == ["random", "quick", "snap_512", "snap_1024"]
    assert [m.chips for m in pop.members] == [m["chips"] for m in saved["members"]]
    main(["--config", config, "--no-progress", "--resume", "--total-timesteps", "2048"])
    after = json.loads(state_path(run_dir / "checkpoints" / "step_2048.zip").read_text())
    # the snapshots of before the resume went on aging out of the pool, uids go on counting
    assert [m["name"] for m in after["members"]] == ["random", "quick", "snap_1536", "snap_2048"]
    assert after["next_uid"] == saved["next_uid"] + 2
    assert (run_dir / "pool" / "snap_000000000512.zip").is_file()  # not restarted afresh
    # every snapshot carries its observation statistics, so make_agent plays it as trained
    assert (run_dir / "pool" / "snap_000000000512.vecnormalize.pkl").is_file()
    assert make_agent(f"ppo:{run_dir / 'pool' / 'snap_000000000512.zip'}", "card_poker").normalizer


def test_resume_needs_the_population_beside_the_checkpoint(tmp_path):
    config = tiny_config(tmp_path)
    run_dir = main(["--config", config, "--no-progress", "--total-timesteps", "1024"])
    (run_dir / "model.zip").unlink()
    state_path(run_dir / "checkpoints" / "step_1024.zip").unlink()
    with pytest.raises(ConfigError, match="population beside step_1024.zip"):
        main(["--config", config, "--no-progress", "--resume", "--total-timesteps", "2048"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(rllib={}), r"unknown section\(s\) \['rllib'\]"),
        (lambda d: d["env"].update(id="DicePoker-v0"), "env.id must be 'CardPoker-v0'"),
        (lambda d: d["env"]["kwargs"].update(opponents="random"), "set by the league"),
        (lambda d: d["env"]["kwargs"].update(deck=40), "env.kwargs"),
        (lambda d: d["league"].update(floor=1.5), "league.floor must be a number from 0 to 1"),
        (lambda d: d["league"].update(temperature=0), "league.temperature must be a number > 0"),
        (lambda d: d["league"].update(fixed=["random", "nobody"]), "unknown agent 'nobody'"),
        (lambda d: d["league"].update(fixed=["quick", "quick"]), "names a player twice"),
        (lambda d: d["league"].update(fixed=[]), "league.fixed is empty"),
        (lambda d: d["league"].update(pool=3), r"unknown key\(s\) \['pool'\] in .*league"),
        (lambda d: d["run"].update(n_envs=0), "run.n_envs must be a whole number >= 1"),
        (lambda d: d["ppo"].update(n_step=3), r"unknown key\(s\) \['n_step'\] in ppo"),
    ],
)
def test_config_errors_name_the_bad_key(tmp_path, edit, message):
    with pytest.raises(ConfigError, match=message):
        load_config(tiny_config(tmp_path, edit))


def test_command_line_error_is_one_line(tmp_path, capsys):
    from train.league import cli

    with pytest.raises(SystemExit) as exit_:
        cli(["--config", tiny_config(tmp_path, lambda d: d["league"].update(floor=-1))])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "league.floor" in err


def test_committed_league_configs_load():
    for name in ("card_poker_league.yaml", "card_poker_league54.yaml"):
        cfg = load_config(name)
        assert cfg.run.total_timesteps > 0 and "careful" in cfg.league.fixed


def _snapshot_zips(tmp_path, n: int) -> list:
    """``n`` MaskablePPO snapshots of card poker with their own weights and statistics."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecNormalize

    from agents.tables import BatchedVecEnv, make_engine
    from train.common.sb3 import save_model

    zips = []
    for s in range(n):
        vec = VecNormalize(BatchedVecEnv("CardPoker-v0", 4, opponents="random", n_players=3))
        model = MaskablePPO("MlpPolicy", vec, seed=s, policy_kwargs={"net_arch": [16]})
        with torch.no_grad():  # logits far from uniform: the snapshots play differently
            for p in model.policy.action_net.parameters():
                p.mul_(30.0)
        engine, _, _ = make_engine("CardPoker-v0", 32, seed=s, opponents="random", n_players=3)
        engine.reset()
        vec.obs_rms.update(engine.observe())
        zips.append(tmp_path / f"snap_{s}.zip")
        save_model(model, zips[-1], vec)
    return zips


def _play_alike(vecs, steps: int, seed: int) -> None:
    """Two league tables stepped on the same random legal actions give the same masks,
    observations, rewards and ends."""
    new, old = vecs
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = new.action_masks()
        np.testing.assert_array_equal(masks, old.action_masks())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        (o1, r1, d1, _), (o2, r2, d2, _) = (v.step(actions) for v in vecs)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)


def test_snapshots_in_one_forward_play_as_each_by_itself(tmp_path):
    # three snapshots join a pool of two: the first leaves, so the uids have a gap
    cfg = load_config(tiny_config(tmp_path, lambda d: d["run"].update(n_envs=128)))
    zips = _snapshot_zips(tmp_path, 3)
    vecs = []
    for _ in range(2):
        pop = Population(cfg)
        for step, path in enumerate(zips):
            pop.add_snapshot(path, step)
        assert [m.uid for m in pop.members] == [0, 1, 3, 4]
        vecs.append(LeagueVecEnv(cfg, pop, seed=5))
    new, old = vecs
    old.engine.members = Members(stack=False)  # each member's act_batch by itself
    obs = [v.reset() for v in vecs]
    np.testing.assert_array_equal(*obs)
    assert set(np.unique(new.engine.uid)) == {0, 1, 3, 4}
    _play_alike(vecs, 60, seed=0)


def test_members_reading_the_tables_state_play_as_on_observations(tmp_path):
    # careful, bluffer and quick read their rows off the tables; random and a snapshot
    # get observations: the same game as every row encoded (direct = False)
    fixed = ["random", "quick", "careful", "bluffer"]
    edit = lambda d: (d["run"].update(n_envs=64), d["league"].update(fixed=fixed))  # noqa: E731
    cfg = load_config(tiny_config(tmp_path, edit))
    zips = _snapshot_zips(tmp_path, 1)
    vecs = []
    for _ in range(2):
        pop = Population(cfg)
        pop.add_snapshot(zips[0], 0)
        vecs.append(LeagueVecEnv(cfg, pop, seed=3))
    new, old = vecs
    old.engine.direct = False
    obs = [v.reset() for v in vecs]
    np.testing.assert_array_equal(*obs)
    assert len(np.unique(new.engine.uid)) == 5
    _play_alike(vecs, 40, seed=1)
    read = sorted(agent.name for agent, _, act in new.engine._acts.values() if act is not None)
    assert read == ["bluffer", "careful", "quick"]
