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

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from agents.afterstate import (
    AfterstateAgent,
    CardStates,
    ValueNet,
    card_states,
    features,
    load_value,
    save_value,
    turn_plan,
)
from envs import games
from envs.batched.scorecard import BatchedScorecard
from envs.rules.scorecard import total_bounds
from envs.vector import play_games
from train.common.config import ConfigError, command_line, is_int, load_sections, run_arguments
from train.common.results import EVAL_SEED, figure, mean_ci, model_line, read_rows, write_final
from train.common.rundir import RunNamed, choose_run_dir, due, open_folder, resuming


@dataclass
class EnvConfig:
    id: str  # YahtzeeClassic-v0 or PokerNaKostyah-v0
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
class Config(RunNamed):
    """A config of this trainer: its name (the file's stem) and its three sections."""

    name: str
    env: EnvConfig
    value: ValueConfig
    run: RunConfig


def load_config(name: str, overrides: dict[str, Any] | None = None) -> Config:
    """Read and check config ``name`` (``overrides``: ``run:`` fields, the command line's);
    every problem is one ConfigError line naming the key, the value and what is allowed."""
    kinds = {"env": EnvConfig, "value": ValueConfig, "run": RunConfig}
    path, built = load_sections(name, "afterstate", kinds, overrides)
    env, value, run = built.values()
    game = games.by_gym_id(env.id)
    if not game.batched_engine or game.result != "points":
        raise ConfigError(f"{path.name}: env.id must be a scorecard game, got {env.id!r}")
    game.make_rules(**env.kwargs)  # unknown or bad rule options: one line, before anything
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
        agent.act_batch, cfg.env.id, n_games, EVAL_SEED + cfg.run.seed, stats, **cfg.env.kwargs
    )
    score, ci95 = mean_ci(totals)
    return {
        "score": score,
        "score_ci95": ci95,
        "median": float(np.median(totals)),
        "bonus_rate": float(stats["bonus"].mean()),  # upper (classic) / stage-1 (russian)
    }


def optimal_score(cfg: Config) -> float:
    from agents.optimal.scorecard import solve

    return solve(games.by_gym_id(cfg.env.id).make_rules(**cfg.env.kwargs)).expected_score


def plot_curve(metrics: Path, out: Path, title: str, best: float) -> None:
    """The learning curve: % of the optimal mean score by games played, with 95% CIs."""
    rows = read_rows(metrics)
    with figure(out, title) as ax:
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


class Fitter:
    """Adam on ``V``: minibatches of the latest targets, the learning rate falling linearly
    from ``value.learning_rate`` to ``value.lr_end`` over the run."""

    def __init__(self, net, cfg: Config, rules, rng: np.random.Generator) -> None:
        import torch

        self.net, self.cfg, self.rules, self.rng = net, cfg, rules, rng
        self.opt = torch.optim.Adam(net.parameters(), lr=cfg.value.learning_rate)
        lo, hi = total_bounds(rules)
        self.bounds = (min(lo, 0), hi)
        self.bx: list[np.ndarray] = []
        self.by: list[np.ndarray] = []
        self.played = 0

    def fit(self, x: np.ndarray, y: np.ndarray, steps: int) -> None:
        import torch

        for _ in range(steps):
            idx = self.rng.integers(len(x), size=self.cfg.value.batch_size)
            loss = torch.nn.functional.mse_loss(
                self.net(torch.as_tensor(x[idx])), torch.as_tensor(y[idx])
            )
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def learn(self, cards, plan_target) -> None:
        """The expected TD(0) step of one turn: targets of every card, then minibatches."""
        value, target, column = self.cfg.value, *plan_target
        self.bx.append(features(self.rules, cards))
        # a bootstrapped target never leaves what a game can still score: this keeps a
        # value that runs away in rarely met cards from feeding on itself
        self.by.append((np.clip(target[column], *self.bounds) / 100.0).astype(np.float32))
        del self.bx[: -value.buffer_turns], self.by[: -value.buffer_turns]
        frac = min(1.0, self.played / self.cfg.run.total_games)
        for g in self.opt.param_groups:
            g["lr"] = value.learning_rate + frac * (value.lr_end - value.learning_rate)
        self.fit(np.concatenate(self.bx), np.concatenate(self.by), value.updates_per_turn)

    def warm_start(self) -> int:
        """The assisted track: ``V`` fitted to the exact solver's values of the cards met in
        ``value.warm_start_games`` games of optimal play; the number of cards."""
        from agents.afterstate import exact_values
        from agents.optimal.scorecard import solve

        solution = solve(self.rules)
        teacher = BatchedScorecard(
            self.cfg.value.warm_start_games, self.rules, seed=self.cfg.run.seed + 7
        )
        seen = []
        for cards in play_turns(teacher, lambda c: exact_values(solution, c)):
            seen.append((features(self.rules, cards), exact_values(solution, cards) / 100.0))
        x = np.concatenate([a for a, _ in seen])
        self.fit(
            x,
            np.concatenate([b for _, b in seen]).astype(np.float32),
            self.cfg.value.warm_start_steps,
        )
        return len(x)


def main(argv: list[str] | None = None) -> Path:
    args, overrides = run_arguments(argv, __doc__.split("\n\n")[0], "games", n_envs=False)
    cfg = load_config(args.config, overrides)
    import torch

    torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    rules = games.by_gym_id(cfg.env.id).make_rules(**cfg.env.kwargs)
    run_dir, checkpoints = choose_run_dir(cfg.run_dir, args.resume, args.run, "games_*.pt")
    last, net, played, wall_before = value_net(cfg, rules, run_dir, checkpoints)
    sections = {"trainer": "afterstate", "env": cfg.env, "value": cfg.value, "run": cfg.run}
    rows, progress = open_folder(
        run_dir, args.resume, last, sections, "games", cfg.run.total_games, played, wall_before
    )
    best = optimal_score(cfg)
    fitter = Fitter(net, cfg, rules, np.random.default_rng(cfg.run.seed + played))

    def record(n_games: int, label: str = "") -> dict[str, float]:
        net.eval()
        row = {"games": played, "wall_s": round(progress.elapsed(), 2)}
        row.update(evaluate(AfterstateAgent(net, cfg.game, **cfg.env.kwargs), cfg, n_games))
        row["pct_optimal"] = 100 * row["score"] / best
        rows.add(row)
        progress.line(played, row, label)
        net.train()
        return row

    def save(path: Path) -> None:
        save_value(net, path, {"games": played, "wall_s": progress.elapsed()})

    if not args.resume:
        record(cfg.run.eval_games)
        if cfg.value.warm_start == "optimal":
            n = fitter.warm_start()
            record(
                cfg.run.eval_games, f"warm start (V fitted to the solver's values of {n} cards): "
            )
    engine = BatchedScorecard(cfg.run.n_games, rules, seed=cfg.run.seed * 1_000_003 + played)
    while played < cfg.run.total_games:
        for _ in play_turns(engine, net.values, fitter.learn):
            pass
        played = fitter.played = played + engine.n
        if due(played, engine.n, cfg.run.eval_every):
            record(cfg.run.eval_games)  # before the checkpoint: it knows its row
        if due(played, engine.n, cfg.run.checkpoint_every):
            rows.checkpoint(f"games_{played}.pt", save)
    save(run_dir / "value.pt")
    final = record(cfg.run.final_eval_games, "final: ")
    plot_curve(rows.path, run_dir / "curve.png", run_dir.name, best)
    others = yardsticks(cfg)
    write_final(run_dir, "afterstate", final, others, optimal=best)
    print(report(run_dir, cfg, played, final, others, best))
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "afterstate.py")


def value_net(cfg: Config, rules, run_dir: Path, checkpoints: list[Path]):
    """The value network, fresh, or from the newest of ``checkpoints`` (``--resume``; it must
    train further); ``(checkpoint or None, network, games played, seconds spent)``."""
    import torch

    if not checkpoints:
        return None, ValueNet(rules, tuple(cfg.value.hidden)), 0, 0.0
    last = checkpoints[-1]
    meta = torch.load(last, map_location="cpu", weights_only=False)["meta"]
    resuming(run_dir, last, int(meta["games"]), cfg.run.total_games, "games")
    return last, load_value(last), int(meta["games"]), float(meta["wall_s"])


def yardsticks(cfg: Config) -> dict[str, dict]:
    """The heuristic and the random player in the learner's place, on the same games."""
    n = cfg.run.final_eval_games
    return {
        name: evaluate(make_agent(name, cfg.game, **cfg.env.kwargs), cfg, n)
        for name in ("heuristic", "random")
    }


def report(run_dir: Path, cfg: Config, played: int, final: dict, others: dict, best: float) -> str:
    lines = [f"\n{run_dir.name}: {played} games in {final['wall_s']:.0f} s"]
    for name, row in {"afterstate": final, **others}.items():
        lines.append(
            f"{name:<11}{row['score']:7.2f} ± {row['score_ci95']:.2f} = "
            f"{100 * row['score'] / best:6.2f}% of the optimal {best:.2f} "
            f"(median {row['median']:.0f})"
        )
    lines.append(model_line("afterstate", run_dir / "value.pt", cfg.game))
    return "\n".join(lines)


if __name__ == "__main__":
    cli()
