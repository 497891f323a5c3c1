"""Speed of a batched engine here against an earlier revision, measured in the same run.

    python benchmarks/ab_speed.py --base 80f1e81 --case DicePoker6-v0:random:16384 \\
        --case DicePoker-v0:heuristic:1024 --case YahtzeeClassic-v0::1024

The machine is shared and its speed moves by a quarter between runs minutes apart, so a
speed-up is only believable as a ratio measured side by side: the base revision and the
working tree (its tracked files, committed or not) are checked out into two temporary git
worktrees, ``base`` and ``here``, and each round times every case once in each (fresh
processes, CPU time: ``--clock cpu`` of ``batched_speed.py``, random legal actions, the
observation encoded every step). Both sides run from folders of the same name length on
purpose: run from the repository itself, identical code measured 0.70x on the memory-bound
classic scorecard at N = 16,384 (the process's memory layout follows its folder and command
line); from two worktrees, 0.95x. A case is ``ENV_ID:OPPONENTS:N`` (``OPPONENTS`` empty for
the scorecard ids). Printed per case: the median steps/s of each side over ``--rounds``
rounds and their ratio (here / base).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run inside a checkout: one case, its steps per CPU second (median of 3 runs of SECONDS)
_MEASURE = r"""
import sys, time
from benchmarks import batched_speed as b  # python -c: the checkout (the cwd) comes first
try:
    from agents.tables import make_engine  # opponents by name, resolved above the envs
except ImportError:  # a checkout from before agents.tables
    from envs.vector import make_engine
b._clock["now"] = time.process_time
env_id, opponents, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
options = {"opponents": opponents} if opponents else {}
engine = make_engine(env_id, n, seed=0, **options)[0]
print(b.median_rate(b.engine_run(engine, True), 3, seconds))
"""


def parse_case(text: str) -> tuple[str, str, int]:
    parts = text.split(":")
    if len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) < 1:
        raise argparse.ArgumentTypeError(
            f"a case is ENV_ID:OPPONENTS:N (e.g. DicePoker6-v0:random:16384), got {text!r}"
        )
    return parts[0], parts[1], int(parts[2])


def measure(checkout: Path, case: tuple[str, str, int], seconds: float) -> float:
    """One timed run of ``case`` in ``checkout``, in a fresh process."""
    env_id, opponents, n = case
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, env_id, opponents, str(n), str(seconds)],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{checkout}: {env_id}:{opponents}:{n} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip())


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the earlier revision (a git ref)")
    parser.add_argument("--case", type=parse_case, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5, help="per timed run")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error(f"--rounds must be >= 1 and --seconds > 0, got {args.rounds}, {args.seconds}")
    lines = ["| case | base steps/s | here steps/s | here / base |", "|---|---|---|---|"]
    # the working tree as a commit (its tracked files, committed or not); HEAD when clean
    here_rev = _git("stash", "create").stdout.strip() or "HEAD"
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"base": Path(tmp) / "base", "here": Path(tmp) / "here"}
        try:
            for path, rev in zip(sides.values(), (args.base, here_rev), strict=True):
                made = _git("worktree", "add", "--detach", str(path), rev)
                if made.returncode:
                    raise SystemExit(f"cannot check out {rev!r}: {made.stderr.strip()}")
            print("\n".join(lines), flush=True)
            for case in args.case:
                rates: dict[str, list[float]] = {"base": [], "here": []}
                for _ in range(args.rounds):
                    for name, path in sides.items():
                        rates[name].append(measure(path, case, args.seconds))
                old, new = (statistics.median(rates[k]) for k in ("base", "here"))
                lines.append(
                    f"| {':'.join(map(str, case))} | {old:,.0f} | {new:,.0f} | {new / old:.2f}x |"
                )
                print(lines[-1], flush=True)
        finally:
            for path in sides.values():
                if path.exists():
                    _git("worktree", "remove", "--force", str(path))
    return lines


if __name__ == "__main__":
    main()
