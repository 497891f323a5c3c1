"""train/config.py: the config reader and the metrics file every training script shares."""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field

import pytest

from train.config import (
    ConfigError,
    append_csv,
    build,
    check_positive,
    find_config,
    is_int,
    is_number,
    last_row,
    read_sections,
    repair_csv,
)


@dataclass
class Inner:
    enabled: bool = False
    share: float = 0.5


@dataclass
class Outer:
    id: str
    seed: int = 0
    n_games: int = 4
    rate: float = 1e-3
    names: list[str] = field(default_factory=lambda: ["a"])
    inner: Inner = field(default_factory=Inner)


def test_numbers():
    assert is_int(3) and not is_int(True) and not is_int(3.0)
    assert is_number(3) and is_number(0.5) and not is_number(False)
    assert not is_number(math.nan) and not is_number(math.inf) and not is_number("1")


def test_build_fills_defaults_and_nested_dataclasses():
    out = build(Outer, {"id": "x", "rate": 2, "inner": {"share": 1}}, "c.yaml: run")
    assert out == Outer("x", rate=2, inner=Inner(share=1))
    assert build(Inner, None, "c.yaml: run") == Inner()  # an empty section: the defaults
    over = build(Outer, {"id": "x", "seed": 3}, "w", {"seed": None, "n_games": 8})
    assert (over.seed, over.n_games) == (3, 8)  # None overrides nothing


@pytest.mark.parametrize(
    "data, message",
    [
        ({"id": "x", "n_gmaes": 3}, r"^unknown key\(s\) \['n_gmaes'\] in c.yaml: run; allowed: \["),
        ({"seed": 1}, r"^c.yaml: run.id is missing$"),
        (
            {"id": "x", "n_games": "many"},
            r"^c.yaml: run.n_games must be a whole number, got 'many'$",
        ),
        ({"id": "x", "n_games": True}, r"^c.yaml: run.n_games must be a whole number, got True$"),
        ({"id": "x", "rate": "fast"}, r"^c.yaml: run.rate must be a number, got 'fast'$"),
        ({"id": "x", "names": "a"}, r"^c.yaml: run.names must be a list, got 'a'$"),
        ({"id": "x", "inner": {"enabled": 1}}, r"^c.yaml: run.inner.enabled must be true or false"),
        ({"id": "x", "inner": {"shar": 1}}, r"unknown key\(s\) \['shar'\] in c.yaml: run.inner;"),
        ({"id": "x", "inner": [1]}, r"^c.yaml: run.inner must be a mapping of keys to values"),
        ([1], r"^c.yaml: run must be a mapping of keys to values, got \[1\]$"),
    ],
)
def test_build_names_the_bad_key(data, message):
    with pytest.raises(ConfigError, match=message):
        build(Outer, data, "c.yaml: run")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"n_games": 0}, r"^w.n_games must be a whole number >= 1, got 0$"),
        ({"seed": -1}, r"^w.seed must be a whole number >= 0, got -1$"),
        ({"rate": 0.0}, r"^w.rate must be a number > 0, got 0.0$"),
        ({"rate": math.nan}, r"^w.rate must be a number > 0, got nan$"),
        ({"inner": Inner(share=-1.0)}, r"^w.inner.share must be a number > 0, got -1.0$"),
    ],
)
def test_check_positive_names_the_key_the_value_and_what_is_allowed(change, message):
    check_positive(Outer("x", seed=0, n_games=1, rate=1), "w")  # the least allowed pass
    with pytest.raises(ConfigError, match=message):
        check_positive(Outer("x", **change), "w")


def test_read_sections(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("env: {id: Yahtzee-v0}\nrun: {seed: 1}\n")
    assert read_sections(str(path), ("env", "run")) == (
        path,
        {"env": {"id": "Yahtzee-v0"}, "run": {"seed": 1}},
    )
    with pytest.raises(ConfigError, match=r"unknown section\(s\) \['run'\] in .*; allowed: env$"):
        read_sections(str(path), ("env",))
    path.write_text("env: [1\n")
    with pytest.raises(ConfigError, match=r"c.yaml: not valid YAML at line \d+, column \d+"):
        read_sections(str(path), ("env",))
    path.write_text("- 1\n")
    with pytest.raises(ConfigError, match=r"c.yaml: a config is a mapping with env; got \[1\]"):
        read_sections(str(path), ("env",))
    assert find_config("quickstart").name == "quickstart.yaml"  # looked up in configs/
    with pytest.raises(FileNotFoundError, match=r"no config 'no_such' .*quickstart.yaml"):
        find_config("no_such")


def rows(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_metrics_append_widen_repair_and_last_row(tmp_path):
    path = tmp_path / "metrics.csv"
    assert last_row(path) == {}
    append_csv(path, {"games": 0, "score": 1.5})
    inode, before = os.stat(path).st_ino, path.read_bytes()
    append_csv(path, {"games": 8, "score": 2.5})
    assert os.stat(path).st_ino == inode and path.read_bytes().startswith(before)  # appended
    append_csv(path, {"games": 16, "score": 3.0, "median": 3})  # a new column: widened
    assert path.read_text().splitlines()[0] == "games,score,median"
    assert [r["median"] for r in rows(path)] == ["", "", "3"]
    assert not [p for p in tmp_path.iterdir() if p != path]  # no temporary file left
    with path.open("a") as f:
        f.write("24,3.")  # a kill in the middle of a row
    repair_csv(path)
    assert [r["games"] for r in rows(path)] == ["0", "8", "16"]
    assert last_row(path) == {"games": "16", "score": "3.0", "median": "3"}
    repair_csv(tmp_path / "none.csv")  # nothing to repair
    assert not (tmp_path / "none.csv").exists()
