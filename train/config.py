"""What every training script shares: reading a YAML config into checked dataclasses, the
command line and the run folder's protocol (``--resume``, checkpoints), and the
``metrics.csv`` of a run (one row per evaluation).

A bad config is a :class:`ConfigError` of one line naming the key, the value and what is
allowed; the scripts turn it into exit status 2 (``train/ppo.py``'s ``command_line``) or
one ``error:`` line.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agents.atomic import atomic_write

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "configs"


class ConfigError(ValueError):
    """A bad config, option or run folder: one line naming the key, the value, what is allowed."""


# -- values ----------------------------------------------------------------------------------


def is_int(value: Any) -> bool:
    """A whole number (a bool is none)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite int or float (a bool is none)."""
    return (is_int(value) or isinstance(value, float)) and bool(np.isfinite(value))


_KINDS = {
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    str: "text",
    list: "a list",
    dict: "a mapping",
}


def _type_ok(value: Any, default: Any) -> bool:
    """``value`` has the type of ``default`` (an int is a float too; a bool is no int)."""
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return is_int(value)
    if isinstance(default, float):
        return is_int(value) or isinstance(value, float)
    return isinstance(value, type(default))


def _default(f: dataclasses.Field) -> Any:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def build(cls, data: Any, where: str, overrides: dict[str, Any] | None = None):
    """Build dataclass ``cls`` from a mapping, naming any unknown, missing or mistyped key.

    ``data`` None is an empty section (every field its default). ``overrides`` (the command
    line's) replace keys of ``data`` where they are not None. A field whose default is a
    dataclass is built from its own mapping (``where.name``); a field's type is its
    default's (fields without a default take any value).
    """
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {data!r}")
    data = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(known), key=str)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(known)}")
    for f in known.values():
        if f.name not in data and _default(f) is dataclasses.MISSING:
            raise ConfigError(f"{where}.{f.name} is missing")
    values = {}
    for name, value in data.items():
        default = _default(known[name])
        if dataclasses.is_dataclass(default):
            value = build(type(default), value, f"{where}.{name}")
        elif default is not dataclasses.MISSING and not _type_ok(value, default):
            kind = _KINDS.get(type(default), type(default).__name__)
            raise ConfigError(f"{where}.{name} must be {kind}, got {value!r}")
        values[name] = value
    return cls(**values)


def check_positive(obj: Any, where: str) -> None:
    """Every number field of dataclass ``obj`` (and of the dataclasses in it) is positive: a
    whole-number field ``>= 1`` (``seed``: ``>= 0``), a number field finite and ``> 0``. A
    field's kind is its default's type, as in :func:`build`; ``obj`` is built already."""
    for f in dataclasses.fields(obj):
        value, default = getattr(obj, f.name), _default(f)
        if dataclasses.is_dataclass(value):
            check_positive(value, f"{where}.{f.name}")
        elif isinstance(default, bool):
            continue
        elif isinstance(default, int):
            least = 0 if f.name == "seed" else 1
            if not value >= least:
                allowed = f"a whole number >= {least}"
                raise ConfigError(f"{where}.{f.name} must be {allowed}, got {value!r}")
        elif isinstance(default, float) and not (is_number(value) and value > 0):
            raise ConfigError(f"{where}.{f.name} must be a number > 0, got {value!r}")


# -- files -----------------------------------------------------------------------------------


def find_config(name: str) -> Path:
    """``name`` as a path, else a file of ``configs/`` (``.yaml`` may be left off)."""
    path = Path(name)
    if path.is_file():
        return path
    for candidate in (CONFIG_DIR / name, CONFIG_DIR / f"{name}.yaml"):
        if candidate.is_file():
            return candidate
    available = sorted(p.name for p in CONFIG_DIR.glob("*.yaml"))
    raise FileNotFoundError(f"no config {name!r} here or in configs/; available: {available}")


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ConfigError(f"{path}: not valid YAML{where}: {problem}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read the config: {err}") from None


def read_sections(name: str, sections: tuple[str, ...]) -> tuple[Path, dict[str, Any]]:
    """Config ``name`` as its path and a mapping of sections, each one of ``sections``."""
    path = find_config(name)
    data = _read_yaml(path)
    data = {} if data is None else data
    allowed = ", ".join(sections)
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name}: a config is a mapping with {allowed}; got {data!r}")
    unknown = sorted(set(data) - set(sections), key=str)
    if unknown:
        hint = " (a value: section: train with train/afterstate.py)" if "value" in unknown else ""
        if "league" in unknown:
            hint = " (a league: section: train with train/league.py)"
        if "learner" in unknown:
            hint = " (a learner: section: train with train/handvalue.py)"
        raise ConfigError(f"unknown section(s) {unknown} in {path}; allowed: {allowed}{hint}")
    return path, data


# -- the command line and the run folder -----------------------------------------------------


def add_run_arguments(
    parser: argparse.ArgumentParser, total: str = "timesteps", n_envs: bool = True
) -> None:
    """The options every training script of a config takes: ``--config``, ``--total-<total>``
    (``timesteps`` for PPO, ``games`` for the afterstate and hand-value learners), ``--seed``,
    ``--out``, ``--n-envs`` (where ``n_envs``), ``--resume`` and ``--no-progress``."""
    parser.add_argument("--config", required=True, help="a YAML file, or a name in configs/")
    parser.add_argument(f"--total-{total}", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--out", dest="out_dir")
    if n_envs:
        parser.add_argument("--n-envs", type=int)
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The ``run:`` fields the command line sets (None where it does not)."""
    keys = ("total_timesteps", "total_games", "seed", "out_dir", "n_envs")
    return {k: getattr(args, k) for k in keys if hasattr(args, k)}


def command_line(main, prog: str, argv: list[str] | None = None) -> None:
    """Run ``main(argv)``: a bad config, option or run folder is one line and exit status 2."""
    try:
        main(argv)
    except (ConfigError, FileNotFoundError, FileExistsError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def checkpoint_step(path: Path) -> int:
    """The count in a checkpoint's name (``step_<n>.zip``, ``games_<n>.pt``)."""
    return int(path.stem.split("_")[1])


def check_run_folder(
    run_dir: Path, resume: bool, checkpoint: str = "step_*.zip", final: str = "model.zip"
) -> list[Path]:
    """The run folder's state against ``--resume``; returns its checkpoints (files named
    ``checkpoint`` in ``run_dir/checkpoints``), oldest first. ``final``: the file a finished
    run leaves.

    A folder with checkpoints but no ``--resume`` is an error rather than a silent
    fresh start beside them: a later ``--resume`` would continue the old attempt.
    """
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"run folder {str(run_dir)!r} is a file; choose another --out")
    ckpt_dir = run_dir / "checkpoints"
    checkpoints = sorted(ckpt_dir.glob(checkpoint), key=checkpoint_step)
    if not resume and (run_dir / final).exists():
        raise FileExistsError(f"{run_dir} already holds a finished run; use --out or --seed")
    if not resume and checkpoints:
        raise FileExistsError(
            f"{run_dir} holds checkpoints of an unfinished run (newest {checkpoints[-1].name}): "
            "continue it with --resume, or start another with --out or --seed"
        )
    if resume and not checkpoints:
        raise FileNotFoundError(f"--resume: no checkpoint in {ckpt_dir}")
    return checkpoints


# -- metrics ---------------------------------------------------------------------------------


def append_csv(path: Path, row: dict[str, Any]) -> None:
    """Append ``row`` (flushed to disk), so a kill cannot take earlier rows with it. A row with
    new columns (a resumed run measuring more) rewrites the file widened, atomically."""
    header: list[str] = []
    if path.exists() and path.stat().st_size:
        with path.open(newline="") as f:
            header = next(csv.reader(f), [])
    if header and set(row) <= set(header):
        with path.open("a", newline="") as f:
            csv.DictWriter(f, fieldnames=header).writerow(row)
            f.flush()
            os.fsync(f.fileno())
        return
    rows = []
    if header:
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
    fields = list(dict.fromkeys(header + list(row)))
    with atomic_write(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows([*rows, row])


def repair_csv(path: Path) -> None:
    """Drop a last row that a kill cut short (no newline yet): it was never written whole."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with atomic_write(path) as f:
            f.write(data[: data.rfind(b"\n") + 1])


def last_row(path: Path) -> dict[str, str]:
    """The last row of a metrics file, ``{}`` where there is none."""
    if not path.exists():
        return {}
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return rows[-1] if rows else {}
