"""The scorecard solver's disk cache heals itself: every kind of damaged file is solved
again and rewritten (with a warning naming it), files are 0644, a kill leaves no temp file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import agents.optimal.scorecard as yz
import envs  # noqa: F401  (registers the ids)
from agents import make_agent
from envs.rules.scorecard import make_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = make_rules("russian", scratch="any")  # solves in about a second


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEPOKER_GYM_CACHE", str(tmp_path))
    yz._MEMORY.pop(RULES, None)
    yield tmp_path
    yz._MEMORY.pop(RULES, None)


@pytest.fixture(scope="module")
def good_bytes(tmp_path_factory) -> bytes:
    old = os.environ.get("DICEPOKER_GYM_CACHE")
    os.environ["DICEPOKER_GYM_CACHE"] = str(tmp_path_factory.mktemp("good"))
    try:
        yz._MEMORY.pop(RULES, None)
        yz.solve(RULES)
        return yz.cache_path(RULES).read_bytes()
    finally:
        yz._MEMORY.pop(RULES, None)
        if old is None:
            del os.environ["DICEPOKER_GYM_CACHE"]
        else:
            os.environ["DICEPOKER_GYM_CACHE"] = old


def _savez(path: Path, **arrays) -> bytes:
    with path.open("wb") as f:
        np.savez(f, **arrays)
    return path.read_bytes()


def _damage(kind: str, good: bytes, path: Path) -> None:
    with np.load(path.with_name("good.npz")) as data:
        files = {k: data[k] for k in data.files}
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "crc":  # flip bytes inside stage1's data: the zip's CRC-32 no longer matches
        with zipfile.ZipFile(path.with_name("good.npz")) as z:
            info = z.getinfo("stage1.npy")
        bad = bytearray(good)
        at = info.header_offset + 30 + len(info.filename) + 200
        bad[at : at + 8] = b"\xff" * 8
        path.write_bytes(bytes(bad))
    elif kind == "wrong_shape":
        files["stage1"] = files["stage1"][:10]
        _savez(path, **files)
    elif kind == "nan":  # the right names and shapes, values gone
        files["stage1"] = np.full_like(files["stage1"], np.nan)
        files["stage2"] = np.full_like(files["stage2"], np.nan)
        _savez(path, **files)
    elif kind == "missing_array":
        del files["stage2"]
        _savez(path, **files)
    elif kind == "not_npz":
        path.write_bytes(b"not an npz file at all")
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["empty", "truncated", "crc", "wrong_shape", "nan", "missing_array", "not_npz"]
)
def test_a_damaged_cache_is_solved_again_and_rewritten(cache, good_bytes, kind):
    path = yz.cache_path(RULES)
    path.with_name("good.npz").write_bytes(good_bytes)
    _damage(kind, good_bytes, path)
    with pytest.warns(RuntimeWarning, match=f"solver cache .*{path.name}.* damaged"):
        solution = yz.solve(RULES)
    assert np.isfinite(solution.expected_score) and solution.expected_score > 200
    # rewritten whole: the next process loads it without a warning
    yz._MEMORY.pop(RULES, None)
    assert yz._load(path, RULES) is not None
    assert yz.solve(RULES).expected_score == solution.expected_score
    assert not list(cache.glob(".*.tmp"))


def test_a_damaged_cache_does_not_break_the_optimal_agent(cache, good_bytes):
    path = yz.cache_path(RULES)
    path.write_bytes(good_bytes[:1000])
    with pytest.warns(RuntimeWarning, match=path.name):
        agent = make_agent("optimal", game="yahtzee", scratch="any")
    env = gym.make("Yahtzee-v0", scratch="any")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action = agent.act(obs, info["action_mask"])
        assert info["action_mask"][action]
        obs, _, done, _, info = env.step(action)


def test_cache_files_get_the_usual_permissions(cache):
    old = os.umask(0o022)
    try:
        yz.solve(RULES)
    finally:
        os.umask(old)
    assert os.stat(yz.cache_path(RULES)).st_mode & 0o777 == 0o644


def test_a_kill_during_a_save_leaves_no_temp_file_for_long(cache):
    """A process killed in the middle of writing the cache: the target is absent (never
    half-written), and the next save removes the orphaned temp file."""
    code = """
import os, signal, numpy as np
import agents.optimal.scorecard as yz
import envs  # noqa: F401  (registers the ids)
from envs.rules.scorecard import make_rules
def savez_then_die(f, **arrays):
    f.write(b"PK" + b"x" * 5000)  # a partial zip on disk
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)
np.savez = savez_then_die
yz.solve(make_rules("russian", scratch="any"))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DICEPOKER_GYM_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    left = list(cache.glob(".*.tmp"))
    assert len(left) == 1 and not yz.cache_path(RULES).exists()
    yz.solve(RULES)  # this process solves and saves: the dead writer's temp file goes
    assert not list(cache.glob(".*.tmp"))
    assert yz._load(yz.cache_path(RULES), RULES) is not None


def test_two_processes_building_the_same_cache_at_once_both_get_it(cache):
    """Two test workers (pytest -n 2) may solve the same rules into the same folder at the
    same moment: each writes its own temp file and replaces the target whole, so both
    succeed and the file left is a valid solution."""
    code = """
import sys, time
from pathlib import Path
import agents.optimal.scorecard as yz
from envs.rules.scorecard import make_rules
go = Path(sys.argv[1])
Path(sys.argv[2]).touch()  # imported: ready
while not go.exists():
    time.sleep(0.01)
print(yz.solve(make_rules("russian", scratch="any")).expected_score)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DICEPOKER_GYM_CACHE": str(cache)}
    go, ready = cache / "go", [cache / f"ready{i}" for i in range(2)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(go), str(r)], env=env, stdout=subprocess.PIPE
        )
        for r in ready
    ]
    try:
        deadline = time.monotonic() + 300
        while not all(r.exists() for r in ready) and time.monotonic() < deadline:
            time.sleep(0.05)
        go.touch()  # both solve and save now
        outs = [p.communicate(timeout=300)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0]
    found = yz._load(yz.cache_path(RULES), RULES)
    assert found is not None and not list(cache.glob(".*.tmp"))
    assert [float(o) for o in outs] == [found.expected_score] * 2
