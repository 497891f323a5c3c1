"""Card poker by neural MMD self-play: MaskablePPO with magnetic mirror descent's reverse KL
to a slowly moving magnet, the learner's own current policy in every other seat.

    python train/mmd.py --config card_poker_mmd.yaml
    python train/mmd.py --config card_poker_mmd.yaml --players 3 --rule deck=54 --seed 1
    python train/mmd.py --config card_poker_mmd.yaml --resume

A bare file name is looked up in ``configs/``. The config has four sections: ``env:``
(``id: CardPoker-v0`` and its ``kwargs``: rules and table options, never ``opponents``;
``--players`` sets ``n_players``, ``--rule`` a rule), ``ppo:`` (exactly MaskablePPO's
constructor arguments), ``mmd:`` (:class:`train.common.mmd.MmdConfig`: ``magnet_coef``,
``magnet_tau``, the evaluations) and ``run:`` (the league's:
:class:`train.common.league.LeagueRun`).

The learner (:class:`train.common.mmd.MmdPPO`) sits in a random seat of each deal of the
batched engine; every other seat samples from the learner's own policy as it is during
that rollout (self-play against the latest snapshot, refreshed every update). Every
``mmd.eval_every`` steps its policy as ``make_agent("ppo:PATH")`` plays an MMD run's model
(:data:`POLICY`: sampled, a mixed strategy, from a Generator seeded by the run's seed; a
greedy look is ``ppo:PATH?greedy``) meets each of ``mmd.eval_against`` on
``mmd.eval_deals`` duplicate deals (each deal once with the learner in every seat, the
fixed player in the others, the 95% interval over the deals:
:mod:`train.common.best_response`'s evaluation), the same deals each time.

Everything lands in ``runs/card_poker__{config}__{seed}/`` as the league's runs:
``model.zip`` (+ ``model.vecnormalize.pkl``; a MaskablePPO zip, playable as
``ppo:PATH``), ``config.yaml`` (resolved), ``metrics.csv`` (chips per deal against each
fixed player with its interval; the magnet's KL; throughput), ``progress.log``,
``curve.png``, ``final.json`` (``policy``: ``sample``; the final agent, loaded from
``model.zip``, on ``run.final_eval_deals`` other duplicate deals against each) and
``checkpoints/``
(``step_N.zip`` with the magnet beside it in ``step_N.magnet.pt``: ``--resume`` restores
both). Exploitability is measured apart: ``python train/best_response.py --game
card_poker --players 2 --against ppo:runs/.../model.zip``.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import functools
import time
from pathlib import Path

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.ppo import MIXED_TRAINERS, PPOAgent
from envs import games
from envs.cli import add_rule_argument, rule_options
from train.common import sb3
from train.common.best_response import chips_ci, play_at_seat, rotated_blocks, summarise_blocks
from train.common.config import add_run_arguments, command_line, run_overrides
from train.common.league import GAME
from train.common.mmd import Config, MmdPPO, build_mmd_model, load_config, self_play_vec_env
from train.common.results import EVAL_SEED, FINAL_SEED, figure, model_line, read_rows, write_final
from train.common.rundir import choose_run_dir, resuming

# How the evaluations play the learner: as make_agent("ppo:PATH") plays the saved model,
# sampled where its trainer learns a mixed strategy (agents.ppo.MIXED_TRAINERS)
POLICY = "sample" if "mmd" in MIXED_TRAINERS else "greedy"


def learner_agent(model, normalizer, seed: int) -> PPOAgent:
    """The learner in memory as :data:`POLICY` plays it, its Generator seeded by ``seed``."""
    agent = PPOAgent.from_model(model, normalizer, deterministic=POLICY == "greedy")
    agent.seed(seed)
    return agent


def players(cfg: Config) -> int:
    return cfg.env.kwargs.get("n_players", games.get(GAME).default_players)


def at_table(act_batch, against: Agent, cfg: Config, n_deals: int, seed: int) -> dict:
    """``act_batch`` against ``against`` in every other seat on ``n_deals`` duplicate deals
    (each once with the learner in every seat): :func:`summarise_blocks`' figures."""
    n = players(cfg)

    def play_seat(seat: int, seeds: list[int]):
        return play_at_seat(act_batch, GAME, seat, seeds, n, against, cfg.rules)

    return summarise_blocks(rotated_blocks(play_seat, n, n_deals, seed))


def evaluate(act_batch, cfg: Config, n_deals: int, seed: int) -> dict[str, dict]:
    """:func:`at_table` against each of ``mmd.eval_against``, by name."""
    return {
        spec: at_table(act_batch, make_agent(spec, GAME, **cfg.rules), cfg, n_deals, seed)
        for spec in cfg.mmd.eval_against
    }


def metrics_row(results: dict[str, dict], step: int, wall: float) -> dict[str, float]:
    row: dict[str, float] = {"timesteps": step, "wall_s": round(wall, 2)}
    for name, s in results.items():
        lo, hi = s["chips_per_game_ci95"]
        row[f"{name}_chips"] = s["chips_per_game"]
        row[f"{name}_chips_ci95"] = (hi - lo) / 2
        row[f"{name}_win_rate"] = s["win_rate"]
    return row


def plot_curve(cfg: Config) -> None:
    rows = read_rows(cfg.run_dir / "metrics.csv")
    with figure(cfg.run_dir / "curve.png", f"{cfg.run_dir.name}: the learner against") as ax:
        for name in cfg.mmd.eval_against:
            have = [r for r in rows if r.get(f"{name}_chips")]
            ax.errorbar(
                [int(float(r["timesteps"])) for r in have],
                [float(r[f"{name}_chips"]) for r in have],
                yerr=[float(r[f"{name}_chips_ci95"]) for r in have],
                marker="o",
                ms=3,
                label=name,
            )
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xlabel("timesteps")
        ax.set_ylabel("chips per deal (duplicate deals)")


def magnet_path(checkpoint: Path) -> Path:
    """The magnet saved beside a checkpoint."""
    return checkpoint.with_suffix(".magnet.pt")


def load_learner(path: Path) -> MmdPPO:
    """A checkpoint as :class:`MmdPPO`, its magnet from beside it."""
    from agents.model_files import load_sb3_zip

    model = load_sb3_zip(MmdPPO, path)
    magnet = magnet_path(path)
    if not magnet.is_file():
        raise FileNotFoundError(f"its magnet {magnet.name} is missing")
    try:
        model.load_magnet(magnet)
    except Exception as err:  # a damaged or foreign file
        raise ValueError(f"cannot read the magnet {magnet.name}: {err}") from None
    return model


def mmd_model(cfg: Config, resume: bool, checkpoints: list[Path], holder: dict):
    """The learner and its self-play tables, fresh from the config or (``resume``) from the
    newest checkpoint that loads, on tables seeded afresh at its step; ``(checkpoint or
    None, model, envs)``."""
    from stable_baselines3.common.vec_env import VecNormalize

    if not resume:
        vec = self_play_vec_env(cfg, holder, cfg.run.seed)
        if cfg.run.normalize_obs:
            vec = VecNormalize(vec, norm_obs=True, norm_reward=False)
        return None, build_mmd_model(cfg.ppo, cfg.mmd, vec, cfg.run.seed), vec
    sb3.check_same_network(cfg.run_dir / "config.yaml", cfg.ppo)
    last, model, vec = sb3.resume_model(
        checkpoints,
        cfg.run.normalize_obs,
        lambda step: self_play_vec_env(cfg, holder, cfg.run.seed + step),
        load_learner,
    )
    model.magnet_coef, model.magnet_tau = cfg.mmd.magnet_coef, cfg.mmd.magnet_tau
    resuming(cfg.run_dir, last, model.num_timesteps, cfg.run.total_timesteps, "timesteps")
    return last, model, vec


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="Train card poker by neural MMD self-play.")
    add_run_arguments(parser)
    add_rule_argument(parser, example="deck=54")
    parser.add_argument("--players", type=int, help="seats at the table (env.kwargs.n_players)")
    args = parser.parse_args(argv)
    record = games.get(GAME)
    kwargs = rule_options(parser, args, (*record.rule_options, *record.table_options))
    if args.players is not None:
        kwargs["n_players"] = args.players
    cfg = load_config(args.config, run_overrides(args), kwargs)
    sb3.setup_torch(cfg.run.torch_threads)
    run_dir, checkpoints = choose_run_dir(cfg.run_dir, args.resume, args.run, "step_*.zip")
    cfg.use_folder(run_dir)
    holder: dict = {}
    last, model, vec = mmd_model(cfg, args.resume, checkpoints, holder)
    normalizer = vec if cfg.run.normalize_obs else None
    holder["model"], holder["normalizer"] = model, normalizer  # the other seats' policy
    rows, _, callback, progress = sb3.open_run(cfg, "mmd", args.resume, model, last)
    pace = {"step": model.num_timesteps, "t": time.perf_counter()}

    def measure(step: int) -> dict[str, float]:
        now = time.perf_counter()
        steps_per_s = (step - pace["step"]) / max(now - pace["t"], 1e-9)
        seed = EVAL_SEED + cfg.run.seed  # the same deals and draws at every evaluation
        learner = learner_agent(model, normalizer, seed)
        results = evaluate(learner.act_batch, cfg, cfg.mmd.eval_deals, seed)
        row = metrics_row(results, step, progress.elapsed())
        row["magnet_kl"] = model.last_magnet_kl
        row["steps_per_s"] = round(steps_per_s, 1)
        row["eval_s"] = round(time.perf_counter() - now, 2)
        rows.add(row)
        progress.line(step, row)
        pace.update(step=step, t=time.perf_counter())
        return row

    def save(path: Path) -> None:  # the magnet first: the zip is there only when it is
        model.save_magnet(magnet_path(path))
        sb3.save_model(model, path, normalizer)

    def checkpoint(step: int) -> None:
        rows.checkpoint(f"step_{step}.zip", save)

    events = [(cfg.mmd.eval_every, measure), (cfg.run.checkpoint_every, checkpoint)]
    if not args.resume:
        measure(0)  # the untrained learner: the curve's first point
    sb3.learn_rest(
        model, cfg.run.total_timesteps, callback(events), not args.no_progress, args.resume
    )
    step = model.num_timesteps
    if pace["step"] != step or step == 0:  # the last evaluation was not at this step
        measure(step)
    if not (run_dir / "checkpoints" / f"step_{step}.zip").exists():
        checkpoint(step)  # after the last row: a kill from here on resumes to the end
    sb3.save_model(model, run_dir / "model.zip", normalizer)
    final = final_evaluation(cfg, step, progress)
    print(report(cfg, final))
    return run_dir


# the command line: a bad config, option or run folder is one line and exit status 2
cli = functools.partial(command_line, main, "mmd.py")


def final_evaluation(cfg: Config, step: int, progress) -> dict:
    """The final agent as a user loads it against each fixed player on other duplicate
    deals; ``curve.png`` and ``final.json``."""
    train_wall = progress.elapsed()
    plot_curve(cfg)
    agent = make_agent(f"ppo:{cfg.run_dir / 'model.zip'}?{POLICY}", GAME, **cfg.rules)
    seed = FINAL_SEED + cfg.run.seed
    agent.seed(seed)
    t0 = time.perf_counter()
    results = evaluate(agent.act_batch, cfg, cfg.run.final_eval_deals, seed)
    final = {
        "timesteps": step,
        "policy": POLICY,
        "players": players(cfg),
        "rules": cfg.rules,
        "wall_s": train_wall,
        "steps_per_s": round(step / max(train_wall, 1e-9), 1),
        "final_eval_s": round(time.perf_counter() - t0, 1),
        "opponents": results,
        "ahead_of_all": all(r["chips_per_game_ci95"][0] > 0 for r in results.values()),
    }
    write_final(cfg.run_dir, "mmd", final)
    return final


def report(cfg: Config, final: dict) -> str:
    head = (
        f"\n{cfg.run_name}: {final['timesteps']} steps, {final['players']} players, "
        f"{final['wall_s']:.0f} s ({final['steps_per_s']} steps/s); duplicate deals, "
        f"policy {final['policy']}:"
    )
    against = [
        f"  against {name:>10}: {chips_ci(s)} chips/deal, win rate {s['win_rate']:.3f}"
        for name, s in final["opponents"].items()
    ]
    return "\n".join([head, *against, model_line("ppo", cfg.run_dir / "model.zip", GAME)])


if __name__ == "__main__":
    cli()
