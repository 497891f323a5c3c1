"""A train/ppo.py config read by another trainer of its schema (train/rllib.py,
train/best_response.py) that sets a key that trainer does not honour stops at load, in one
line naming the key and the trainer that honours it, instead of training without it."""

from __future__ import annotations

import pytest
import yaml

from train.common.config import ConfigError

SCORECARD = {
    "env": {"id": "YahtzeeClassic-v0"},
    "ppo": {"n_steps": 64},
    "run": {"n_envs": 2, "total_timesteps": 128, "eval_episodes": 2, "final_eval_episodes": 2},
}
POKER = {
    "env": {"id": "CardPoker-v0", "kwargs": {"n_players": 2, "opponents": "careful"}},
    "ppo": {"n_steps": 64},
    "run": {"n_envs": 2, "total_timesteps": 128, "eval_episodes": 2, "final_eval_episodes": 2},
}
FACTORED = {"policy": "ScorecardPolicy", "policy_kwargs": {"keep_head": "factored"}}


def write(tmp_path, base, run=None, ppo=None):
    data = {**base, "run": {**base["run"], "out_dir": str(tmp_path / "runs"), **(run or {})}}
    data["ppo"] = {**base["ppo"], **(ppo or {})}
    path = tmp_path / "made_for_ppo.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def load_rllib(path):
    from train.common.rllib import load_config

    return load_config(path)


def load_best_response(path):
    from train.common.best_response import load_config

    return load_config(path)


def load_ppo(path):
    from train.common.sb3 import load_config

    return load_config(path)


@pytest.mark.parametrize(
    ("load", "trainer", "base", "run", "ppo", "key"),
    [
        (load_rllib, "rllib", SCORECARD, {"normalize_reward": True}, None, "run.normalize_reward"),
        (load_rllib, "rllib", SCORECARD, None, FACTORED, "ppo.policy_kwargs.keep_head"),
        (load_rllib, "rllib", SCORECARD, {"normalize_obs": True}, None, "run.normalize_obs"),
        (load_best_response, "best_response", POKER, {"normalize_reward": True}, None,
         "run.normalize_reward"),
        (load_best_response, "best_response", POKER, {"normalize_obs": True}, None,
         "run.normalize_obs"),
        (load_best_response, "best_response", POKER, None, FACTORED,
         "ppo.policy_kwargs.keep_head"),
    ],
)  # fmt: skip
def test_a_key_the_trainer_does_not_honour_stops_it_naming_the_key(
    tmp_path, load, trainer, base, run, ppo, key
):
    with pytest.raises(ConfigError) as err:
        load(write(tmp_path, base, run, ppo))
    text = str(err.value)
    assert "\n" not in text
    assert f"{key} is not supported by train/{trainer}.py" in text
    assert "train/ppo.py honours it" in text


@pytest.mark.parametrize("load", [load_rllib, load_best_response])
def test_the_keys_at_their_defaults_are_no_error(tmp_path, load):
    if load is load_rllib:
        pytest.importorskip("ray.rllib")  # rllib: is checked by RLlib's own classes
    base = SCORECARD if load is load_rllib else POKER
    run = {"normalize_reward": False, "normalize_obs": False}
    load(write(tmp_path, base, run, {"policy_kwargs": {"net_arch": [8]}}))


def test_train_ppo_honours_every_key(tmp_path):
    cfg = load_ppo(write(tmp_path, SCORECARD, {"normalize_reward": True}, FACTORED))
    assert cfg.run.normalize_reward and cfg.ppo["policy_kwargs"]["keep_head"] == "factored"
