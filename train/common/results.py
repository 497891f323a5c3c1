"""The results of a run, the same for every trainer.

- **Seeds**: every evaluation of a run plays the same episodes, from ``EVAL_SEED + seed``;
  the evaluation after training (and the yardsticks measured in the learner's place) from
  ``FINAL_SEED + seed`` where a trainer keeps them apart.
- **CI**: a 95% interval as the mean ± its half-width ``1.96 * sd / sqrt(n)``
  (:func:`mean_ci`), in the columns ``<figure>`` and ``<figure>_ci95``.
- **Card bonuses** of the scorecard games (:func:`bonus_figures`): the share of games that
  won the card bonus, named as docs/rules.md names it (``upper_bonus_rate``: classic, upper
  sum >= 63; ``stage1_bonus_rate``: russian, stage-1 sum >= 0), and classic's Yahtzee
  bonuses per game (``yahtzee_bonuses``), each with its ``_ci95``.
- **final.json** (:func:`write_final`): ``{"learner": NAME, NAME: the learner's result,
  "<yardstick>_in_its_place": ..., ...more}``; ``learner`` names the entry that holds the
  trained agent's figures (``tools/seeds.py`` reads it).
"""

from __future__ import annotations

import contextlib
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.atomic import atomic_write, write_text

EVAL_SEED = 10_000_000
FINAL_SEED = 30_000_000
Z95 = 1.96


def mean_ci(totals: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of ``totals`` (two or more values)."""
    totals = np.asarray(totals, dtype=float)
    return float(totals.mean()), float(Z95 * totals.std(ddof=1) / np.sqrt(len(totals)))


def bonus_names(rules) -> tuple[str, ...]:
    """The bonus figures of a scorecard game's rules (``ScorecardRules``), in the order
    :func:`bonus_figures` gives them."""
    if rules.rules == "classic":
        return ("upper_bonus_rate",) + (("yahtzee_bonuses",) if rules.yahtzee_bonus else ())
    return ("stage1_bonus_rate",)


def bonus_figures(rules, bonus, yahtzee_bonus) -> dict[str, float]:
    """The card-bonus figures (module docstring) of games that ended with the cards' bonus
    points ``bonus`` (the card bonus the rules paid: ``Scorecard.bonus``, the batched
    engine's ``bonus``) and ``yahtzee_bonus`` (the Yahtzee bonus points paid), one value per
    game (two games or more). The rules module decided each bonus; this only counts them."""
    from envs.rules.scorecard import YAHTZEE_BONUS

    per_game = {
        "upper_bonus_rate": np.asarray(bonus) > 0,
        "stage1_bonus_rate": np.asarray(bonus) > 0,
        "yahtzee_bonuses": np.asarray(yahtzee_bonus) // YAHTZEE_BONUS,
    }
    out = {}
    for name in bonus_names(rules):
        out[name], out[f"{name}_ci95"] = mean_ci(per_game[name])
    return out


BONUS_WORDS = {
    "upper_bonus_rate": "upper bonus",
    "stage1_bonus_rate": "stage-1 bonus",
    "yahtzee_bonuses": "Yahtzee bonuses/game",
}


def bonus_text(row: dict[str, Any]) -> str:
    """The card-bonus figures of a result in words, e.g. ``upper bonus 0.681 ± 0.009,
    Yahtzee bonuses/game 0.334 ± 0.012`` ('' where the row has none)."""
    parts = []
    for name, words in BONUS_WORDS.items():
        if row.get(name) not in (None, ""):
            ci = row.get(f"{name}_ci95")
            ci_text = f" ± {float(ci):.3f}" if ci not in (None, "") else ""
            parts.append(f"{words} {float(row[name]):.3f}{ci_text}")
    return ", ".join(parts)


def write_final(
    run_dir: Path,
    learner: str,
    result: dict[str, Any],
    yardsticks: dict[str, dict[str, Any]] | None = None,
    **more: Any,
) -> dict[str, Any]:
    """Write ``final.json`` of the schema above (atomically); returned."""
    out = {"learner": learner, learner: result}
    out.update({f"{k}_in_its_place": v for k, v in (yardsticks or {}).items()})
    out.update(more)
    write_text(Path(run_dir) / "final.json", json.dumps(out, indent=1))
    return out


def model_line(kind: str, path: Path, game: str) -> str:
    """Where the trained model is and how to play it: ``model: PATH  (make_agent(...))``."""
    return f"model: {path}  (make_agent('{kind}:{path}', game={game!r}))"


def learner_result(final: dict[str, Any]) -> dict[str, Any]:
    """The trained agent's entry of a final.json (older files: their first entry)."""
    if isinstance(final.get("learner"), str) and isinstance(final.get(final["learner"]), dict):
        return final[final["learner"]]
    return next((v for v in final.values() if isinstance(v, dict)), {})


def read_rows(metrics: Path) -> list[dict[str, str]]:
    """The rows of a ``metrics.csv``."""
    with Path(metrics).open(newline="") as f:
        return list(csv.DictReader(f))


@contextlib.contextmanager
def figure(out: Path, title: str):
    """The axes of a run's ``curve.png``: drawn in the block, then titled, with its legend,
    written to ``out`` (atomically) and closed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        yield ax
        ax.set_title(title)
        ax.legend()
        fig.tight_layout()
        with atomic_write(out) as f:
            fig.savefig(f, format="png", dpi=100)
    finally:
        plt.close(fig)
