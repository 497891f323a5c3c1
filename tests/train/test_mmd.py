"""Neural MMD (train/common/mmd.py, train/mmd.py, benchmarks/mini_mmd.py): the magnet term,
coefficient 0 as MaskablePPO, a tiny full-game run with --resume, the mini benchmark."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
import torch as th
import yaml

from agents import make_agent
from agents.exact.games import MiniCardPoker
from agents.exact.tables import TreeTables, make_vec_env, model_policy, observations
from agents.exact.tree import GameTree
from envs.rules.card_poker_mini import MiniCardPokerRules
from train.common.config import ConfigError
from train.common.mmd import MmdPPO, load_config, magnet_kl, masked_log_probs

RULES = MiniCardPokerRules(max_draw=0)  # no draw: a small tree, built in well under a second
PPO = {"n_steps": 16, "batch_size": 64, "n_epochs": 2, "policy_kwargs": {"net_arch": [16]}}


@pytest.fixture(scope="module")
def mini():
    tree = GameTree(MiniCardPoker(RULES))
    return tree, observations(tree, RULES)


def mini_model(mini, cls, seed=0, **kwargs):
    from train.common.sb3 import setup_torch

    setup_torch(1)
    tree, obs = mini
    tables = TreeTables(tree, tree.uniform(), obs, 8, seed, game_actions=True)
    model = cls("MlpPolicy", make_vec_env(tables), seed=seed, device="cpu", **PPO, **kwargs)
    return model, tables


def test_magnet_kl_by_hand():
    log_pi = th.log(th.tensor([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]) + 1e-30)
    log_rho = th.log(th.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]) + 1e-30)
    masks = th.tensor([[True, True, False], [True, True, False]])
    kl = magnet_kl(log_pi, log_rho, masks)
    expected = 0.25 * math.log(0.25 / 0.5) + 0.75 * math.log(0.75 / 0.5)
    assert kl.tolist() == pytest.approx([0.0, expected], abs=1e-7)


def test_the_kl_term_is_0_when_the_magnet_is_the_policy(mini):
    model, tables = mini_model(mini, MmdPPO, magnet_coef=0.5)
    obs = th.as_tensor(tables.obs_table)
    masks = th.as_tensor(tables.legal)
    log_pi = masked_log_probs(model.policy, obs, masks)
    log_rho = masked_log_probs(model.magnet, obs, masks)
    assert magnet_kl(log_pi, log_rho, masks).abs().max().item() < 1e-6
    model.learn(8 * 16)  # one update: the policy leaves the magnet, the magnet follows
    log_pi = masked_log_probs(model.policy, obs, masks)
    log_rho = masked_log_probs(model.magnet, obs, masks)
    assert magnet_kl(log_pi, log_rho, masks).mean().item() > 1e-7
    assert model.last_magnet_kl >= 0


def test_coefficient_0_gives_maskable_ppo(mini):
    from sb3_contrib import MaskablePPO

    # each made and trained in turn: the minibatches' order comes from numpy's global
    # generator, which making a model seeds
    plain, _ = mini_model(mini, MaskablePPO)
    plain.learn(2 * 8 * 16)  # two rollouts, two updates
    mmd, _ = mini_model(mini, MmdPPO, magnet_coef=0.0)
    mmd.learn(2 * 8 * 16)
    same = max(
        (a - b).abs().max().item()
        for a, b in zip(plain.policy.parameters(), mmd.policy.parameters(), strict=True)
    )
    assert same < 1e-6
    # a uniform magnet that stays (tau 0) pulls the policy toward uniform: closer than plain
    pulled, tables = mini_model(mini, MmdPPO, magnet_coef=1.0, magnet_tau=0.0)
    th.nn.init.zeros_(pulled.magnet.action_net.weight)
    th.nn.init.zeros_(pulled.magnet.action_net.bias)
    pulled.learn(2 * 8 * 16)
    obs, masks = th.as_tensor(tables.obs_table), th.as_tensor(tables.legal)
    uniform = masked_log_probs(pulled.magnet, obs, masks)
    kl = {
        name: magnet_kl(masked_log_probs(m.policy, obs, masks), uniform, masks).mean().item()
        for name, m in (("plain", plain), ("pulled", pulled))
    }
    assert kl["pulled"] < kl["plain"]


def test_the_magnet_takes_polyak_steps_toward_the_policy(mini):
    model, _ = mini_model(mini, MmdPPO, magnet_coef=0.5, magnet_tau=0.25)
    old = [p.detach().clone() for p in model.magnet.parameters()]
    model.learn(8 * 16)  # one update, then one Polyak step
    for o, now, mag in zip(old, model.policy.parameters(), model.magnet.parameters(), strict=True):
        assert th.allclose(mag, 0.75 * o + 0.25 * now.detach(), atol=1e-6)


def test_model_policy_is_the_networks_softmax_in_tree_slots(mini):
    tree, _ = mini
    model, tables = mini_model(mini, MmdPPO)
    policy = model_policy(model, tables)
    assert policy.shape == (tree.n_infosets, tree.max_actions)
    assert np.allclose(policy.sum(axis=1), 1.0)
    assert (policy[~tree.legal] == 0).all()
    assert tree.exploitability(policy) >= 0


TINY = {
    "trainer": "mmd",
    "env": {"id": "CardPoker-v0", "kwargs": {"n_players": 2}},
    "ppo": {"n_steps": 16, "batch_size": 128, "n_epochs": 1, "policy_kwargs": {"net_arch": [16]}},
    "mmd": {"eval_every": 256, "eval_deals": 20, "eval_against": ["random", "quick"]},
    "run": {"n_envs": 16, "total_timesteps": 512, "checkpoint_every": 256, "final_eval_deals": 30},
}


def tiny_config(tmp_path, edit=None) -> str:
    """TINY written to ``tmp_path`` (its runs there too), ``edit(data)`` first."""
    data = copy.deepcopy(TINY)
    data["run"]["out_dir"] = str(tmp_path / "runs")
    (edit or (lambda d: None))(data)
    out = tmp_path / "tiny_mmd.yaml"
    out.write_text(yaml.safe_dump(data))
    return str(out)


def test_a_tiny_run_trains_resumes_and_plays_as_ppo(tmp_path):
    from train.mmd import main

    run = main(["--config", tiny_config(tmp_path), "--no-progress"])
    assert run.name == "card_poker__tiny_mmd__0"
    for name in ("model.zip", "config.yaml", "metrics.csv", "curve.png", "final.json"):
        assert (run / name).is_file(), name
    assert (run / "checkpoints" / "step_512.magnet.pt").is_file()
    final = json.loads((run / "final.json").read_text())
    assert final["learner"] == "mmd"
    assert final["mmd"]["policy"] == "sample"  # a mixed strategy: evaluated as it samples
    assert set(final["mmd"]["opponents"]) == {"random", "quick"}
    assert final["mmd"]["opponents"]["quick"]["duplicate_blocks"] == 30
    assert yaml.safe_load((run / "config.yaml").read_text())["trainer"] == "mmd"
    agent = make_agent(f"ppo:{run / 'model.zip'}", "card_poker")
    assert agent.deterministic is False  # the run's config says trainer: mmd
    mask = np.zeros(agent.model.action_space.n, dtype=bool)
    mask[[32, 33]] = True
    assert agent.act(np.zeros(agent.model.observation_space.shape, np.float32), mask) in (32, 33)
    # --resume trains on from the last checkpoint, magnet and all, to the new total
    again = main(
        ["--config", tiny_config(tmp_path), "--resume", "--total-timesteps", "768", "--no-progress"]
    )
    assert again == run
    rows = (run / "metrics.csv").read_text().splitlines()
    assert [int(float(r.split(",")[0])) for r in rows[1:]] == [0, 256, 512, 768]
    assert json.loads((run / "final.json").read_text())["mmd"]["timesteps"] == 768


def test_players_and_rules_reach_the_table(tmp_path):
    cfg = load_config(tiny_config(tmp_path), env_kwargs={"n_players": 3, "deck": 54})
    assert cfg.env.kwargs["n_players"] == 3 and cfg.rules["deck"] == 54


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["mmd"].update(magnet_tau=2), "mmd.magnet_tau must be a number from 0 to 1"),
        (lambda d: d["mmd"].update(magnet_coef=-1), "mmd.magnet_coef must be a number >= 0"),
        (lambda d: d["mmd"].update(eval_against=["nobody"]), "mmd.eval_against"),
        (lambda d: d["env"]["kwargs"].update(opponents="careful"), "set by self-play"),
        (lambda d: d["mmd"].update(magnet=1), "magnet"),
    ],
)
def test_config_errors_are_one_line_naming_the_key(tmp_path, edit, message):
    with pytest.raises(ConfigError, match=message) as err:
        load_config(tiny_config(tmp_path, edit))
    assert "\n" not in str(err.value)


def test_the_mini_benchmark_prints_both_methods(capsys):
    from benchmarks.mini_mmd import main as bench

    out = bench(
        [
            "--seeds",
            "0",
            "--decisions",
            "256",
            "--eval-every",
            "1",
            "--n-envs",
            "8",
            "--rule",
            "max_draw=0",
            "--ppo",
            "n_steps=16",
            "--ppo",
            "batch_size=64",
        ]
    )
    assert set(out) == {"mmd", "ppo"}
    for rows in out.values():
        assert [r["updates"] for r in rows] == [0, 1, 2]
        assert all(r["exploitability"] >= 0 for r in rows)
    assert "| decisions | mmd seed 0 | ppo seed 0 |" in capsys.readouterr().out
