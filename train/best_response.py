"""Exploitability: train a fresh best response to a frozen agent and measure what it wins.

    python train/best_response.py --game card_poker --against careful --steps 200000
    python train/best_response.py --game card_poker --against bluffer --rule deck=54 --seed 1
    python train/best_response.py --game dice_poker --against optimal --steps 100000
    python train/best_response.py --game card_poker --against ppo:runs/x/model.zip

``--config`` (default ``configs/best_response.yaml``) is a ``train/ppo.py`` config, read
and checked by its code: ``ppo:`` gives MaskablePPO's arguments, ``run:`` the seed,
``n_envs``, the budget ``total_timesteps`` (``--steps``), the evaluation's
``final_eval_episodes`` (``--eval-games``) and ``torch_threads``, and ``env:`` the
defaults of ``--game`` (its id), ``--players`` (``n_players``), ``--against``
(``opponents``) and the rules. A fresh MaskablePPO learner sits in a random seat of
``--players`` seats on the game's batched engine (:class:`agents.tables.BatchedVecEnv`); the
frozen agent ``--against`` (any ``agents.make_agent`` spec: ``careful``, ``bluffer``,
``quick``, ``heuristic``, ``optimal``, ``random``, ``ppo:PATH``) plays every other seat.
After ``--steps`` of the learner's decisions its greedy policy plays ``--eval-games`` deals
(card poker) or games (dice poker) on the batched engine, seat random, against the same
frozen agent; what it wins per game, with the 95% interval (mean ± 1.96 standard
errors), is the exploitability figure of that budget: a lower bound on what a best
response wins, **lower is better** for the frozen agent. On the same evaluation games
(same seed) the random agent plays in the learner's place, as a floor.

Dice poker adds the **ceiling** where the exact solver gives it: against optimal players,
the optimal agent (``agents.optimal.dice_poker``) is the exact best response in every
position (it best-responds to the optimal players after it; the ones before it have
finished), so the most any player wins is ``ante * (players * w_p - 1)`` in position
``p`` with ``w`` from ``win_probabilities``, and 0 on average over a random seat. Against
other players the solver gives no exact figure; the optimal agent in the learner's place
is then measured on the evaluation games and reported as what it is (a reference, not a
ceiling).

The run is kill-safe as every trainer's (:mod:`train.common`): it lands in
``{run.out_dir}/best_response/{game}[-rules]__{against}__{seed}/`` (``--out`` sets
``run.out_dir``, default ``runs``; numbered ``_2``, ``_3``... when taken; ``--run PATH``
names the folder itself): ``config.yaml``, ``metrics.csv`` (the learner's chips against
the frozen agent every ``run.eval_every`` steps, ``run.eval_episodes`` games on the same
seeds each time), ``progress.log``, ``checkpoints/`` (every ``run.checkpoint_every``
steps, each after the rows of its step), then ``model.zip``, ``results.json``,
``results.csv`` (one row) and ``final.json``, each file atomically; ``--resume`` goes on
from the newest checkpoint. Throughput (training steps/s, evaluation games/s) is part of
the results.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import csv
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.arena import display_name, mean_interval, wilson_interval
from agents.atomic import atomic_write, json_safe, write_text
from agents.tables import BatchedVecEnv, play_games
from envs import games
from envs.cli import add_rule_argument, rule_options
from envs.rules.dice_poker import DicePokerRules
from train.common import results
from train.common.best_response import (
    RUN_FIELDS,
    Table,
    frozen_agent,
    games_with_engine,
    load_config,
)
from train.common.config import ConfigError
from train.common.progress import Progress
from train.common.results import mean_ci, write_final
from train.common.rundir import Rows, check_more_to_train, choose_run_dir, prepare, save_rows
from train.common.sb3 import (
    RunConfig,
    build_model,
    check_same_network,
    clock_callback,
    learn_rest,
    resume_model,
    save_model,
    setup_torch,
)

OUTPUTS = ("results.json", "results.csv", "model.zip", "final.json")
EVAL_CHUNK = 5000  # evaluation games per batched call (memory; a progress-bar tick each)
EVAL_SEED = 20_000_000  # the final evaluation's games do not depend on the training seed


def summarise(totals: np.ndarray) -> dict[str, Any]:
    """Chips per game with its 95% interval, and the win rate (games with a gain)."""
    mean, lo, hi = mean_interval(totals)
    wins = float((totals > 0).sum())
    return {
        "games": len(totals),
        "chips_per_game": mean,
        "chips_per_game_ci95": [lo, hi],
        "win_rate": wins / len(totals),
        "win_rate_ci95": list(wilson_interval(wins, len(totals))),
    }


def evaluate(
    act_batch,
    game: str,
    n_games: int,
    players: int,
    against: Agent,
    rules: dict,
    seed: int = EVAL_SEED,
    bar=None,
) -> np.ndarray:
    """Chips of ``act_batch`` in a random seat per game, the frozen agent in the others:
    ``n_games`` games on the batched engine, in chunks (chunk ``k`` seeded ``seed + k``), so
    every player measured with one seed meets the same deals as far as play lets them."""
    out = []
    env_id = games.get(game).gym_id
    for k, first in enumerate(range(0, n_games, EVAL_CHUNK)):
        n = min(EVAL_CHUNK, n_games - first)
        n_play = max(n, 2)  # play_games needs two games; a lone last game plays two, keeps one
        totals = play_games(
            act_batch, env_id, n_play, seed + k, n_players=players, opponents=against, **rules
        )
        out.append(totals[:n])
        if bar is not None:
            bar.update(n)
    return np.concatenate(out)


def dice_ceiling(game: str, against: str | Agent, players: int, rules: dict) -> dict | None:
    """The exact ceiling of a best response to optimal dice-poker players (module docstring);
    None where the solver gives none (another game, another frozen agent)."""
    if against != "optimal" or game not in games.names_for(DicePokerRules):
        return None
    from agents.optimal.dice_poker import win_probabilities

    r = games.get(game).make_rules(**rules)
    variant = {k: v for k, v in dataclasses.asdict(r).items() if k not in ("n_dice", "ante")}
    w = win_probabilities(players, r.n_dice, **variant)
    by_position = [r.ante * (players * p - 1) for p in w]
    return {
        "exact": True,
        "meaning": "the optimal agent's chips per game against optimal players: the most a "
        "best response wins (ante * (players * win_probability - 1) per position; the "
        "learner's position is uniform, so the mean over positions)",
        "chips_per_game": float(np.mean(by_position)),
        "by_position": by_position,
        "win_probabilities": w,
    }


def run_base(table: Table, run: RunConfig) -> Path:
    """The run folder's name: ``{run.out_dir}/best_response/{game}[-rules]__{against}__{seed}``
    (numbered ``_2``, ``_3``... when taken; see :mod:`train.common.rundir`)."""
    tag = "".join(f"-{k}{v}" for k, v in sorted(table.rules.items()))
    name = display_name(table.against).replace(":", "-").replace("/", "-").replace("@", "-")
    return Path(run.out_dir) / "best_response" / f"{table.game}{tag}__{name}__{run.seed}"


def train(table: Table, agent: Agent, ppo: dict, run: RunConfig, folder=None, progress=True):
    """A MaskablePPO learner trained to ``run.total_timesteps`` from ``run.seed``;
    ``(model, training seconds)``. With ``folder`` (``(run_dir, resume, its checkpoints)``)
    the run is kill-safe as every trainer's: ``metrics.csv`` rows (the learner's chips
    against the frozen agent every ``run.eval_every`` steps, on the same games each time),
    each written before the checkpoint of its step (every ``run.checkpoint_every`` steps),
    ``progress.log``, and ``--resume`` from the newest checkpoint that loads."""
    from agents.ppo import PPOAgent

    setup_torch(run.torch_threads)
    gym_id, seats = games.get(table.game).gym_id, {"n_players": table.players, "opponents": agent}
    make_vec = lambda step: BatchedVecEnv(  # noqa: E731  (seeded afresh at a resumed step)
        gym_id, run.n_envs, seed=run.seed + step, **seats, **table.rules
    )
    run_dir, resume, checkpoints = folder or (None, False, [])
    if resume:
        check_same_network(run_dir / "config.yaml", ppo)
        last, model, _ = resume_model(checkpoints, False, make_vec)
        check_more_to_train(run_dir, model.num_timesteps, run.total_timesteps, "timesteps")
        print(f"resuming {run_dir} from {last.name} ({model.num_timesteps} steps)")
    else:
        last, model = None, build_model(ppo, make_vec(0), run.seed)
    if run_dir is None:
        start = time.perf_counter()
        model.learn(run.total_timesteps, progress_bar=progress)
        return model, time.perf_counter() - start
    seated = {**vars(table), "against": display_name(table.against)}
    resolved = {"trainer": "best_response", "table": seated, "ppo": ppo}
    metrics = prepare(run_dir, resume, {**resolved, "run": dataclasses.asdict(run)})
    rows = Rows(metrics, "timesteps", resume, last)
    clock, callback = clock_callback(metrics, resume, model)
    said = Progress(run_dir, run.total_timesteps, model.num_timesteps, "steps", clock.wall_before)
    said.start(run_dir.name)

    def record(step: int) -> dict[str, Any]:
        learner = PPOAgent.from_model(model).act_batch
        n, seed = run.eval_episodes, results.EVAL_SEED + run.seed  # the same games each time
        totals = evaluate(learner, table.game, n, table.players, agent, table.rules, seed)
        mean, ci = mean_ci(totals)
        row = {"timesteps": step, "wall_s": said.elapsed(), "chips": mean, "chips_ci95": ci}
        row.update(win_rate=float((totals > 0).mean()), **clock.account(step, 0.0))
        rows.add(row)
        said.line(step, row)
        return row

    def checkpoint(step: int) -> None:
        save_rows(run_dir / "checkpoints" / f"step_{step}.zip", metrics)
        save_model(model, run_dir / "checkpoints" / f"step_{step}.zip")

    events = [(run.eval_every, record), (run.checkpoint_every, checkpoint)]
    if not resume:
        record(0)  # the untrained learner: the curve's first point
    learn_rest(model, run.total_timesteps, callback(events), progress, resume)
    if not (run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip").exists():
        checkpoint(model.num_timesteps)  # a kill from here on resumes to the evaluation
    return model, clock["rollout_s"] + clock["update_s"]


def best_response(
    game: str | None = None,
    against: str | Agent | None = None,
    players: int | None = None,
    seed: int | None = None,
    config: str = "best_response.yaml",
    out: str | Path | None = None,
    progress: bool = True,
    steps: int | None = None,
    eval_games: int | None = None,
    n_envs: int | None = None,
    save: bool = False,
    resume: bool = False,
    run_dir: str | Path | None = None,
    **rules,
) -> dict[str, Any]:
    """Train and evaluate a best response to ``against`` (module docstring); the results.
    ``against`` may be an Agent instance; what is None comes from the config
    (:func:`load_config`; ``steps`` is ``run.total_timesteps``, ``eval_games``
    ``run.final_eval_episodes``, ``out`` ``run.out_dir``). With ``save``, ``out`` or
    ``run_dir`` (the run folder itself) the run writes its folder (:func:`run_base`;
    ``resume``: goes on from its newest checkpoint)."""
    overrides = {"total_timesteps": steps, "final_eval_episodes": eval_games, "out_dir": out}
    overrides.update(n_envs=n_envs, seed=seed)
    table, ppo, run = load_config(config, game, against, players, rules, overrides)
    agent = frozen_agent(table.against, table.game, table.players, table.rules)
    folder = None
    if save or out is not None or run_dir is not None:
        where, checkpoints = choose_run_dir(run_base(table, run), resume, run_dir, "step_*.zip")
        folder = (where, resume, checkpoints)
    model, train_s = train(table, agent, ppo, run, folder, progress)
    result = evaluate_all(table, agent, model, run, progress)
    result.update(config=str(config), ppo=ppo, train_seconds=train_s)
    result.update(train_steps_per_s=model.num_timesteps / train_s if train_s > 0 else None)
    if folder is not None:
        write_outputs(result, model, folder[0])
        result["run_dir"] = str(folder[0])
    return result


def evaluate_all(table: Table, agent: Agent, model, run: RunConfig, progress: bool) -> dict:
    """The learner's greedy policy, then the random agent (and the optimal one, where the
    game has it) in its place, on the same ``run.final_eval_episodes`` games; the results."""
    from tqdm import tqdm

    from agents.ppo import PPOAgent

    game, players, against, rules = table.game, table.players, table.against, table.rules
    n_eval, has_optimal = run.final_eval_episodes, "optimal" in games.get(game).agents
    bar = tqdm(
        total=(2 + has_optimal) * n_eval, unit="game", desc="evaluation", disable=not progress
    )
    start = time.perf_counter()
    learner = PPOAgent.from_model(model).act_batch
    learned = evaluate(learner, game, n_eval, players, agent, rules, seed=EVAL_SEED, bar=bar)
    eval_s = time.perf_counter() - start
    random_agent = make_agent("random", game, **rules)
    random_agent.seed(run.seed)
    floor = evaluate(random_agent.act_batch, game, n_eval, players, agent, rules, EVAL_SEED, bar)
    result: dict[str, Any] = {
        "game": game,
        "rules": rules,
        "players": players,
        "against": display_name(against),
        "against_spec": against if isinstance(against, str) else display_name(against),
        "seed": run.seed,
        "run": {k: v for k, v in dataclasses.asdict(run).items() if k in RUN_FIELDS},
        "eval_seed": EVAL_SEED,
        "meaning": "chips per game of the learner's greedy policy in a random seat, the frozen "
        "agent in every other seat; 95% intervals: mean ± 1.96 standard errors (chips), "
        "Wilson (win rate = games with a gain); lower is better for the frozen agent",
        "best_response": summarise(learned),
        "random_in_its_place": summarise(floor),
        "train_steps": int(model.num_timesteps),
        "eval_games_per_s": n_eval / eval_s,
    }
    if has_optimal:
        optimal = make_agent("optimal", game, **rules).act_batch
        reference = evaluate(optimal, game, n_eval, players, agent, rules, EVAL_SEED, bar)
        result["optimal_in_its_place"] = summarise(reference)
    bar.close()
    ceiling = dice_ceiling(game, against, players, rules)
    if ceiling is not None:
        result["ceiling"] = ceiling
    return result


def csv_row(result: dict[str, Any]) -> dict[str, Any]:
    """The results flattened to one CSV row."""
    row = {k: result[k] for k in ("game", "players", "against", "seed", "train_steps")}
    row["rules"] = " ".join(f"{k}={v}" for k, v in result["rules"].items())
    for who in ("best_response", "random_in_its_place", "optimal_in_its_place"):
        if who in result:
            s = result[who]
            row[f"{who}_chips"] = s["chips_per_game"]
            row[f"{who}_chips_lo"], row[f"{who}_chips_hi"] = s["chips_per_game_ci95"]
            row[f"{who}_win_rate"] = s["win_rate"]
    if "ceiling" in result:
        row["ceiling_chips"] = result["ceiling"]["chips_per_game"]
    for k in ("train_seconds", "train_steps_per_s", "eval_games_per_s"):
        row[k] = result[k]
    return row


def write_outputs(result: dict[str, Any], model, out: Path) -> None:
    """``model.zip``, ``results.csv``, ``results.json``, then ``final.json`` (the run is
    finished), each atomically."""
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(out / "model.zip") as f:
        model.save(f)
    row = csv_row(result)
    with atomic_write(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    write_text(out / "results.json", json.dumps(json_safe(result), indent=1) + "\n")
    others = {
        k[: -len("_in_its_place")]: v for k, v in result.items() if k.endswith("_in_its_place")
    }
    write_final(out, "best_response", result["best_response"], json_safe(others))


def _ci(s: dict[str, Any]) -> str:
    lo, hi = s["chips_per_game_ci95"]
    return f"{s['chips_per_game']:+.3f} ({lo:+.3f} to {hi:+.3f})"


def report(result: dict[str, Any]) -> str:
    """The results as a few lines for people."""
    what = "deal" if result["game"] == "card_poker" else "game"
    lines = [
        f"{' '.join([result['game'], *(f'{k}={v}' for k, v in result['rules'].items())])}, "
        f"{result['players']} players, best response "
        f"to {result['against']} (seed {result['seed']}, {result['train_steps']} steps in "
        f"{result['train_seconds']:.0f} s = {result['train_steps_per_s']:.0f} steps/s; "
        f"evaluation {result['eval_games_per_s']:.0f} {what}s/s)",
        f"  best response  chips/{what} {_ci(result['best_response'])}, "
        f"win rate {result['best_response']['win_rate']:.3f}",
        f"  random there   chips/{what} {_ci(result['random_in_its_place'])}",
    ]
    if "optimal_in_its_place" in result:
        lines.append(f"  optimal there  chips/{what} {_ci(result['optimal_in_its_place'])}")
    if "ceiling" in result:
        c = result["ceiling"]
        pos = ", ".join(f"{x:+.4f}" for x in c["by_position"])
        lines.append(
            f"  exact ceiling  chips/{what} {c['chips_per_game']:+.4f} (by position {pos}; "
            "the optimal agent against optimal players, from win_probabilities)"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="best_response.py",
        description="Train a best response to a frozen agent; report what it wins (95% CI).",
    )
    parser.add_argument(
        "--game", choices=games_with_engine(), help="default: the game of the config's env.id"
    )
    parser.add_argument(
        "--against",
        metavar="SPEC",
        help="the frozen agent in every other seat: any make_agent spec (careful, bluffer, "
        "quick, heuristic, optimal, random, ppo:PATH); default: the config's env.kwargs.opponents",
    )
    parser.add_argument("--players", type=int, help="default: the config's env.kwargs.n_players")
    parser.add_argument("--steps", type=int, help="training budget (run.total_timesteps)")
    parser.add_argument("--eval-games", type=int, help="run.final_eval_episodes")
    parser.add_argument("--n-envs", type=int, help="run.n_envs")
    parser.add_argument("--seed", type=int, help="run.seed")
    parser.add_argument(
        "--config", default="best_response.yaml", help="a train/ppo.py config (default %(default)s)"
    )
    parser.add_argument(
        "--out", help="the folder of run folders (run.out_dir): OUT/best_response/RUN/"
    )
    parser.add_argument("--run", metavar="PATH", help="this run folder itself")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    parser.add_argument("--no-progress", action="store_true")
    add_rule_argument(parser, example="deck=54")
    return parser


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        table, _, _ = load_config(args.config, args.game, args.against, args.players)
        rules = rule_options(parser, args, games.get(table.game).rule_options)
        result = best_response(
            args.game,
            args.against,
            args.players,
            args.seed,
            args.config,
            args.out,
            not args.no_progress,
            args.steps,
            args.eval_games,
            args.n_envs,
            save=True,
            resume=args.resume,
            run_dir=args.run,
            **rules,
        )
    except (ConfigError, FileNotFoundError, FileExistsError) as err:
        parser.error(str(err))
    print(report(result))
    print(f"wrote {result['run_dir']}/{{{','.join(OUTPUTS)}}}", file=sys.stderr)
    return result


def cli(argv: list[str] | None = None) -> None:
    """The command line: a bad option or config is one line and exit status 2."""
    main(argv)


if __name__ == "__main__":
    cli()
