"""A card-poker self-play league: one MaskablePPO learner against a population of its own
snapshots and the fixed players, sampled by how much each still takes from it.

    python train/league.py --config card_poker_league.yaml
    python train/league.py --config card_poker_league.yaml --seed 1 --total-timesteps 300000
    python train/league.py --config card_poker_league54.yaml --resume

A bare file name is looked up in ``configs/``. The config has four sections: ``env:``
(``id: CardPoker-v0`` and its ``kwargs``: rules and table options, never ``opponents``),
``ppo:`` (exactly MaskablePPO's constructor arguments, checked by train/ppo.py's own
``ppo_arguments``), ``league:`` (:class:`LeagueConfig`) and ``run:`` (:class:`LeagueRun`).

How the opponents are chosen (prioritised fictitious self-play, as AlphaStar's league):
the population is the fixed players of ``league.fixed`` (by default random, careful,
bluffer and the batched heuristic quick) and the newest ``league.pool_size`` snapshots of
the learner (a frozen copy every ``league.snapshot_every`` steps, playing as
``make_agent("ppo:PATH")`` does, its most likely action). Every ``league.eval_every``
steps the learner (its most likely action, as the final agent plays) sits at a table of
each member on ``league.eval_deals`` deals of the batched engine (the same deals for every
member and every evaluation), and member i gets the sampling weight

    w_i = floor / N + (1 - floor) * softmax(-chips_i / temperature)

chips_i being what the learner wins per deal at that table: a member that takes chips from
the learner is met more, one it beats by far is met rarely but never dropped (``floor``
spreads a share of the tables evenly, so a player once beaten stays beaten). A new
snapshot is measured as soon as it joins. Each of the ``run.n_envs`` tables of the batched
engine draws its member by these weights at the start of every deal, and both opponent
seats of that table play that member: one batch holds tables of every member at once.

Everything lands in ``runs/card_poker__{config}__{seed}/``: ``model.zip``, ``config.yaml``
(resolved), ``metrics.csv`` (per member: chips per deal with its 95% CI and sampling weight,
over training; the throughput), ``curve.png``, ``final.json`` (the final agent, loaded
from ``model.zip``, at a table of every member on ``run.final_eval_deals`` deals),
``pool/`` (the snapshots) and ``checkpoints/`` (the model and, beside it in
``step_N.league.json``, the population: ``--resume`` restores both).
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import csv
import functools
import json
import time
from pathlib import Path

import numpy as np

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.atomic import atomic_write, write_text
from agents.ppo import PPOAgent
from agents.tables import play_games
from envs import games
from envs.cli import add_rule_argument, rule_options
from train.common.config import (
    ConfigError,
    add_run_arguments,
    command_line,
    run_overrides,
)
from train.common.league import (
    ENV_ID,
    GAME,
    Config,
    LeagueTables,
    LeagueVecEnv,
    Member,
    Population,
    load_config,
    state_path,
)
from train.common.progress import Progress
from train.common.results import EVAL_SEED, FINAL_SEED, model_line, write_final
from train.common.rundir import choose_run_dir, resuming
from train.common.sb3 import (
    build_model,
    check_same_network,
    learn_rest,
    open_run,
    resume_model,
    save_model,
    setup_torch,
)

# -- evaluation -----------------------------------------------------------------------------


def at_table(agent: Agent, opponent: Agent, cfg: Config, n_deals: int, seed: int) -> dict:
    """``agent`` in a random seat at a table of ``opponent`` in every other seat: chips per
    deal with a 95% CI, win rate, over ``n_deals`` deals of the batched engine."""
    totals = play_games(
        agent.act_batch, ENV_ID, n_deals, seed, opponents=opponent, **cfg.env.kwargs
    )
    return {
        "chips": float(totals.mean()),
        "ci95": float(1.96 * totals.std(ddof=1) / np.sqrt(len(totals))),
        "win_rate": float((totals > 0).mean()),
        "deals": int(n_deals),
    }


def measure(learner: Agent, members: list[Member], cfg: Config, n_deals: int) -> None:
    """Measure the learner at a table of each of ``members`` (their chips and CI)."""
    for m in members:
        res = at_table(learner, m.agent, cfg, n_deals, EVAL_SEED + cfg.run.seed)
        m.chips, m.ci95 = res["chips"], res["ci95"]


def metrics_row(pop: Population, step: int, wall: float, speed: dict) -> dict[str, float]:
    """One row of metrics.csv: chips, CI and weight per fixed member; the snapshots as the
    worst and the mean (their names change as they come and go); the throughput."""
    row: dict[str, float] = {"timesteps": step, "wall_s": round(wall, 2), **speed}
    weights = pop.weights()
    snaps = [(m, w) for m, w in zip(pop.members, weights, strict=True) if m.snapshot]
    for m, w in zip(pop.members, weights, strict=True):
        if not m.snapshot:
            row[f"{m.name}_chips"] = m.chips
            row[f"{m.name}_chips_ci95"] = m.ci95
            row[f"{m.name}_weight"] = float(w)
    row["snapshots"] = len(snaps)
    if snaps:
        worst = min(snaps, key=lambda s: s[0].chips)[0]
        row["snapshot_min_chips"] = worst.chips
        row["snapshot_min_chips_ci95"] = worst.ci95
        row["snapshot_mean_chips"] = float(np.mean([m.chips for m, _ in snaps]))
        row["snapshots_weight"] = float(sum(w for _, w in snaps))
    return row


def plot_curve(metrics_path: Path, out: Path, cfg: Config) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with metrics_path.open() as f:
        rows = list(csv.DictReader(f))
    fig, (ax, aw) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, height_ratios=[2, 1])
    series = [(f"{n}_chips", n, f"{n}_weight", n) for n in cfg.league.fixed]
    series.append(("snapshot_min_chips", "worst snapshot", "snapshots_weight", "all snapshots"))
    for column, label, weight, weight_label in series:
        have = [r for r in rows if r.get(column)]
        if not have:
            continue
        x = [int(float(r["timesteps"])) for r in have]
        ax.errorbar(
            x,
            [float(r[column]) for r in have],
            yerr=[float(r[f"{column}_ci95"]) for r in have],
            marker="o",
            ms=3,
            label=label,
        )
        aw.plot(x, [float(r[weight]) for r in have], label=weight_label)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_ylabel("learner's chips per deal")
    ax.set_title(f"{cfg.run_name}: the learner at a table of each member")
    ax.legend(fontsize=8)
    aw.set_ylabel("sampling weight")
    aw.legend(fontsize=8)
    aw.set_xlabel("timesteps")
    fig.tight_layout()
    with atomic_write(out) as f:
        fig.savefig(f, format="png", dpi=100)
    plt.close(fig)


# -- training -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="Train a card-poker league from a YAML config.")
    add_run_arguments(parser)
    add_rule_argument(parser, example="deck=54")
    args = parser.parse_args(argv)
    keys = (*games.get(GAME).rule_options, *games.get(GAME).table_options)
    cfg = load_config(args.config, run_overrides(args), rule_options(parser, args, keys))
    setup_torch(cfg.run.torch_threads)
    run_dir, checkpoints = choose_run_dir(cfg.run_dir, args.resume, args.run, "step_*.zip")
    cfg.use_folder(run_dir)
    last, model, vec, population = league_model(cfg, args.resume, checkpoints)
    rows, _, callback, progress = open_run(cfg, "league", args.resume, model, last)
    normalizer = vec if cfg.run.normalize_obs else None
    tables: LeagueTables = getattr(vec, "venv", vec).engine
    pace = Pace(model.num_timesteps)
    learner = functools.partial(PPOAgent.from_model, model, normalizer)  # its likeliest action

    def record(step: int) -> dict[str, float]:
        speed, now = pace.since_last(step, tables.deals), time.perf_counter()
        measure(learner(), population.members, cfg, cfg.league.eval_deals)
        speed["eval_s"] = round(time.perf_counter() - now, 2)
        row = metrics_row(population, step, progress.elapsed(), speed)
        rows.add(row)
        progress.line(step, row)
        pace.restart(step, tables.deals)
        return row

    def snapshot(step: int) -> None:
        path = run_dir / "pool" / f"snap_{step:012d}.zip"
        save_model(model, path, normalizer)
        member, _ = population.add_snapshot(path, step)
        member.agent.seed(int(tables.rng.integers(2**63)))
        measure(learner(), [member], cfg, cfg.league.eval_deals)
        tables.refresh()

    def save(path: Path) -> None:  # the population first: the zip is there only when it is
        write_text(state_path(path), json.dumps(population.state()))
        save_model(model, path, normalizer)

    def checkpoint(step: int) -> None:
        rows.checkpoint(f"step_{step}.zip", save)

    events = [(cfg.league.snapshot_every, snapshot)] if cfg.league.pool_size else []
    events += [(cfg.league.eval_every, record), (cfg.run.checkpoint_every, checkpoint)]
    if not args.resume:
        record(0)  # the untrained learner: the curve's first point and the first weights
    learn_rest(model, cfg.run.total_timesteps, callback(events), not args.no_progress, args.resume)
    step = model.num_timesteps
    if pace.step != step or step == 0:  # the last evaluation was not at this step
        record(step)
    if not (run_dir / "checkpoints" / f"step_{step}.zip").exists():
        checkpoint(step)  # after the last row: a kill from here on resumes to the end
    save_model(model, run_dir / "model.zip", normalizer)
    final = final_evaluation(cfg, population, step, progress)
    print(report(cfg, final))
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "league.py")


class Pace:
    """Training steps and deals per second since the last evaluation (``restart``)."""

    def __init__(self, step: int) -> None:
        self.restart(step, 0)

    def restart(self, step: int, deals: int) -> None:
        self.t, self.step, self.deals = time.perf_counter(), step, deals

    def since_last(self, step: int, deals: int) -> dict[str, float]:
        seconds = max(time.perf_counter() - self.t, 1e-9)
        return {
            "steps_per_s": round((step - self.step) / seconds, 1),
            "deals_per_s": round((deals - self.deals) / seconds, 1),
        }


def league_model(cfg: Config, resume: bool, checkpoints: list[Path]):
    """The learner and its tables, fresh from the config, or (``resume``) from the newest
    checkpoint that loads, with the population saved beside it, on tables seeded afresh at
    its step; ``(checkpoint or None, model, envs, population)``. A resumed run must train
    further, with the network it was started with."""
    from stable_baselines3.common.vec_env import VecNormalize

    if not resume:
        population = Population(cfg)
        vec = LeagueVecEnv(cfg, population, cfg.run.seed)
        if cfg.run.normalize_obs:
            vec = VecNormalize(vec, norm_obs=True, norm_reward=False)
        return None, build_model(cfg.ppo, vec, cfg.run.seed), vec, population
    check_same_network(cfg.run_dir / "config.yaml", cfg.ppo)
    holder = {}

    def tables_at(step: int):
        state = read_state(checkpoints, step)
        holder["population"] = Population.from_state(cfg, state, f"step_{step}.zip")
        return LeagueVecEnv(cfg, holder["population"], cfg.run.seed + step)

    last, model, vec = resume_model(checkpoints, cfg.run.normalize_obs, tables_at)
    names = ", ".join(m.name for m in holder["population"].members)
    total = cfg.run.total_timesteps
    resuming(cfg.run_dir, last, model.num_timesteps, total, "timesteps", f"; {names}")
    return last, model, vec, holder["population"]


def read_state(checkpoints: list[Path], step: int) -> dict:
    """The population saved beside the checkpoint of ``step``."""
    path = next(p for p in checkpoints if p.name == f"step_{step}.zip")
    try:
        return json.loads(state_path(path).read_text())
    except (OSError, ValueError) as err:
        raise ConfigError(f"--resume: the population beside {path.name}: {err}") from None


def final_evaluation(cfg: Config, population, step: int, progress: Progress) -> dict:
    """The final agent as a user loads it, at a table of every member, on other deals;
    ``curve.png`` and ``final.json``."""
    run_dir = cfg.run_dir
    train_wall = progress.elapsed()
    plot_curve(run_dir / "metrics.csv", run_dir / "curve.png", cfg)
    final_agent = make_agent(f"ppo:{run_dir / 'model.zip'}", GAME, **cfg.rules)
    t0 = time.perf_counter()
    deals, seed = cfg.run.final_eval_deals, FINAL_SEED + cfg.run.seed
    results = {m.name: at_table(final_agent, m.agent, cfg, deals, seed) for m in population.members}
    final = {
        "timesteps": step,
        "wall_s": train_wall,
        "steps_per_s": round(step / max(train_wall, 1e-9), 1),
        "final_eval_s": round(time.perf_counter() - t0, 1),
        "opponents": results,
        "ahead_of_all": all(r["chips"] - r["ci95"] > 0 for r in results.values()),
    }
    write_final(run_dir, "league", final, **final)  # its figures at the top too (older readers)
    return final


def report(cfg: Config, final: dict) -> str:
    lines = [
        f"\n{cfg.run_name}: {final['timesteps']} steps in {final['wall_s']:.0f} s "
        f"({final['steps_per_s']} steps/s)"
    ]
    for name, r in final["opponents"].items():
        lines.append(
            f"  at a table of {name:>18}: {r['chips']:+.3f} ± {r['ci95']:.3f} chips/deal, "
            f"win rate {r['win_rate']:.3f}"
        )
    lines.append(model_line("ppo", cfg.run_dir / "model.zip", GAME))
    return "\n".join(lines)


if __name__ == "__main__":
    cli()
