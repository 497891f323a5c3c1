"""Learn a scorecard game by afterstate values and exact turn search (model-based RL).

    python train/afterstate.py --config yahtzee_classic_afterstate.yaml
    python train/afterstate.py --config yahtzee_afterstate.yaml --seed 1
    python train/afterstate.py --config yahtzee_classic_afterstate.yaml --resume

The learner (``agents.afterstate``): a network ``V(card between turns)`` and a player
that searches each turn exactly over the dice with ``V`` at the leaves. Thousands of
games run side by side on the batched engine, a turn at a time; at each turn every
card's start-of-turn value under the search is the target for ``V`` of that card (an
expected TD(0) backup: the turn's points from the rules plus ``V`` of where it leads),
and a few minibatches of Adam fit ``V`` to the latest targets. Only the game's points
teach it: no solver value, no imitation. The config has ``env:`` (``id``, ``kwargs``:
the rule options), ``value:`` (:class:`ValueConfig`) and ``run:`` (:class:`RunConfig`);
everything lands in ``runs/{game}__{config}__{seed}/`` as for ``train/ppo.py``:
``value.pt``, ``config.yaml``, ``metrics.csv``, ``curve.png``, ``final.json``,
``checkpoints/``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository's packages first
    sys.path.insert(0, str(ROOT))

from agents import make_agent  # noqa: E402
from agents.afterstate import (  # noqa: E402
    AfterstateAgent,
    CardStates,
    ValueNet,
    card_states,
    features,
    load_value,
    save_value,
    turn_plan,
)
from agents.atomic import atomic_write, write_text  # noqa: E402
from envs import games  # noqa: E402
from envs.batched.scorecard import BatchedScorecard  # noqa: E402
from envs.rules.scorecard import total_bounds  # noqa: E402
from envs.vector import play_games  # noqa: E402
from train.config import (  # noqa: E402  (the shared config reader and metrics file)
    ConfigError,
    add_run_arguments,
    append_csv,
    build,
    check_positive,
    check_run_folder,
    is_int,
    read_sections,
    run_overrides,
)


@dataclass
class EnvConfig:
    id: str  # YahtzeeClassic-v0 or Yahtzee-v0
    kwargs: dict[str, Any] = field(default_factory=dict)  # rule options


@dataclass
class ValueConfig:
    hidden: list[int] = field(default_factory=lambda: [128, 128])  # MLP widths
    learning_rate: float = 1e-3  # Adam, falling linearly to lr_end over the run
    lr_end: float = 1e-4
    batch_size: int = 512  # cards per minibatch
    updates_per_turn: int = 4  # minibatches after each turn of all games
    # the targets of this many latest turns are sampled: two whole games (the russian game
    # has 17 turns), so that no stage of a game drops out of the buffer while the games
    # run in step (with 8 turns the russian value diverged)
    buffer_turns: int = 34
    # "none": pure RL; "optimal": the assisted track, V first fitted to the exact solver's
    # values of the cards met in warm_start_games games of optimal play
    warm_start: str = "none"
    warm_start_games: int = 2048
    warm_start_steps: int = 2000


@dataclass
class RunConfig:
    seed: int = 0
    n_games: int = 512  # games played side by side
    total_games: int = 200_000
    eval_every: int = 20_000  # games between evaluations
    eval_games: int = 4_000
    final_eval_games: int = 10_000
    checkpoint_every: int = 20_000
    torch_threads: int = 2
    out_dir: str = "runs"


@dataclass
class Config:
    name: str
    env: EnvConfig
    value: ValueConfig
    run: RunConfig

    @property
    def game(self) -> str:
        return games.by_gym_id(self.env.id).name

    @property
    def run_dir(self) -> Path:
        return Path(self.run.out_dir) / f"{self.game}__{self.name}__{self.run.seed}"


def load_config(name: str, overrides: dict[str, Any] | None = None) -> Config:
    """Read and check config ``name`` (``overrides``: ``run:`` fields, the command line's);
    every problem is one ConfigError line naming the key, the value and what is allowed."""
    path, data = read_sections(name, ("env", "value", "run"))
    env = build(EnvConfig, data.get("env"), f"{path.name}: env")
    game = games.by_gym_id(env.id)
    if not game.batched_engine or game.result != "points":
        raise ConfigError(f"{path.name}: env.id must be a scorecard game, got {env.id!r}")
    game.make_rules(**env.kwargs)  # unknown or bad rule options: one line, before anything
    run = build(RunConfig, data.get("run"), f"{path.name}: run", overrides)
    value = build(ValueConfig, data.get("value"), f"{path.name}: value")
    for section, where in ((run, "run"), (value, "value")):
        check_positive(section, f"{path.name}: {where}")
    if value.warm_start not in ("none", "optimal"):
        raise ConfigError(
            f"{path.name}: value.warm_start must be 'none' or 'optimal', got {value.warm_start!r}"
        )
    if not value.hidden or any(not is_int(h) or h < 1 for h in value.hidden):
        raise ConfigError(
            f"{path.name}: value.hidden must be a list of widths >= 1, got {value.hidden!r}"
        )
    return Config(path.stem, env, value, run)


# -- evaluation ---------------------------------------------------------------------------


def evaluate(agent, cfg: Config, n_games: int) -> dict[str, float]:
    """Mean final score over ``n_games`` on the batched engine, fixed seed (the same games
    for every agent and every evaluation of a run)."""
    stats: dict = {}
    totals = play_games(
        agent.act_batch, cfg.env.id, n_games, 10_000_000 + cfg.run.seed, stats, **cfg.env.kwargs
    )
    return {
        "score": float(totals.mean()),
        "score_ci95": float(1.96 * totals.std(ddof=1) / np.sqrt(len(totals))),
        "median": float(np.median(totals)),
        "bonus_rate": float(stats["bonus"].mean()),  # upper (classic) / stage-1 (russian)
    }


def optimal_score(cfg: Config) -> float:
    from agents.optimal.yahtzee import solve

    return solve(games.by_gym_id(cfg.env.id).make_rules(**cfg.env.kwargs)).expected_score


def plot_curve(metrics: Path, out: Path, title: str, best: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with metrics.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(
        [int(r["games"]) for r in rows],
        [float(r["pct_optimal"]) for r in rows],
        yerr=[100 * float(r["score_ci95"]) / best for r in rows],
        marker="o",
        label="afterstate learner",
    )
    ax.axhline(100, color="k", ls="--", label=f"optimal {best:.2f}")
    ax.set_xlabel("games played")
    ax.set_ylabel("% of the optimal mean")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    with atomic_write(out) as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)


# -- training -----------------------------------------------------------------------------


def play_turns(engine: BatchedScorecard, value, before_play=None):
    """Play one whole game in every slot of ``engine`` by turn search with ``value`` at the
    leaves, a turn at a time; yields each turn's cards (before it is played).
    ``before_play(cards, (start-of-turn values, column))`` runs before the dice fall."""
    rules = engine.rules
    engine.reset()
    while not engine.done.all():
        cards = card_states(engine)
        _, first, column = np.unique(cards.key(), axis=0, return_index=True, return_inverse=True)
        column = column.ravel()
        distinct = CardStates(cards.open_[first], cards.upper[first], cards.y50[first])
        plan, target = turn_plan(rules, value, distinct)
        if before_play is not None:
            before_play(cards, (target, column))
        yield cards
        live = np.ones(engine.n, dtype=bool)
        for roll in (1, 2, 3):
            idx = np.flatnonzero(live)
            actions = np.zeros(engine.n, dtype=np.int64)
            actions[idx] = plan.actions(engine.dice_index()[idx], roll, column[idx])
            engine.step_some(actions, live)
            live &= actions < 32  # a fill ends the turn


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, total="games", n_envs=False)
    args = parser.parse_args(argv)
    cfg = load_config(args.config, run_overrides(args))
    import torch
    from tqdm import tqdm

    torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    rules = games.by_gym_id(cfg.env.id).make_rules(**cfg.env.kwargs)
    run_dir, ckpt_dir = cfg.run_dir, cfg.run_dir / "checkpoints"
    metrics = run_dir / "metrics.csv"
    checkpoints = check_run_folder(run_dir, args.resume, "games_*.pt", "value.pt")
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    resolved = {k: dataclasses.asdict(getattr(cfg, k)) for k in ("env", "value", "run")}
    write_text(run_dir / "config.yaml", yaml.safe_dump(resolved, sort_keys=False))

    played, wall_before = 0, 0.0
    if args.resume:
        net = load_value(checkpoints[-1])
        state = torch.load(checkpoints[-1], map_location="cpu", weights_only=False)["meta"]
        played, wall_before = int(state["games"]), float(state["wall_s"])
        print(f"resuming {run_dir} from {checkpoints[-1].name} ({played} games)")
    else:
        net = ValueNet(rules, tuple(cfg.value.hidden))
        metrics.unlink(missing_ok=True)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.value.learning_rate)
    best = optimal_score(cfg)
    lo, hi = total_bounds(rules)
    bounds = (min(lo, 0), hi)
    started = time.perf_counter()

    def wall() -> float:
        return wall_before + time.perf_counter() - started

    def record(n_games: int) -> dict[str, float]:
        net.eval()
        row = {"games": played, "wall_s": round(wall(), 2)}
        row.update(evaluate(AfterstateAgent(net, cfg.game, **cfg.env.kwargs), cfg, n_games))
        row["pct_optimal"] = 100 * row["score"] / best
        append_csv(metrics, row)
        net.train()
        return row

    def checkpoint() -> None:
        save_value(net, ckpt_dir / f"games_{played}.pt", {"games": played, "wall_s": wall()})

    if not args.resume:
        record(cfg.run.eval_games)
    engine = BatchedScorecard(cfg.run.n_games, rules, seed=cfg.run.seed * 1_000_003 + played)
    bx: list[np.ndarray] = []
    by: list[np.ndarray] = []
    rng = np.random.default_rng(cfg.run.seed + played)
    next_eval = (played // cfg.run.eval_every + 1) * cfg.run.eval_every
    next_ckpt = (played // cfg.run.checkpoint_every + 1) * cfg.run.checkpoint_every
    bar = tqdm(total=cfg.run.total_games, initial=played, unit="game", disable=args.no_progress)
    recent: list[float] = []

    def fit(x: np.ndarray, y: np.ndarray, steps: int) -> None:
        for _ in range(steps):
            idx = rng.integers(len(x), size=cfg.value.batch_size)
            loss = torch.nn.functional.mse_loss(
                net(torch.as_tensor(x[idx])), torch.as_tensor(y[idx])
            )
            opt.zero_grad()
            loss.backward()
            opt.step()

    if cfg.value.warm_start == "optimal" and not args.resume:  # the assisted track
        from agents.afterstate import exact_values
        from agents.optimal.yahtzee import solve

        solution = solve(rules)
        teacher = BatchedScorecard(cfg.value.warm_start_games, rules, seed=cfg.run.seed + 7)
        seen = []
        for cards in play_turns(teacher, lambda c: exact_values(solution, c)):
            seen.append((features(rules, cards), exact_values(solution, cards) / 100.0))
        fit(
            np.concatenate([a for a, _ in seen]),
            np.concatenate([b for _, b in seen]).astype(np.float32),
            cfg.value.warm_start_steps,
        )
        bar.write(
            f"warm start: V fitted to the solver's values of {sum(len(a) for a, _ in seen)} cards"
        )
        row = record(cfg.run.eval_games)
        bar.write(f"after the warm start: {row['pct_optimal']:.2f}% of {best:.2f}")

    def learn(cards, plan_target) -> None:
        """The expected TD(0) step of one turn: targets of every card, then minibatches."""
        target, column = plan_target
        bx.append(features(rules, cards))
        # a bootstrapped target never leaves what a game can still score: this keeps a
        # value that runs away in rarely met cards from feeding on itself
        by.append((np.clip(target[column], *bounds) / 100.0).astype(np.float32))
        del bx[: -cfg.value.buffer_turns], by[: -cfg.value.buffer_turns]
        frac = min(1.0, played / cfg.run.total_games)
        for g in opt.param_groups:
            g["lr"] = cfg.value.learning_rate + frac * (cfg.value.lr_end - cfg.value.learning_rate)
        fit(np.concatenate(bx), np.concatenate(by), cfg.value.updates_per_turn)

    while played < cfg.run.total_games:
        for _ in play_turns(engine, net.values, learn):
            pass
        recent = engine.total.tolist()
        played += engine.n
        bar.update(engine.n)
        bar.set_postfix(
            train_mean=f"{np.mean(recent):.1f}", pct=f"{100 * np.mean(recent) / best:.1f}"
        )
        if played >= next_ckpt:
            checkpoint()
            next_ckpt += cfg.run.checkpoint_every
        if played >= next_eval:
            row = record(cfg.run.eval_games)
            bar.write(
                f"{played} games, {row['wall_s']:.0f} s: {row['score']:.2f} ± "
                f"{row['score_ci95']:.2f} = {row['pct_optimal']:.2f}% of {best:.2f}"
            )
            next_eval += cfg.run.eval_every
    bar.close()
    save_value(net, run_dir / "value.pt", {"games": played, "wall_s": wall()})
    final = record(cfg.run.final_eval_games)
    plot_curve(metrics, run_dir / "curve.png", run_dir.name, best)
    # the heuristic and the random player in the learner's place, on the same games
    others = {
        name: evaluate(make_agent(name, cfg.game, **cfg.env.kwargs), cfg, cfg.run.final_eval_games)
        for name in ("heuristic", "random")
    }
    write_text(
        run_dir / "final.json",
        json.dumps(
            {"afterstate": final, **{f"{k}_in_its_place": v for k, v in others.items()}}
            | {"optimal": best}
        ),
    )
    lines = [f"\n{run_dir.name}: {played} games in {final['wall_s']:.0f} s"]
    for name, row in {"afterstate": final, **others}.items():
        lines.append(
            f"{name:<11}{row['score']:7.2f} ± {row['score_ci95']:.2f} = "
            f"{100 * row['score'] / best:6.2f}% of the optimal {best:.2f} "
            f"(median {row['median']:.0f})"
        )
    lines.append(
        f"model: {run_dir / 'value.pt'}  (make_agent('afterstate:{run_dir / 'value.pt'}', "
        f"game={cfg.game!r}))"
    )
    print("\n".join(lines))
    return run_dir


if __name__ == "__main__":
    try:
        main()
    except (ValueError, TypeError, FileNotFoundError, FileExistsError) as err:
        sys.exit(f"error: {err}")
