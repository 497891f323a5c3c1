"""What a run says while it trains: at each evaluation one line (the step, the result with
its 95% CI, % of the optimum for the scorecard games or chips per game for the pokers, the
time so far and the estimated time to finish), printed and appended at once to
``progress.log`` in the run folder, so a long run can be followed with ``tail -f``.

The log holds one line per evaluation point: a resumed run measures again the evaluations
a killed attempt made after its last checkpoint (their ``metrics.csv`` rows stay, see
:class:`train.common.rundir.Rows`), and their lines, logged already, are printed only."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from train.common.results import bonus_text

LOG = "progress.log"
# an evaluation's line: its label ("final: " or none), its count, the total and the unit
_EVALUATION = re.compile(r"^(?P<label>.*?)(?P<done>[\d,]+)/[\d,]+ (?P<unit>\w+): ")


def clock(seconds: float) -> str:
    """``1h02m``, ``3m05s``, ``42s``."""
    s = int(round(max(seconds, 0.0)))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def summary(row: dict[str, Any]) -> str:
    """A metrics row in words: the score (and % of the optimum), or the chips per game
    against each opponent, each with its 95% half-width."""

    def num(key: str) -> float | None:
        try:
            return float(row[key])
        except (KeyError, TypeError, ValueError):
            return None

    parts = []
    if num("score") is not None:
        text = f"score {num('score'):.2f}"
        if num("score_ci95") is not None:
            text += f" ± {num('score_ci95'):.2f}"
        if num("pct_optimal") is not None:
            text += f" = {num('pct_optimal'):.2f}% of the optimum"
        parts.append(text)
        if bonus_text(row):
            parts.append(bonus_text(row))
    if num("chips") is not None:
        ci = num("chips_ci95")
        parts.append(
            f"{num('chips'):+.4f}" + (f" ± {ci:.4f}" if ci is not None else "") + " chips/game"
        )
    for key in row:
        m = re.fullmatch(r"(.+)_chips", key)
        if m and num(key) is not None and f"{key}_ci95" in row:  # a measured opponent
            ci = num(f"{key}_ci95")
            text = f"vs {m.group(1)} {num(key):+.3f}" + (f" ± {ci:.3f}" if ci is not None else "")
            parts.append(text + " chips/game")
    return ", ".join(parts) or "evaluated"


class Progress:
    """The evaluation lines of one run: ``total`` units (``steps``, ``games``) in all, ``done``
    when this process starts (a resumed run), ``wall_before`` seconds spent before it."""

    def __init__(
        self,
        run_dir: Path,
        total: int,
        done: int = 0,
        unit: str = "steps",
        wall_before: float = 0.0,
    ) -> None:
        self.path = Path(run_dir) / LOG
        self.total, self.done0, self.unit = total, done, unit
        self.wall_before = wall_before
        self.started = time.perf_counter()
        self.logged = set()  # (label, done, unit) of the evaluation lines in the log already
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                if m := _EVALUATION.match(line):
                    self.logged.add((m["label"], int(m["done"].replace(",", "")), m["unit"]))

    def elapsed(self) -> float:
        return self.wall_before + time.perf_counter() - self.started

    def eta(self, done: int) -> float | None:
        """Seconds left at this process's pace so far; None before any progress."""
        spent = time.perf_counter() - self.started
        if done <= self.done0 or spent <= 0:
            return None
        return max(self.total - done, 0) * spent / (done - self.done0)

    def say(self, text: str, log: bool = True) -> None:
        """Print ``text`` (above a progress bar, if one shows) and append it to the log
        (where ``log``)."""
        try:
            from tqdm import tqdm

            tqdm.write(text)
        except ImportError:  # pragma: no cover
            print(text, flush=True)
        if not log:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text + "\n")
            f.flush()

    def start(self, name: str) -> None:
        left = max(self.total - self.done0, 0)
        how = "resumed at" if self.done0 else "from"
        self.say(f"{name}: {left:,} {self.unit} to train ({how} {self.done0:,} of {self.total:,})")

    def line(self, done: int, row: dict[str, Any], label: str = "") -> str:
        """The line of an evaluation at ``done`` units, printed and logged (unless the log
        has the line of this evaluation point already); returned."""
        eta = self.eta(done)
        text = (
            f"{label}{done:,}/{self.total:,} {self.unit}: {summary(row)}; "
            f"elapsed {clock(self.elapsed())}, ETA {clock(eta) if eta is not None else '?'}"
        )
        key = (label, done, self.unit)
        self.say(text, log=key not in self.logged)
        self.logged.add(key)
        return text
