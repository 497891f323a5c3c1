"""What every training script shares: reading a YAML config into checked dataclasses, the
command line and the run folder's protocol (``--resume``, checkpoints), and the
``metrics.csv`` of a run (one row per evaluation).

A bad config is a :class:`ConfigError` of one line naming the key, the value and what is
allowed; every trainer's command line turns it into one ``<script>: error:`` line and exit
status 2 (:func:`command_line`).
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

ROOT = Path(__file__).resolve().parents[2]
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


def load_sections(
    name: str, trainer: str, sections: dict[str, type], overrides: dict[str, Any] | None
) -> tuple[Path, dict[str, Any]]:
    """Config ``name`` of ``trainer`` (a games-counting one) as its path and its sections,
    each built from its dataclass of ``sections`` (``overrides``, the command line's,
    replace ``run:`` fields): every number positive (:func:`check_positive`; the ``env:``
    section holds none), a run's evaluations of two games or more (a confidence interval
    needs two), ``run.out_dir`` a folder."""
    from train.common.rundir import check_out_dir

    path, data = read_sections(name, tuple(sections), (trainer,))
    built = {}
    for key, cls in sections.items():
        where = f"{path.name}: {key}"
        built[key] = build(cls, data.get(key), where, overrides if key == "run" else None)
        if key != "env":
            check_positive(built[key], where)
    run = built["run"]
    for key in ("eval_games", "final_eval_games"):
        if getattr(run, key) < 2:
            raise ConfigError(
                f"{path.name}: run.{key} must be a whole number >= 2 (a confidence interval "
                f"needs two games), got {getattr(run, key)!r}"
            )
    check_out_dir(run.out_dir, f"{path.name}: run")
    return path, built


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


# The trainers a config may name (its top-level ``trainer:``), each train/<trainer>.py.
TRAINERS = ("ppo", "league", "afterstate", "handvalue", "best_response", "rllib", "mmd")
# the section only one trainer reads: it names the trainer of a config without ``trainer:``
_SECTION_TRAINER = {"value": "afterstate", "league": "league", "learner": "handvalue", "mmd": "mmd"}


# Keys of train/ppo.py's config schema that change what is trained but that not every
# trainer reading the schema (PPO_SCHEMA in train.common.sb3: train/ppo.py, train/rllib.py,
# train/best_response.py) honours: key -> the trainers that do. A config read by another
# trainer that sets one (to anything but its default) stops at load (check_honoured).
HONOURED_BY: dict[str, tuple[str, ...]] = {
    "run.normalize_obs": ("ppo",),  # VecNormalize of the observations
    "run.normalize_reward": ("ppo",),  # VecNormalize of the rewards
    "ppo.policy_kwargs.keep_head": ("ppo",),  # ScorecardPolicy's head: the scorecard games
}


def check_honoured(path: Path, trainer: str, settings: dict[str, tuple[Any, Any]]) -> None:
    """Stop ``trainer`` (its script's name) at the first key of :data:`HONOURED_BY` it does
    not honour that ``settings`` (key -> (value, default)) set to other than the default:
    one line naming the key, its value and the trainers that honour it."""
    for key, trainers in HONOURED_BY.items():
        value, default = settings.get(key, (None, None))
        if trainer not in trainers and value != default:
            scripts = " and ".join(f"train/{t}.py" for t in trainers)
            raise ConfigError(
                f"{path.name}: {key} is not supported by train/{trainer}.py (got {value!r}); "
                f"{scripts} honours it: remove the key or train with {scripts}"
            )


def config_trainer(path: Path, data: dict[str, Any]) -> str | None:
    """The trainer a config names (``trainer:``), else the one its sections imply."""
    trainer = data.get("trainer")
    if trainer is None:
        return next((t for s, t in _SECTION_TRAINER.items() if s in data), None)
    if trainer not in TRAINERS:
        raise ConfigError(f"{path.name}: trainer must be one of {list(TRAINERS)}, got {trainer!r}")
    return trainer


def read_sections(
    name: str, sections: tuple[str, ...], trainers: tuple[str, ...] | None = None
) -> tuple[Path, dict[str, Any]]:
    """Config ``name`` as its path and a mapping of sections, each one of ``sections``
    (``trainer:``, the name of the script that trains it, is always allowed). ``trainers``:
    the trainers that read this kind of config; a config of another trainer is one line
    naming the script to use."""
    path = find_config(name)
    data = _read_yaml(path)
    data = {} if data is None else data
    allowed = ", ".join(sections)
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name}: a config is a mapping with {allowed}; got {data!r}")
    trainer = config_trainer(path, data)
    if trainers is not None and trainer is not None and trainer not in trainers:
        raise ConfigError(
            f"{path.name} is a config of train/{trainer}.py (trainer: {trainer}); "
            f"train it with: python train/{trainer}.py --config {name}"
        )
    data = {k: v for k, v in data.items() if k != "trainer"}
    unknown = sorted(set(data) - set(sections), key=str)
    if unknown:
        hint = ""
        for section, script in _SECTION_TRAINER.items():
            if section in unknown:
                hint = f" (a {section}: section: train with train/{script}.py)"
        raise ConfigError(f"unknown section(s) {unknown} in {path}; allowed: {allowed}{hint}")
    return path, data


# -- the command line and the run folder -----------------------------------------------------


def add_run_arguments(
    parser: argparse.ArgumentParser, total: str = "timesteps", n_envs: bool = True
) -> None:
    """The options every training script of a config takes: ``--config``, ``--total-<total>``
    (``timesteps`` for PPO, ``games`` for the afterstate and hand-value learners), ``--seed``,
    ``--out``, ``--run``, ``--n-envs`` (where ``n_envs``), ``--resume`` and ``--no-progress``."""
    parser.add_argument("--config", required=True, help="a YAML file, or a name in configs/")
    parser.add_argument(f"--total-{total}", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--out", dest="out_dir", help="the folder of run folders (run.out_dir)")
    parser.add_argument(
        "--run",
        metavar="PATH",
        help="this run folder itself (default: out/{game}__{config}__{seed}, "
        "numbered _2, _3, ... when taken; --resume: the newest of that name)",
    )
    if n_envs:
        parser.add_argument("--n-envs", type=int)
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_arguments(
    argv: list[str] | None, description: str, total: str = "timesteps", n_envs: bool = True
) -> tuple[argparse.Namespace, dict[str, Any]]:
    """The command line of a trainer that takes only :func:`add_run_arguments`: the parsed
    arguments and the ``run:`` fields they set (:func:`run_overrides`)."""
    parser = argparse.ArgumentParser(description=description)
    add_run_arguments(parser, total, n_envs)
    args = parser.parse_args(argv)
    return args, run_overrides(args)


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
