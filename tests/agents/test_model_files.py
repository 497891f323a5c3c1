"""Damaged, NaN and foreign model files (issue 27, defect 5): every loader checks what it
read (the file whole, the weights finite, the feature version, the game) and says what is
wrong in one line that names the file."""

from __future__ import annotations

import struct
import zipfile

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.afterstate import ValueNet, save_value
from agents.handvalue import HandValues, save_values
from envs.rules.scorecard import make_rules


def _zero_block(path, out, size=64):
    """A copy of the zip ``path`` with ``size`` bytes zeroed inside its largest member's data
    (as a bad sector would leave it): the archive's structure stays intact."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = max(archive.infolist(), key=lambda i: i.compress_size)
    name_len, extra_len = struct.unpack(
        "<HH", data[info.header_offset + 26 : info.header_offset + 30]
    )
    start = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
    size = min(size, info.compress_size // 2)
    data[start : start + size] = bytes(size)
    out.write_bytes(bytes(data))
    return out


def _truncated(path, out):
    out.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return out


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


# -- afterstate: value networks -----------------------------------------------------------


def _value_file(tmp_path, rules="classic", nan=False):
    torch.manual_seed(0)
    net = ValueNet(make_rules(rules), (32, 32))
    if nan:
        with torch.no_grad():
            net.mlp[2].weight[3, 5] = float("nan")
    path = tmp_path / f"{rules}{'_nan' if nan else ''}.pt"
    save_value(net, path)
    return path


def test_afterstate_nan_weights_are_refused(tmp_path):
    path = _value_file(tmp_path, nan=True)
    with pytest.raises(ValueError, match=r"non-finite") as caught:
        make_agent(f"afterstate:{path}", game="yahtzee_classic")
    assert str(path) in _one_line(caught)


def test_afterstate_zeroed_block_is_refused(tmp_path):
    good = _value_file(tmp_path)
    make_agent(f"afterstate:{good}", game="yahtzee_classic")  # the intact file loads
    bad = _zero_block(good, tmp_path / "zeroed.pt")
    with pytest.raises(ValueError, match=r"damaged.*CRC") as caught:
        make_agent(f"afterstate:{bad}", game="yahtzee_classic")
    assert str(bad) in _one_line(caught)


def test_afterstate_truncated_file_is_refused(tmp_path):
    bad = _truncated(_value_file(tmp_path), tmp_path / "half.pt")
    with pytest.raises(ValueError, match="cannot load an afterstate value network") as caught:
        make_agent(f"afterstate:{bad}", game="yahtzee_classic")
    assert str(bad) in _one_line(caught)


def test_afterstate_of_another_game_is_refused_naming_the_file(tmp_path):
    path = _value_file(tmp_path, rules="russian")
    with pytest.raises(ValueError, match="trained for") as caught:
        make_agent(f"afterstate:{path}", game="yahtzee_classic")
    assert str(path) in _one_line(caught)


# -- handvalue: hand-value tables -----------------------------------------------------------


def _table_file(tmp_path, nan=False):
    table = HandValues.new("dice_poker", 3, 0.0, 1.0)
    table.sums = np.random.default_rng(0).normal(size=table.sums.shape)
    table.weights = np.ones_like(table.weights)
    if nan:
        table.sums[7] = np.nan
    path = tmp_path / f"values{'_nan' if nan else ''}.npz"
    save_values(table, path)
    return path


@pytest.mark.parametrize("damage", ["nan", "zeroed", "truncated"])
def test_handvalue_damaged_tables_are_refused(tmp_path, damage):
    good = _table_file(tmp_path)
    make_agent(f"handvalue:{good}", game="dice_poker")
    bad = {
        "nan": lambda: _table_file(tmp_path, nan=True),
        "zeroed": lambda: _zero_block(good, tmp_path / "zeroed.npz"),
        "truncated": lambda: _truncated(good, tmp_path / "half.npz"),
    }[damage]()
    with pytest.raises(ValueError, match="cannot load a hand-value table") as caught:
        make_agent(f"handvalue:{bad}", game="dice_poker")
    assert str(bad) in _one_line(caught)


def test_handvalue_of_another_game_is_refused_naming_the_file(tmp_path):
    path = _table_file(tmp_path)
    with pytest.raises(ValueError, match="trained for dice_poker") as caught:
        make_agent(f"handvalue:{path}", game="dice_poker6")
    assert str(path) in _one_line(caught)


# -- ppo: MaskablePPO zips -------------------------------------------------------------------


@pytest.fixture(scope="module")
def ppo_file(tmp_path_factory):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import envs  # noqa: F401  (registers the ids)

    env = gym.make("DicePoker-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, policy_kwargs={"net_arch": [8]}, seed=0)
    path = tmp_path_factory.mktemp("ppo") / "model.zip"
    model.save(path)
    with torch.no_grad():
        next(model.policy.parameters())[0, 0] = float("nan")
    nan = path.with_name("nan.zip")
    model.save(nan)
    return path, nan


@pytest.mark.parametrize("damage", ["nan", "zeroed", "truncated"])
def test_ppo_damaged_models_are_refused(ppo_file, tmp_path, damage):
    good, nan = ppo_file
    make_agent(f"ppo:{good}", game="dice_poker")
    bad = {
        "nan": lambda: nan,
        "zeroed": lambda: _zero_block(good, tmp_path / "zeroed.zip"),
        "truncated": lambda: _truncated(good, tmp_path / "half.zip"),
    }[damage]()
    with pytest.raises(ValueError) as caught:
        make_agent(f"ppo:{bad}", game="dice_poker")
    assert str(bad) in _one_line(caught)
    if damage == "nan":
        assert "non-finite" in str(caught.value)


@pytest.mark.parametrize("game", ["card_poker", "yahtzee", "dice_poker6"])
def test_ppo_model_of_another_game_is_refused_when_loaded(ppo_file, game):
    good, _ = ppo_file
    with pytest.raises(ValueError, match="was trained on") as caught:
        make_agent(f"ppo:{good}", game=game)
    assert str(good) in _one_line(caught)
