"""``dicepoker-train --config C [options]``: run the trainer config ``C`` names (its
``trainer:``; a config without one, by its sections: ``value:`` afterstate, ``league:``
league, ``learner:`` handvalue, else ppo), with the options that trainer takes.

    dicepoker-train --config yahtzee.yaml                 # = python train/ppo.py --config ...
    dicepoker-train --config yahtzee_classic_afterstate.yaml --seed 1
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import importlib
import sys

from train.common.config import ConfigError, _read_yaml, config_trainer, find_config


def trainer_of(name: str) -> str:
    """The trainer config ``name`` names (``ppo`` where it names none)."""
    path = find_config(name)
    data = _read_yaml(path)
    if not isinstance(data, dict):
        return "ppo"  # that trainer's reader names the problem
    return config_trainer(path, data) or "ppo"


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="dicepoker-train", description=__doc__.split("\n\n")[0], add_help=False
    )
    parser.add_argument("--config")
    known, _ = parser.parse_known_args(argv)
    if known.config is None:
        if {"-h", "--help"} & set(argv):
            print(__doc__)
            return
        print("dicepoker-train: error: --config is required", file=sys.stderr)
        raise SystemExit(2)
    try:
        trainer = trainer_of(known.config)
    except (ConfigError, FileNotFoundError) as err:
        print(f"dicepoker-train: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    importlib.import_module(f"train.{trainer}").cli(argv)


if __name__ == "__main__":
    main()
