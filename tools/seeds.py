"""Train one config with several seeds, then summarise them: mean ± sd across seeds.

    python tools/seeds.py afterstate --config yahtzee_classic_afterstate --seeds 0 1 2
    python tools/seeds.py ppo --config yahtzee_classic_ppo --seeds 0 1 2 -- --n-envs 256
    python tools/seeds.py afterstate --config yahtzee_afterstate --seeds 0 1 2 --summary-only

Each seed is its own run of the trainer (``train/<trainer>.py --config C --seed S``, with any
arguments after ``--`` passed on), in its own run folder, so a seed that finished is never
trained again: a seed whose run folder holds a finished run (``final.json``) is skipped, one
that holds checkpoints is continued with ``--resume``. ``--parallel K`` trains K seeds at once
(on 2 cores, K = 2 pays only with ``run.torch_threads: 1`` in the config). Each run's output
goes to ``train.log`` in its run folder; a progress bar counts finished seeds.

The summary reads every seed's ``final.json`` (the trained agent's entry: every figure of it,
e.g. score, % of the optimum, median, the card-bonus rates ``upper_bonus_rate`` /
``stage1_bonus_rate``, wall seconds) and writes, atomically,
``<out>/<run name without the seed>__seeds.json`` and ``.md``: a row per seed and the mean and
sample standard deviation across seeds, which it also prints.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import importlib
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from agents.atomic import write_text
from train.common.results import learner_result
from train.common.rundir import checkpoints

# name -> module: the trainers whose runs are folders of file checkpoints
TRAINERS = {t: f"train.{t}" for t in ("afterstate", "handvalue", "league", "ppo")}


def run_dirs(trainer: str, config: str, seeds: list[int]) -> list[Path]:
    """Each seed's run folder, as the trainer names it (its own config loading)."""
    load = importlib.import_module(TRAINERS[trainer]).load_config
    return [load(config, {"seed": s}).run_dir for s in seeds]


def _train(trainer: str, config: str, seed: int, run_dir: Path, extra: list[str]) -> int:
    if (run_dir / "final.json").is_file():
        return 0  # finished before
    # a checkpoint only: a temporary file left by a kill in the middle of the first save is none
    resume = ["--resume"] if checkpoints(run_dir) else []
    script = ROOT / "train" / f"{trainer}.py"
    cmd = [sys.executable, str(script), "--config", config, "--seed", str(seed)]
    cmd += ["--run", str(run_dir)]  # this seed's folder itself, never a numbered one
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "train.log").open("a") as log:
        return subprocess.call([*cmd, "--no-progress", *resume, *extra], stdout=log, stderr=log)


def _learner(final: dict) -> dict[str, float]:
    """The trained agent's figures: its entry of final.json (``learner`` names it), numbers only."""
    entry = learner_result(final)
    return {k: float(v) for k, v in entry.items() if isinstance(v, int | float)}


def summarise(dirs: list[Path]) -> dict:
    """Per-seed figures and their mean and sample sd across the seeds that finished."""
    seeds = {}
    for d in dirs:
        if (d / "final.json").is_file():
            seeds[d.name] = _learner(json.loads((d / "final.json").read_text()))
    keys = [k for k in next(iter(seeds.values()), {}) if all(k in v for v in seeds.values())]
    across = {}
    for k in keys:
        x = [v[k] for v in seeds.values()]
        mean = sum(x) / len(x)
        sd = math.sqrt(sum((a - mean) ** 2 for a in x) / (len(x) - 1)) if len(x) > 1 else 0.0
        across[k] = {"mean": mean, "sd": sd}
    return {
        "seeds": seeds,
        "mean_sd": across,
        "missing": [d.name for d in dirs if d.name not in seeds],
    }


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def markdown(summary: dict) -> str:
    keys = list(summary["mean_sd"])
    lines = ["| run | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for name, v in summary["seeds"].items():
        lines.append(f"| {name} | " + " | ".join(_fmt(v[k]) for k in keys) + " |")
    ms = summary["mean_sd"]
    lines.append(
        f"| mean ± sd ({len(summary['seeds'])} seeds) | "
        + " | ".join(f"{_fmt(ms[k]['mean'])} ± {_fmt(ms[k]['sd'])}" for k in keys)
        + " |"
    )
    if summary["missing"]:
        lines.append(f"\nnot finished: {', '.join(summary['missing'])}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trainer", choices=sorted(TRAINERS))
    parser.add_argument("--config", required=True, help="a YAML file, or a name in configs/")
    parser.add_argument("--seeds", type=int, nargs="+", required=True)
    parser.add_argument("--parallel", type=int, default=1, help="seeds trained at once")
    parser.add_argument("--summary-only", action="store_true", help="no training: the table")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if args.parallel < 1:
        parser.error(f"--parallel must be >= 1, got {args.parallel}")
    if len(set(args.seeds)) != len(args.seeds) or min(args.seeds) < 0:
        parser.error(f"--seeds must be distinct whole numbers >= 0, got {args.seeds}")
    if {"--seed", "--out", "--run"} & set(extra):
        parser.error("--seed, --out and --run are set by seeds.py: give --seeds, and run.out_dir")
    try:
        dirs = run_dirs(args.trainer, args.config, args.seeds)
    except (ValueError, TypeError, FileNotFoundError) as err:
        parser.exit(2, f"seeds.py: error: {err}\n")
    if not args.summary_only:
        from tqdm import tqdm

        failed = []
        with (
            tqdm(total=len(dirs), desc="seeds", unit="seed", disable=args.no_progress) as bar,
            ThreadPoolExecutor(args.parallel) as pool,
        ):
            jobs = {
                pool.submit(_train, args.trainer, args.config, s, d, extra): (s, d)
                for s, d in zip(args.seeds, dirs, strict=True)
            }
            for job in jobs:  # in seed order; the bar moves as each one ends
                if job.result() != 0:
                    failed.append(jobs[job])
                bar.update()
        for seed, d in failed:
            print(f"seed {seed} failed: see {d / 'train.log'}", file=sys.stderr)
    summary = summarise(dirs)
    if not summary["seeds"]:
        parser.exit(1, "seeds.py: no seed has finished, nothing to summarise\n")
    stem = dirs[0].parent / dirs[0].name.rsplit("__", 1)[0]
    write_text(Path(f"{stem}__seeds.json"), json.dumps(summary, indent=1))
    table = markdown(summary)
    write_text(Path(f"{stem}__seeds.md"), table)
    print(table, end="")
    if not args.summary_only and failed:
        sys.exit(1)
    return summary


def cli() -> None:
    """The command line (``dicepoker-seeds``)."""
    main()


if __name__ == "__main__":
    cli()
