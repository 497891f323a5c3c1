"""The one reader of ``--rule KEY=VALUE`` options, shared by every script.

Every command line of the project (``tools/play.py``, ``tools/benchmark.py``,
``train/ppo.py``, ``benchmarks/*.py``) turns its repeated ``--rule KEY=VALUE``
flags into keyword arguments with :func:`parse_rule_options`, so a value means
the same thing everywhere:

========================  ===========================================
text                      value
========================  ===========================================
``true`` / ``false``      ``True`` / ``False`` (any letter case)
``none`` / ``null``       ``None`` (e.g. ``joker_card=none``: no joker)
``2``, ``-1``             ``int``
``0.5``, ``1e-3``         ``float`` (finite only: ``nan`` and ``inf``
                          stay strings, so the options reject them)
anything else             the string, unchanged (``joker=free``, ``6S``)
========================  ===========================================

This module imports nothing from the project, gymnasium or agents, so any
layer may use it.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection, Iterable

__all__ = ["add_rule_argument", "parse_rule_options", "parse_rule_value", "rule_options"]


def parse_rule_value(text: str) -> bool | int | float | str | None:
    """A rule option's value from its command-line text (the table in the module docstring)."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def parse_rule_options(
    pairs: Iterable[str], allowed: Collection[str] | None = None
) -> dict[str, bool | int | float | str | None]:
    """``["ante=2", "lock_kept_dice=false"]`` -> ``{"ante": 2, "lock_kept_dice": False}``.

    ``allowed``: the keys that may appear (None: any key; the rules object then
    judges the keys). A pair without ``=`` or without a key, a key outside
    ``allowed`` and a key given twice are a one-line ``ValueError`` naming the
    pair and the allowed keys.
    """
    allowed_text = f"; allowed keys: {', '.join(sorted(allowed))}" if allowed is not None else ""
    options: dict[str, bool | int | float | str | None] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(
                f"a rule option is KEY=VALUE (e.g. ante=2), got {pair!r}{allowed_text}"
            )
        if allowed is not None and key not in allowed:
            raise ValueError(f"unknown rule option {key!r} in {pair!r}{allowed_text}")
        if key in options:
            raise ValueError(f"rule option {key!r} is given twice ({pair!r})")
        options[key] = parse_rule_value(value)
    return options


def add_rule_argument(parser: argparse.ArgumentParser, *, example: str = "ante=2") -> None:
    """Add the repeatable ``--rule KEY=VALUE`` flag (its one name: the old ``--option`` and
    ``--options`` are gone, and argparse refuses them as unrecognized arguments)."""
    parser.add_argument(
        "--rule",
        dest="rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a rule option of the game, e.g. --rule {example} (repeatable; true/false, "
        "none, numbers and words are read as such)",
    )


def rule_options(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    allowed: Collection[str] | None = None,
    check: Callable[..., object] | None = None,
) -> dict[str, bool | int | float | str | None]:
    """The parsed ``--rule`` flags of ``args``; a bad one ends the program through
    ``parser.error`` (one line, exit status 2).

    ``check(**options)`` (e.g. a game's ``make_rules``) judges the values now, before
    any work: its ``ValueError`` or ``TypeError`` is a bad option too.
    """
    try:
        options = parse_rule_options(args.rule, allowed)
        if check is not None:
            check(**options)
    except (ValueError, TypeError) as err:
        parser.error(str(err))
    return options
