"""Learning curves of several runs side by side: % of the optimum against experience and
against wall time, and when each run first reached given levels.

    python tools/curves.py runs/*classic_afterstate*__? \\
        --out docs/img/curves_classic.png --levels 98 99

Runs are grouped by their name without the seed (``game__config__seed``): each group gets one
colour, each seed its own line. The x axes are the run's experience (``games`` for
train/afterstate.py, ``timesteps`` for train/ppo.py) and ``wall_s``. The table printed (and
written beside the picture as ``.md``) gives, per run, the first evaluation at or above each
level (``-`` where it never got there) and the final figure; wall seconds depend on the load
of the machine during the run.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from agents.atomic import atomic_write, write_text

EXPERIENCE = ("games", "timesteps")  # the x column, whichever the run's metrics have


def read_run(run_dir: Path) -> tuple[str, list[dict[str, float]]]:
    """(experience column, rows as floats) of one run's metrics.csv."""
    path = run_dir / "metrics.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no metrics.csv in {str(run_dir)!r}")
    with path.open(newline="") as f:
        rows = [
            {k: float(v) for k, v in r.items() if v not in ("", None)} for r in csv.DictReader(f)
        ]
    x = next((c for c in EXPERIENCE if rows and c in rows[0]), None)
    if x is None or "pct_optimal" not in rows[0] or "wall_s" not in rows[0]:
        raise ValueError(
            f"{path} has no {' or '.join(EXPERIENCE)}, wall_s and pct_optimal columns: "
            "a scorecard run of train/afterstate.py or train/ppo.py is needed"
        )
    return x, rows


def first_at(rows: list[dict[str, float]], x: str, level: float) -> tuple[float, float] | None:
    """(experience, wall seconds) of the first evaluation at or above ``level`` %."""
    for r in rows:
        if r["pct_optimal"] >= level:
            return r[x], r["wall_s"]
    return None


def table(runs: dict[str, tuple[str, list]], levels: list[float]) -> str:
    head = [
        "run",
        *(f"first ≥ {lv:g}%: {{x}} (wall s)" for lv in levels),
        "final %",
        "final wall s",
    ]
    lines = []
    for name, (x, rows) in runs.items():
        cells = [name]
        for lv in levels:
            hit = first_at(rows, x, lv)
            cells.append("-" if hit is None else f"{hit[0]:,.0f} ({hit[1]:,.0f})")
        cells += [f"{rows[-1]['pct_optimal']:.2f}", f"{rows[-1]['wall_s']:,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    xs = "/".join(sorted({x for x, _ in runs.values()}))
    header = "| " + " | ".join(h.format(x=xs) for h in head) + " |"
    return "\n".join([header, "|" + "---|" * len(head), *lines]) + "\n"


def plot(runs: dict[str, tuple[str, list]], out: Path, levels: list[float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    groups = list(dict.fromkeys(name.rsplit("__", 1)[0] for name in runs))
    colours = {g: f"C{i}" for i, g in enumerate(groups)}
    for name, (x, rows) in runs.items():
        group = name.rsplit("__", 1)[0]
        label = group if name == next(n for n in runs if n.startswith(group + "__")) else None
        pct = [r["pct_optimal"] for r in rows]
        for ax, col in zip(axes, (x, "wall_s"), strict=True):
            ax.plot([r[col] for r in rows], pct, "o-", ms=3, color=colours[group], label=label)
    for ax, xlabel in zip(axes, ("experience (games or env steps)", "wall seconds"), strict=True):
        for lv in levels:
            ax.axhline(lv, color="grey", lw=0.8, ls="--")
        ax.axhline(100, color="black", lw=1)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("% of the optimal mean score")
    axes[0].set_ylim(
        max(0, min(r["pct_optimal"] for _, rows in runs.values() for r in rows) - 2), 101
    )
    axes[0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(out) as f:
        fig.savefig(f, format="png", dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders with a metrics.csv")
    parser.add_argument("--out", type=Path, required=True, help="the picture (.png)")
    parser.add_argument("--levels", type=float, nargs="+", default=[98.0, 99.0])
    args = parser.parse_args(argv)
    if args.out.suffix != ".png":
        parser.error(f"--out must end in .png, got {str(args.out)!r}")
    try:
        runs = {d.name: read_run(d) for d in args.runs}
    except (FileNotFoundError, ValueError) as err:
        parser.exit(2, f"curves.py: error: {err}\n")
    plot(runs, args.out, args.levels)
    text = table(runs, args.levels)
    write_text(args.out.with_suffix(".md"), text)
    print(text, end="")
    return text


def cli() -> None:
    """The command line."""
    main()


if __name__ == "__main__":
    cli()
