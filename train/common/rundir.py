"""The run folder of every trainer: ``{out_dir}/{game}__{config}__{seed}``.

- A **fresh run** takes that folder, or, when it is taken, the next free number after it
  (``..._2``, ``..._3``, as the SB3 zoo numbers its experiments): a folder is taken when it
  holds a checkpoint, a finished run (``final.json``) or any file tracked by git. A folder
  an attempt left before its first checkpoint holds nothing worth keeping and is reused.
- ``--resume`` continues the newest folder of that name that holds a checkpoint.
- ``--run PATH`` names the folder itself: a fresh run there refuses a folder that is
  taken, ``--resume`` needs a checkpoint there.
- A run never writes into a folder holding files that git tracks (the committed runs):
  ``git ls-files`` asks, where the folder is in a checkout (outside one, nothing is tracked).

Checkpoints are ``checkpoints/<kind>_<count>.<ext>`` (``step_512.zip``, ``games_4096.pt``):
a temporary file left by a kill in the middle of a save (``.step_512.zip.PID.tmp``) is no
checkpoint. Each checkpoint knows how many ``metrics.csv`` rows were written when it was
saved (:func:`save_rows`, :func:`rows_of`): a resumed run takes the rows written after it
as its own evaluations at those steps (:class:`Rows`), so that every evaluation point has
one row, none missing, none twice.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from agents.atomic import write_text
from train.common.config import ConfigError


class RunNamed:
    """The names of a config's run (a mixin of the trainers' config dataclasses, which have
    ``name``, ``env.id``, ``run.seed`` and ``run.out_dir``): its game, ``run_name``
    (``{game}__{config}__{seed}``) and ``run_dir``: ``out_dir/run_name`` until the run has
    chosen its own folder (:meth:`use_folder`: a numbered one, or ``--run``)."""

    _folder = None

    @property
    def game(self) -> str:
        from envs import games

        return games.by_gym_id(self.env.id).name

    @property
    def run_name(self) -> str:
        return f"{self.game}__{self.name}__{self.run.seed}"

    @property
    def run_dir(self) -> Path:
        return self._folder or Path(self.run.out_dir) / self.run_name

    def use_folder(self, folder: Path) -> None:
        self._folder = Path(folder)

    def sections(self, trainer: str) -> dict:
        """The resolved config a run writes to its ``config.yaml``: ``trainer:`` and every
        section of this config."""
        import dataclasses

        names = [f.name for f in dataclasses.fields(self) if f.name != "name"]
        return {"trainer": trainer, **{k: getattr(self, k) for k in names}}


_CHECKPOINT = re.compile(r"^[a-z]+_(\d+)\.(zip|pt|npz)$")
FINISHED = "final.json"


def checkpoint_step(path: Path) -> int:
    """The count in a checkpoint's name (``step_<n>.zip``, ``games_<n>.pt``)."""
    return int(path.stem.split("_")[1])


def checkpoints(run_dir: Path, pattern: str | None = None) -> list[Path]:
    """The checkpoints of ``run_dir`` (``pattern``: a glob of their names), oldest first;
    temporary files and the row files beside them are none."""
    folder = Path(run_dir) / "checkpoints"
    if not folder.is_dir():
        return []
    found = [
        p
        for p in folder.glob(pattern or "*")
        if p.is_file() and _CHECKPOINT.match(p.name) and p.stat().st_size > 0
    ]
    return sorted(found, key=checkpoint_step)


def tracked_files(folder: Path) -> list[str]:
    """The files under ``folder`` that git tracks (none outside a checkout, or without git)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "ls-files", "-z", "--", "."],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if out.returncode != 0:
        return []
    return [p for p in out.stdout.decode(errors="replace").split("\0") if p]


def numbered(base: Path, k: int) -> Path:
    """The ``k``-th folder of a run name: ``base`` itself, then ``base_2``, ``base_3``..."""
    return base if k == 1 else base.with_name(f"{base.name}_{k}")


def _why_taken(folder: Path, pattern: str | None) -> str | None:
    if folder.exists() and not folder.is_dir():
        return "a file"
    if not folder.exists():
        return None
    if tracked_files(folder):
        return "files tracked by git"
    if (folder / FINISHED).exists():
        return "a finished run"
    found = checkpoints(folder, pattern)
    if found:
        return f"checkpoints of an unfinished run (newest {found[-1].name})"
    return None


def _family(base: Path) -> list[Path]:
    """``base`` and its numbered folders that exist, in number order."""
    ks = [1] if base.exists() else []
    if base.parent.is_dir():
        for p in base.parent.glob(f"{base.name}_*"):
            tail = p.name[len(base.name) + 1 :]
            if tail.isdigit() and int(tail) >= 2:
                ks.append(int(tail))
    return [numbered(base, k) for k in sorted(ks)]


def _refuse_tracked(folder: Path) -> None:
    tracked = tracked_files(folder)
    if tracked:
        raise ConfigError(
            f"{folder} holds files tracked by git ({tracked[0]}, ...); a run never writes "
            "over them: start a fresh run (it takes the next free number) or choose --out"
        )


def choose_run_dir(
    base: Path, resume: bool, run: str | Path | None = None, pattern: str | None = None
) -> tuple[Path, list[Path]]:
    """The folder this run writes and its checkpoints (oldest first), by the rules of the
    module docstring: ``base`` is the run name's folder, ``run`` the ``--run`` option."""
    if run is not None:
        folder = Path(run)
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"--run {str(folder)!r} is a file; choose a folder")
        found = checkpoints(folder, pattern)
        if resume:
            if not found:
                raise FileNotFoundError(f"--resume: no checkpoint in {folder / 'checkpoints'}")
            _refuse_tracked(folder)
            return folder, found
        why = _why_taken(folder, pattern)
        if why == "a finished run":
            raise FileExistsError(f"{folder} already holds a finished run; use --out or --seed")
        if why is not None and why.startswith("checkpoints"):
            raise FileExistsError(
                f"{folder} holds {why}: continue it with --resume, or start another with "
                "--out or --seed"
            )
        if why is not None:
            raise FileExistsError(f"{folder} holds {why}; choose another --run")
        return folder, []
    base = Path(base)
    if resume:
        with_checkpoints = [f for f in _family(base) if checkpoints(f, pattern)]
        if not with_checkpoints:
            raise FileNotFoundError(f"--resume: no checkpoint in {base / 'checkpoints'}")
        folder = with_checkpoints[-1]
        _refuse_tracked(folder)
        return folder, checkpoints(folder, pattern)
    k = 1
    while (why := _why_taken(numbered(base, k), pattern)) is not None:
        k += 1
    folder = numbered(base, k)
    if k > 1:
        first = _why_taken(base, pattern)
        print(f"{base} is taken ({first}); this run goes to {folder}", file=sys.stderr)
    return folder, []


def check_out_dir(out_dir: str, where: str) -> None:
    """``run.out_dir`` (``--out``) is a folder, or can become one: no file on its way."""
    existing = Path(out_dir)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(
            f"{where}.out_dir (--out) {out_dir!r}: {str(existing)!r} is a file, not a folder"
        )


# -- the metrics rows each checkpoint knows ---------------------------------------------------


def rows_path(checkpoint: Path) -> Path:
    """The file beside a checkpoint that holds its row count (``step_512.rows.json``)."""
    return checkpoint.with_name(f"{checkpoint.stem}.rows.json")


def count_rows(metrics: Path) -> int:
    """The whole rows of a metrics file (its header not counted)."""
    if not metrics.exists():
        return 0
    data = metrics.read_bytes()
    lines = data[: data.rfind(b"\n") + 1].count(b"\n")
    return max(lines - 1, 0)


def save_rows(checkpoint: Path, metrics: Path) -> None:
    """Write, before the checkpoint itself, how many rows ``metrics`` holds now."""
    write_text(rows_path(checkpoint), json.dumps({"rows": count_rows(metrics)}))


def rows_of(checkpoint: Path) -> int | None:
    """The row count saved with a checkpoint; None for a checkpoint without one."""
    try:
        return int(json.loads(rows_path(checkpoint).read_text())["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def prepare(
    run_dir: Path,
    resume: bool,
    resolved: dict,
    folders: tuple[str, ...] = (),
    stale: tuple[str, ...] = (),
) -> Path:
    """Make the run folder ready to write; its ``metrics.csv`` path.

    Fresh: what an attempt killed before its first checkpoint left (``metrics.csv``,
    ``progress.log``, the files of the globs ``stale``) is removed. Resumed: ``final.json``
    is removed (a finished run trained further is not finished until it is). Both:
    ``checkpoints/`` and ``folders`` exist, temporary files of killed saves are swept,
    ``config.yaml`` holds the resolved config ``resolved`` and a row a kill cut short is
    dropped."""
    import yaml

    from agents.atomic import sweep_stale_temps
    from train.common.config import repair_csv

    metrics = run_dir / "metrics.csv"
    for folder in (run_dir, run_dir / "checkpoints", *(run_dir / f for f in folders)):
        folder.mkdir(parents=True, exist_ok=True)
        sweep_stale_temps(folder)
    if not resume:
        for name in ("metrics.csv", "progress.log"):
            (run_dir / name).unlink(missing_ok=True)
        for pattern in stale:
            for old in run_dir.glob(pattern):
                old.unlink()
    write_text(run_dir / "config.yaml", yaml.safe_dump(resolved, sort_keys=False))
    repair_csv(metrics)
    if resume:  # a finished run trained further is not finished again until this run is
        (run_dir / FINISHED).unlink(missing_ok=True)
    return metrics


class Rows:
    """The ``metrics.csv`` of a run, appended one evaluation at a time (:meth:`add`).

    Resumed from checkpoint ``last``, the rows a killed attempt wrote after that checkpoint
    (it knows how many rows came before it: :func:`rows_of`) stand for the evaluations the
    resumed run makes again at the same steps, in the same order: those are not written a
    second time, so every evaluation point has one row, none missing, none twice, and no
    whole row is ever taken back. Where a resumed run does not repeat the steps exactly
    (RLlib samples a few steps more or fewer after a resume), ``every`` (the evaluation
    interval) makes rows match by evaluation point, ``step // every``, instead of by step."""

    def __init__(
        self,
        path: Path,
        key: str,
        resume: bool = False,
        last: Path | None = None,
        every: int | None = None,
    ):
        import csv

        self.path, self.key = Path(path), key
        self.every = every
        self.pending: list[float] = []
        if resume and last is not None and self.path.exists():
            with self.path.open(newline="") as f:
                rows = list(csv.DictReader(f))
            known = rows_of(last)
            if known is None:  # an older checkpoint: the rows up to its step came before it
                step = checkpoint_step(last)
                known = sum(1 for r in rows if float(r[key]) <= step)
            self.pending = [float(r[key]) for r in rows[known:]]

    def checkpoint(self, name: str, save) -> Path:
        """Checkpoint ``name`` of the run (``checkpoints/`` beside the metrics): how many rows
        are written first, then ``save(path)`` writes the checkpoint itself (atomically: it is
        there only when it is whole); its path."""
        path = self.path.parent / "checkpoints" / name
        save_rows(path, self.path)
        save(path)
        return path

    def point(self, step: float) -> float:
        """Where a row's step falls: the step itself, or its evaluation point (``every``)."""
        return step if self.every is None else step // self.every

    def add(self, row: dict) -> bool:
        """Append ``row`` unless it is one a killed attempt wrote already; whether it was."""
        from train.common.config import append_csv

        point = self.point(float(row[self.key]))
        while self.pending and self.point(self.pending[0]) < point:
            self.pending.pop(0)  # a finished run trained further: its final row stays
        if self.pending and self.point(self.pending[0]) == point:
            self.pending.pop(0)
            return False
        append_csv(self.path, row)
        return True


def check_more_to_train(run_dir: Path, done: int, total: int, unit: str) -> None:
    """``--resume`` of a finished run must train it further: resuming one that has its
    ``total`` already would only measure its end again (a second final row)."""
    if (run_dir / FINISHED).exists() and done >= total:
        raise FileExistsError(
            f"{run_dir} already holds a finished run of {done} {unit}; give a larger "
            f"--total-{unit} to train it further"
        )


def resuming(run_dir: Path, last: Path, done: int, total: int, unit: str, more: str = "") -> None:
    """A resumed run from checkpoint ``last`` at ``done`` of ``total`` units: refused where
    it would not train further (:func:`check_more_to_train`), else said in one line."""
    check_more_to_train(run_dir, done, total, unit)
    print(f"resuming {run_dir} from {last.name} ({done} {unit}{more})")


def open_folder(
    run_dir: Path,
    resume: bool,
    last: Path | None,
    sections: dict,
    key: str,
    total: int,
    done: int = 0,
    wall_before: float | None = None,
    folders: tuple[str, ...] = (),
    stale: tuple[str, ...] = (),
    every: int | None = None,
):
    """Ready the run folder to write (:func:`prepare`: ``config.yaml`` from ``sections``,
    dataclasses or mappings; ``folders`` made; ``stale``: globs a fresh start removes) and
    say how much is left; ``(Rows, Progress)`` of a run counted in ``key`` (``timesteps``,
    ``games``) up to ``total``, ``done`` and ``wall_before`` seconds spent when it starts
    (None: the ``wall_s`` of the last metrics row of a resumed run; ``last``: the checkpoint
    resumed from, None for a fresh run; ``every``: :class:`Rows`)."""
    import dataclasses

    from train.common.config import last_row
    from train.common.progress import Progress

    resolved = {
        k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) else v for k, v in sections.items()
    }
    metrics = prepare(run_dir, resume, resolved, folders, stale)
    if wall_before is None:
        wall_before = float(last_row(metrics).get("wall_s") or 0.0) if resume else 0.0
    unit = "steps" if key == "timesteps" else key
    progress = Progress(run_dir, total, done, unit, float(wall_before))
    progress.start(run_dir.name)
    return Rows(metrics, key, resume, last, every), progress


def due(count: int, step: int, every: int) -> bool:
    """Whether the last ``step`` units, up to ``count``, passed a multiple of ``every`` (an
    evaluation or checkpoint falls due)."""
    return count // every > (count - step) // every
