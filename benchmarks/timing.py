"""What the speed benchmarks share (a module, not a script): timers measured in turns."""

from __future__ import annotations

import sys
from collections.abc import Hashable, Mapping
from typing import Any


def time_rounds(timers: Mapping[Hashable, Any], rounds: int) -> dict[Hashable, list]:
    """``{key: [what timer.round() returned, one per round]}``: every timer is called once a
    round, in turn, so each sees the same load, for ``rounds`` rounds after one warm-up
    round that is dropped (first forward passes, caches). The round count goes to stderr."""
    times: dict[Hashable, list] = {key: [] for key in timers}
    for r in range(rounds + 1):
        for key, timer in timers.items():
            measured = timer.round()
            if r:
                times[key].append(measured)
        print(f"round {r}/{rounds}", end="\r", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return times
