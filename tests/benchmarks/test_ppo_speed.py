"""benchmarks/ppo_speed.py: the peers it times and one tiny round of each."""

from __future__ import annotations

import pytest

from benchmarks import ppo_speed
from train.ppo import load_config


def test_variants_change_only_what_they_name():
    ppo = load_config("yahtzee_classic_ppo").ppo
    found = ppo_speed.variants(ppo)
    assert found["config"] == (ppo, False)
    old, checks = found["256 tanh"]
    assert checks and old["policy_kwargs"]["net_arch"] == {"pi": [256, 256], "vf": [256, 256]}
    assert old["policy_kwargs"]["activation_fn"] == "tanh"
    assert {k: v for k, v in old.items() if k != "policy_kwargs"} == {
        k: v for k, v in ppo.items() if k != "policy_kwargs"
    }
    fewer = found[f"config, {ppo['n_epochs'] // 2} epochs"][0]
    assert fewer == {**ppo, "n_epochs": ppo["n_epochs"] // 2}
    assert ppo["policy_kwargs"]["activation_fn"] == "relu"  # the config itself is untouched


@pytest.mark.heavy
def test_one_round_prints_every_variant(capsys):
    ppo_speed.main(["--rounds", "1", "--n-envs", "4"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == list(
        ppo_speed.variants(load_config("yahtzee_classic_ppo").ppo)
    )
    assert rows[2].endswith("| 1.00x |")  # 256 tanh against itself


def test_bad_rounds():
    with pytest.raises(SystemExit):
        ppo_speed.main(["--rounds", "0"])
