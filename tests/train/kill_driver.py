"""Kill real training runs with SIGKILL, again and again, then let one finish (used by
``test_train_ppo.py::test_sigkill_at_random_moments_then_resume`` and ``test_kill.py``).

    python tests/train/kill_driver.py [TRAINER] CONFIG KILLS SEED LOG.json [REFERENCE_OUT]

TRAINER is ``ppo`` (the default), ``league``, ``afterstate``, ``handvalue``,
``best_response`` or ``rllib`` (in a venv with ray). The driver
imports everything once, then forks one child per run (a fork is fast; the driver itself
never runs torch, so forking is safe). Each child runs ``train/<TRAINER>.py``'s ``main``
(with ``--resume`` once a checkpoint exists) and dies by one of three deaths, in turn:

- ``timer``: the driver sends SIGKILL after a random delay;
- ``mid_save``: the child kills itself in the middle of writing one of its files
  (the n-th file it writes, after m of its writes);
- ``after_checkpoint``: the child kills itself right after a checkpoint is in place,
  before that step is evaluated.

After each death the driver records what is on disk; a last run finishes. With
REFERENCE_OUT, one more child then runs the same config uninterrupted with
``--out REFERENCE_OUT`` (the run a killed one must match). The log (JSON) is for the test
to check.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import re
import signal
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import sb3_contrib  # noqa: E402,F401  (imported before forking: each child starts warm)
import torch  # noqa: E402,F401

from train.common.rundir import _CHECKPOINT, checkpoints  # noqa: E402

TRAINERS = ("ppo", "league", "afterstate", "handvalue", "best_response", "rllib")
NO_PROGRESS_FLAG = {"rllib"}  # trainers without --no-progress
# a timer's delay (s) where the default would kill only a slow start (Ray's: about 6 s)
DELAYS = {"rllib": (5.0, 10.0)}
_FOLDER = re.compile(r"^step_\d+$")  # train/rllib.py's checkpoints: RLlib's folders


def found(run_dir: Path) -> list[Path]:
    """The checkpoints of ``run_dir``: the trainers' files, or train/rllib.py's folders."""
    folders = Path(run_dir) / "checkpoints"
    rllib = [p for p in folders.glob("step_*") if p.is_dir() and _FOLDER.match(p.name)]
    return checkpoints(run_dir) + sorted(rllib, key=lambda p: int(p.name[5:]))


def snapshot(run_dir: Path) -> dict:
    """What is on disk: checkpoints, whole metrics lines, every file name."""
    ckpts = [p.name for p in found(run_dir)]
    metrics = run_dir / "metrics.csv"
    text = metrics.read_bytes().decode() if metrics.exists() else ""
    whole = text[: text.rfind("\n") + 1].splitlines()
    files = sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file())
    return {"checkpoints": ckpts, "metrics": whole, "files": files}


class DyingWriter(io.BufferedWriter):
    """A file that writes the first half of its ``die_at``-th write, then kills the process;
    at the latest it dies when flushed, before the writer can fsync and rename it
    (a real BufferedWriter: SB3 accepts no other file object)."""

    def __init__(self, raw, die_at: int) -> None:
        super().__init__(raw)
        self._left = die_at

    def write(self, data):
        self._left -= 1
        if self._left <= 0:
            super().write(bytes(data)[: max(1, len(data) // 2)])
            super().flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().write(data)

    def flush(self):
        super().flush()
        os.kill(os.getpid(), signal.SIGKILL)


MID_SAVE_FILES = 8  # mid_save dies in one of the first this many files a run writes


def arm(death: str, rng: random.Random) -> None:
    """In the child: arrange its own death."""
    if death == "mid_save":
        nth, mth = rng.randint(1, MID_SAVE_FILES), rng.randint(1, 6)
        real_fdopen = os.fdopen
        count = [0]

        def fdopen(fd, mode="r", *args, **kwargs):
            count[0] += 1
            if count[0] != nth:
                return real_fdopen(fd, mode, *args, **kwargs)
            dying = DyingWriter(io.FileIO(fd, "wb"), mth)  # atomic_write only writes
            if "b" in mode:
                return dying
            return io.TextIOWrapper(
                dying, encoding=kwargs.get("encoding"), newline=kwargs.get("newline")
            )

        os.fdopen = fdopen  # agents.atomic opens every file it writes with os.fdopen
    elif death == "after_checkpoint":
        nth = rng.randint(1, 3)
        real_replace = os.replace
        count = [0]

        def replace(src, dst, *args, **kwargs):
            real_replace(src, dst, *args, **kwargs)
            name = Path(dst).name
            rllib = _FOLDER.match(name) and Path(dst).is_dir()
            if Path(dst).parent.name == "checkpoints" and (_CHECKPOINT.match(name) or rllib):
                count[0] += 1
                if count[0] == nth:
                    os.kill(os.getpid(), signal.SIGKILL)

        os.replace = replace


def run_once(main, argv: list[str], death: str | None, delay: float, rng: random.Random) -> dict:
    read_end, write_end = os.pipe()
    child_seed = rng.randrange(2**32)
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        sys.stdout.reconfigure(line_buffering=True)  # a line printed is in the pipe at the kill
        code = 0
        try:
            if death in ("mid_save", "after_checkpoint"):
                arm(death, random.Random(child_seed))
            main(argv)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(write_end)
    started = time.monotonic()
    limit = delay if death == "timer" else 120.0
    status = None
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
        elif time.monotonic() - started > limit:
            os.kill(pid, signal.SIGKILL)
            status = os.waitpid(pid, 0)[1]
        else:
            time.sleep(0.01)
    with os.fdopen(read_end) as f:
        output = f.read()
    return {
        "death": death,
        "delay": round(delay, 3),
        "seconds": round(time.monotonic() - started, 3),
        "killed": os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL,
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "output": output[-3000:],
    }


def main() -> None:
    global MID_SAVE_FILES
    args = sys.argv[1:]
    trainer, longest = "ppo", 1.5
    if args[0] in TRAINERS:  # a run of a few files and seconds: deaths within them
        trainer, longest, MID_SAVE_FILES = args.pop(0), 4.0, 3
    config, kills, seed, log = args[0], int(args[1]), int(args[2]), args[3]
    reference = args[4] if len(args) > 4 else None
    module = importlib.import_module(f"train.{trainer}")
    if trainer == "best_response":  # its folder is named by the table it plays
        table, _, run = module.load_config(config)
        run_dir = module.run_base(table, run)
    else:
        cfg = module.load_config(config)
        run_dir = cfg.run_dir
    # the solvers every child asks (numpy only): once here, then each child has them
    if trainer == "afterstate":
        module.optimal_score(cfg)
    elif trainer == "handvalue":
        from agents import make_agent

        make_agent("optimal", cfg.game, **cfg.rule_options)
    quiet = [] if trainer in NO_PROGRESS_FLAG else ["--no-progress"]
    rng = random.Random(seed)
    deaths = ["timer", "mid_save", "after_checkpoint"]
    events = []
    for i in range(kills + 1):
        if (run_dir / "final.json").exists():
            break  # finished (a late timer): nothing left to kill
        resume = bool(found(run_dir))
        argv = ["--config", config, *quiet, *(["--resume"] if resume else [])]
        before = snapshot(run_dir) if run_dir.exists() else None
        death = deaths[i % 3] if i < kills else None
        low, high = DELAYS.get(trainer, (0.3, longest))
        event = run_once(module.main, argv, death, rng.uniform(low, high), rng)
        event.update(resume=resume, before=before, after=snapshot(run_dir))
        events.append(event)
    if reference is not None:
        argv = ["--config", config, *quiet, "--out", reference]
        event = run_once(module.main, argv, None, 0.0, rng)
        event.update(resume=False, before=None, after=None, reference=True)
        events.append(event)
    Path(log).write_text(json.dumps(events, indent=1))


if __name__ == "__main__":
    main()
