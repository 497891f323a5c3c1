"""Learn prison dice poker by Monte Carlo afterstate values and exact turn search.

    python train/handvalue.py --config dice_poker_handvalue.yaml
    python train/handvalue.py --config dice_poker_handvalue_optimal.yaml --seed 1
    python train/handvalue.py --config dice_poker_handvalue.yaml --resume

The learner (``agents.handvalue``): a table ``V`` of what ending a turn in each afterstate
(out of the round, or holding the best hand ``s`` with ``t`` holders at place ``j`` of an
``m``-player round) pays in chips, and a player that plays each turn by exact dynamic
programming over the dice with ``V`` of the final hand as the utility. Training runs in
iterations: ``run.n_games`` games side by side on the batched engine
(``envs.batched.dice_poker.BatchedDicePoker``), the learner in a random seat of each and
the opponents of ``env.kwargs.opponents`` in the others, every game played to its end
(play-offs included); each afterstate the learner passed through is credited with the
chips that game paid it (Monte Carlo, no discount), and the next iteration plays greedily
on the new means. Only the chips teach it: no solver value, no imitation. The config has
``env:`` (``id``, ``kwargs``: ``n_players``, ``opponents``, rule options), ``learner:``
(:class:`LearnerConfig`) and ``run:`` (:class:`RunConfig`); everything lands in
``runs/{game}__{config}__{seed}/``: ``values.npz``, ``config.yaml``, ``metrics.csv``,
``curve.png``, ``final.json``, ``checkpoints/``.
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
from agents.handvalue import HandValueAgent, HandValues, load_values, save_values
from agents.seats import seat_results
from envs import games
from envs.batched.dice_poker import BatchedDicePoker
from envs.rules.dice_poker import MAX_ROLLS, DicePokerRules
from train.common.config import ConfigError, command_line, is_int, load_sections, run_arguments
from train.common.results import figure, model_line, read_rows, write_final
from train.common.rundir import RunNamed, choose_run_dir, due, open_folder, resuming

TABLE_KEYS = ("n_players", "opponents")  # the table options a config may set
PRIORS = ("optimistic", "zero")
# games side by side are held in memory at once (about a kilobyte each at the most)
MAX_GAMES_AT_ONCE = 5_000_000


@dataclass
class EnvConfig:
    id: str  # DicePoker-v0 or DicePoker6-v0
    kwargs: dict[str, Any] = field(default_factory=dict)  # n_players, opponents, rule options


@dataclass
class LearnerConfig:
    # the value of an afterstate never met: "optimistic" = the most a game pays (pot - ante),
    # so untried hands look worth trying; "zero"
    prior: str = "optimistic"
    prior_weight: float = 1.0  # pseudo-visits of the prior
    decay: float = 1.0  # weight of earlier iterations' returns, per iteration (1: plain means)


@dataclass
class RunConfig:
    seed: int = 0
    n_games: int = 50_000  # games side by side: one iteration (one policy)
    total_games: int = 2_000_000
    eval_every: int = 500_000  # games between evaluations
    eval_games: int = 20_000  # per place of the turn order
    final_eval_games: int = 100_000  # per place, for the learner and the yardsticks
    checkpoint_every: int = 500_000
    out_dir: str = "runs"


@dataclass
class Config(RunNamed):
    """A config of the hand-value learner: its name (the file's stem), its sections, and
    the table they set (players, opponents, rule options)."""

    name: str
    env: EnvConfig
    learner: LearnerConfig
    run: RunConfig

    @property
    def n_players(self) -> int:
        return self.env.kwargs.get("n_players", games.get(self.game).default_players)

    @property
    def opponents(self) -> str:
        return self.env.kwargs.get("opponents", "heuristic")

    @property
    def rule_options(self) -> dict:
        return {k: v for k, v in self.env.kwargs.items() if k not in TABLE_KEYS}


def load_config(name: str, overrides: dict[str, Any] | None = None) -> Config:
    """Read and check config ``name`` (``overrides``: ``run:`` fields, the command line's);
    every problem is one ConfigError line naming the key, the value and what is allowed."""
    kinds = {"env": EnvConfig, "learner": LearnerConfig, "run": RunConfig}
    path, built = load_sections(name, "handvalue", kinds, overrides)
    cfg = Config(path.stem, **built)
    game = games.by_gym_id(cfg.env.id)
    if game.name not in games.names_for(DicePokerRules):
        ids = [games.get(g).gym_id for g in games.names_for(DicePokerRules)]
        raise ConfigError(
            f"{path.name}: env.id must be a dice poker game ({ids}), got {cfg.env.id!r}"
        )
    lo, hi = game.players
    n = cfg.n_players
    if not is_int(n) or not lo <= n <= hi:
        raise ConfigError(f"{path.name}: env.kwargs.n_players must be {lo}..{hi}, got {n!r}")
    opp = cfg.opponents
    if not isinstance(opp, str) or opp.startswith("handvalue:"):
        raise ConfigError(
            f"{path.name}: env.kwargs.opponents must be one agent name (it sits in every other "
            f"seat), e.g. 'heuristic' or 'optimal', got {opp!r}"
        )
    make_agent(opp, game.name, **cfg.rule_options)  # unknown agent or bad rule: one line, now
    if cfg.run.n_games > MAX_GAMES_AT_ONCE:
        raise ConfigError(
            f"{path.name}: run.n_games must be at most {MAX_GAMES_AT_ONCE:,} (the games side by "
            f"side are held in memory at once), got {cfg.run.n_games!r}"
        )
    if cfg.learner.prior not in PRIORS:
        raise ConfigError(
            f"{path.name}: learner.prior must be one of {list(PRIORS)}, got {cfg.learner.prior!r}"
        )
    if not 0 < cfg.learner.decay <= 1:
        raise ConfigError(
            f"{path.name}: learner.decay must be in (0, 1], got {cfg.learner.decay!r}"
        )
    return cfg


# -- one iteration: every game played to its end -------------------------------------------


def play_iteration(
    core: BatchedDicePoker, learner: HandValueAgent, opponent, table: HandValues
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game at every table of ``core`` (reset here), the learner in a random seat.

    Returns ``(afterstates, returns, chips)``: the afterstate index of every turn the
    learner ended, the chips its game paid the learner, and each table's chips."""
    n, nd = core.n, core.n_dice
    P = core.n_players
    core.reset()
    seat = core.rng.integers(P, size=n)
    chips = np.zeros(n)
    visited: list[np.ndarray] = []
    where: list[np.ndarray] = []
    actions = np.zeros(n, dtype=np.int64)
    faces = np.ones((n, 2 * nd), dtype=np.int8)
    bits = np.arange(nd)
    codes = core.table.powers
    live = ~core.done
    while live.any():
        rows = np.flatnonzero(live)
        obs, masks = core.observe(rows=rows), core.action_masks(rows)
        mine = core.current_player[rows] == seat[rows]
        a = np.zeros(len(rows), dtype=np.int64)
        if mine.any():
            a[mine] = learner.act_batch(obs[mine], masks[mine])
        if not mine.all():
            a[~mine] = opponent.act_batch(obs[~mine], masks[~mine])
        faces[rows] = core.draw_chance(len(rows))
        # the learner's turns that end with this move: their final hand and afterstate
        ends = mine & ((a == 0) | (core.rolls_used[rows] == MAX_ROLLS - 1))
        if ends.any():
            e, ae = rows[ends], a[ends]
            rerolled = ((ae[:, None] >> bits) & 1).astype(bool)
            dice = np.sort(np.where(rerolled, faces[e, :nd], core.dice[e]), axis=1)
            hand = core.table.strength[core.table.index[(dice.astype(np.int64) - 1) @ codes]]
            visited.append(
                table.index(core.round_len[e], core.turn[e], core.best[e], core.best_count[e], hand)
            )
            where.append(e)
        actions[rows] = a
        pay = core.step_some(actions, live, faces)
        chips += pay[np.arange(n), seat]
        live &= ~core.done
    at = np.concatenate(where) if where else np.zeros(0, dtype=np.int64)
    index = np.concatenate(visited) if visited else np.zeros(0, dtype=np.int64)
    return index, chips[at], chips


def plot_curve(metrics: Path, out: Path, title: str) -> None:
    """The learning curve: chips per game (a random seat) by games played, with 95% CIs."""
    rows = read_rows(metrics)
    with figure(out, title) as ax:
        ax.errorbar(
            [int(r["games"]) for r in rows],
            [float(r["chips"]) for r in rows],
            yerr=[float(r["chips_ci95"]) for r in rows],
            marker="o",
            label="hand-value learner (random seat)",
        )
        ax.axhline(0, color="k", ls="--", label="the opponent in its seat (0 by symmetry)")
        ax.set_xlabel("games played")
        ax.set_ylabel("chips per game")


def main(argv: list[str] | None = None) -> Path:
    args, overrides = run_arguments(argv, __doc__.split("\n\n")[0], "games", n_envs=False)
    cfg = load_config(args.config, overrides)
    rules = games.get(cfg.game).make_rules(**cfg.rule_options)
    run_dir, checkpoints = choose_run_dir(cfg.run_dir, args.resume, args.run, "games_*.npz")
    last, table, meta = value_table(cfg, rules, run_dir, checkpoints)
    played, iteration = int(meta["games"]), int(meta["iteration"])
    sections = {"trainer": "handvalue", "env": cfg.env, "learner": cfg.learner, "run": cfg.run}
    rows, progress = open_folder(
        run_dir, args.resume, last, sections, "games", cfg.run.total_games, played, meta["wall_s"]
    )
    learner = HandValueAgent(table, cfg.game, **cfg.rule_options)
    opponent = make_agent(cfg.opponents, cfg.game, **cfg.rule_options)

    def record(n: int, train_chips: float, label: str = "") -> dict:
        learner.refresh()
        r = evaluate(cfg, learner, n)
        row = {"games": played, "wall_s": round(progress.elapsed(), 2), "train_chips": train_chips}
        row.update({k: r[k] for k in ("chips", "chips_ci95", "win")})
        row.update({f"chips_place{p}": c for p, c in enumerate(r["seat_chips"])})
        row.update({f"win_place{p}": w for p, w in enumerate(r["seat_win"])})
        rows.add(row)
        progress.line(played, row, label)
        return r

    def save(path: Path) -> None:
        meta = {"games": played, "iteration": iteration, "wall_s": progress.elapsed()}
        save_values(table, path, meta)

    chips = np.zeros(1)
    while played < cfg.run.total_games:
        # each iteration's dice from its own seed: a resumed run plays the same games
        rng = np.random.default_rng(np.random.SeedSequence(cfg.run.seed, spawn_key=(iteration,)))
        core = BatchedDicePoker(cfg.run.n_games, rules, rng, n_players=cfg.n_players)
        opponent.seed(int(rng.integers(2**63)))
        index, returns, chips = play_iteration(core, learner, opponent, table)
        table.add(index, returns, cfg.learner.decay)
        learner.refresh()
        played, iteration = played + cfg.run.n_games, iteration + 1
        if due(played, cfg.run.n_games, cfg.run.eval_every):
            record(cfg.run.eval_games, float(chips.mean()))  # before the checkpoint: its row
        if due(played, cfg.run.n_games, cfg.run.checkpoint_every):
            rows.checkpoint(f"games_{played}.npz", save)
    save(run_dir / "values.npz")
    final = record(cfg.run.final_eval_games, float(chips.mean()) if played else 0.0, "final: ")
    plot_curve(rows.path, run_dir / "curve.png", run_dir.name)
    others = yardsticks(cfg)
    write_final(run_dir, "handvalue", final, others, games=played, wall_s=progress.elapsed())
    print(report(run_dir, cfg, played, progress.elapsed(), final, others))
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "handvalue.py")


def value_table(cfg: Config, rules, run_dir: Path, checkpoints: list[Path]):
    """The value table, fresh (its prior), or from the newest of ``checkpoints``
    (``--resume``; it must train further); ``(checkpoint or None, table, its meta)``."""
    if checkpoints:
        table, meta = load_values(checkpoints[-1])
        resuming(run_dir, checkpoints[-1], int(meta["games"]), cfg.run.total_games, "games")
        return checkpoints[-1], table, meta
    top = (cfg.n_players - 1) * rules.ante  # the most a game pays
    prior = float(top) if cfg.learner.prior == "optimistic" else 0.0
    weight = cfg.learner.prior_weight
    table = HandValues.new(cfg.game, cfg.n_players, prior, weight, **cfg.rule_options)
    return None, table, {"games": 0, "iteration": 0, "wall_s": 0.0}


def yardsticks(cfg: Config) -> dict[str, dict]:
    """The heuristic and the optimal player in the learner's place, on the same seeds."""
    n = cfg.run.final_eval_games
    return {
        name: evaluate(cfg, make_agent(name, cfg.game, **cfg.rule_options), n)
        for name in ("heuristic", "optimal")
    }


def evaluate(cfg: Config, agent, n: int) -> dict:
    """``agent`` in every place of the turn order against the config's opponents, ``n``
    games per place, on the run's evaluation seeds."""
    return seat_results(
        agent, cfg.game, cfg.opponents, n, 10_000 + cfg.run.seed, cfg.n_players, **cfg.rule_options
    )


def report(run_dir: Path, cfg: Config, played: int, wall: float, final: dict, others: dict) -> str:
    lines = [f"\n{run_dir.name}: {played} games in {wall:.0f} s, against two {cfg.opponents}"]
    for name, r in {"handvalue": final, **others}.items():
        seats = ", ".join(f"{100 * w:.1f}%" for w in r["seat_win"])
        lines.append(
            f"{name:<10} {r['chips']:+.4f} ± {r['chips_ci95']:.4f} chips/game; win by place {seats}"
        )
    lines.append(model_line("handvalue", run_dir / "values.npz", cfg.game))
    return "\n".join(lines)


if __name__ == "__main__":
    cli()
