"""Exploitability: train a fresh best response to a frozen agent and measure what it wins,
as a curve over budgets (docs/exploitability.md).

    python train/best_response.py --game card_poker --against careful --steps 200000
    python train/best_response.py --against careful --budgets 100000 300000 --seeds 0 1 2
    python train/best_response.py --game card_poker --against bluffer --rule deck=54 --seed 1
    python train/best_response.py --game dice_poker --against optimal --steps 100000
    python train/best_response.py --game card_poker --against ppo:runs/x/model.zip

``--config`` (default ``configs/best_response.yaml``) is a ``train/ppo.py`` config, read and
checked by its code (a key only train/ppo.py honours, such as ``run.normalize_reward``,
stops the run at load: ``train.common.config.HONOURED_BY``): ``ppo:`` gives MaskablePPO's
arguments, ``run:`` the seed, ``n_envs``, the budget ``total_timesteps`` (``--steps``), the
evaluation's ``final_eval_episodes`` (``--eval-games``) and ``torch_threads``, and ``env:``
the defaults of ``--game`` (its id), ``--players`` (``n_players``), ``--against``
(``opponents``) and the rules. A fresh MaskablePPO learner sits in a random seat of
``--players`` seats on the game's batched engine (:class:`agents.tables.BatchedVecEnv`); the
frozen agent ``--against`` (any ``agents.make_agent`` spec: ``careful``, ``bluffer``,
``quick``, ``heuristic``, ``optimal``, ``random``, ``ppo:PATH``) plays every other seat. The
run trains to the largest of ``--budgets`` (default: ``--steps``); at each budget, once PPO
has updated on the rollout that reached it, the learner's greedy policy plays
``--eval-games`` deals (card poker) or games (dice poker) on the batched engine against the
same frozen agent, as **duplicate deals** (blocks of one deal per ``--players`` games, the
policy once in every seat: :mod:`train.common.best_response`); what it wins per game, with
the 95% interval over the blocks, is the exploitability figure of that budget: a lower bound
on what a best response wins, **lower is better** for the frozen agent. On the same
evaluation games the random agent plays in the learner's place, as a floor.
``--seeds S ...`` runs one seed after another and prints the table across them.

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
steps, each after the rows of its step, and at every budget), ``budgets/budget_B.json``
(each budget's point, once scored), then ``model.zip``, ``results.json``,
``results.csv`` (a row per budget) and ``final.json``, each file atomically;
``--resume`` goes on from the newest checkpoint, scoring from its checkpoint a budget
the killed run reached but had not scored. Throughput (training steps/s, evaluation
games/s) is part of the results.
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
from agents.arena import display_name
from agents.atomic import atomic_write, json_safe, write_text
from agents.tables import BatchedVecEnv
from envs import games
from envs.cli import add_rule_argument, rule_options
from envs.rules.dice_poker import DicePokerRules
from train.common import results
from train.common.best_response import (
    RUN_FIELDS,
    Table,
    budget_callback,
    check_budgets,
    chips_ci,
    eval_blocks,
    exploitability_table,
    frozen_agent,
    games_with_engine,
    load_config,
    play_at_seat,
    rotated_blocks,
    summarise_blocks,
)
from train.common.config import ConfigError
from train.common.progress import Progress
from train.common.results import write_final
from train.common.rundir import (
    Rows,
    check_more_to_train,
    checkpoint_step,
    choose_run_dir,
    prepare,
    save_rows,
)
from train.common.sb3 import (
    RunConfig,
    build_model,
    check_same_network,
    clock_callback,
    learn_rest,
    load_checkpoint,
    resume_model,
    save_model,
    setup_torch,
)

OUTPUTS = ("results.json", "results.csv", "model.zip", "final.json")
EVAL_SEED = 20_000_000  # the final evaluation's games do not depend on the training seed


def evaluate(
    act_batch,
    game: str,
    n_games: int,
    players: int,
    against: Agent,
    rules: dict,
    seed: int = EVAL_SEED,
    bar=None,
) -> dict[str, Any]:
    """``act_batch`` against the frozen agent on duplicate deals: about ``n_games`` games in
    blocks of ``players`` (one deal per block, ``act_batch`` once in every seat of it, the
    frozen agent in the others; block ``b``'s deal from ``seed``'s ``b``-th word, whatever
    the chunk), summarised with the 95% interval over the blocks
    (:func:`train.common.best_response.summarise_blocks`: the evaluation mini card poker's
    curve uses too). Every player measured with one seed meets the same deals."""

    def play(seat: int, seeds: list[int]) -> np.ndarray:
        return play_at_seat(act_batch, game, seat, seeds, players, against, rules)

    blocks = eval_blocks(n_games, players)
    return summarise_blocks(rotated_blocks(play, players, blocks, seed, bar))


def dice_ceiling(game: str, against: str | Agent, players: int, rules: dict) -> dict | None:
    """The exact ceiling of a best response to optimal dice-poker players (module docstring);
    None where the solver gives none (another game, another frozen agent)."""
    if against != "optimal" or games.get(game).name not in games.names_for(DicePokerRules):
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
    name = display_name(table.against)
    for mark in ":/@?":  # ppo:x@step_5?sample -> ppo-x-step_5-sample
        name = name.replace(mark, "-")
    return Path(run.out_dir) / "best_response" / f"{table.game}{tag}__{name}__{run.seed}"


def read_budget_rows(run_dir: Path) -> dict[int, dict[str, Any]]:
    """The curve rows a run folder holds (``budgets/budget_B.json``), by budget."""
    rows = {}
    for path in (run_dir / "budgets").glob("budget_*.json"):
        try:
            row = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # a row is written atomically: a bad file is none
        rows[int(row["budget"])] = row
    return rows


def train(
    table: Table,
    agent: Agent,
    ppo: dict,
    run: RunConfig,
    folder=None,
    progress=True,
    budgets: list[int] | None = None,
):
    """A MaskablePPO learner trained to ``run.total_timesteps`` from ``run.seed``, its
    greedy policy scored at each of ``budgets`` (default: the run's total) by the final
    evaluation (``run.final_eval_episodes`` games on duplicate deals, seed ``EVAL_SEED``)
    at the first step at or past it; ``(model, training seconds, curve)``, a curve row per
    budget. With ``folder`` (``(run_dir, resume, its checkpoints)``) the run is kill-safe
    as every trainer's: ``metrics.csv`` rows (the learner's chips against the frozen agent
    every ``run.eval_every`` steps, on the same games each time), each written before the
    checkpoint of its step (every ``run.checkpoint_every`` steps, and at each budget),
    ``progress.log``, each budget's row in ``budgets/budget_B.json`` once scored, and
    ``--resume`` from the newest checkpoint that loads, scoring from its checkpoint a
    budget the killed attempt passed without a row."""
    from agents.ppo import PPOAgent

    budgets = budgets or [run.total_timesteps]
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

    def score(learner_model, budget: int, step: int) -> tuple[dict[str, Any], float]:
        start = time.perf_counter()
        learner = PPOAgent.from_model(learner_model).act_batch
        n = run.final_eval_episodes
        summary = evaluate(learner, table.game, n, table.players, agent, table.rules)
        took = time.perf_counter() - start
        return {"budget": budget, "train_steps": step, "best_response": summary}, took

    if run_dir is None:
        curve, spent, start = [], [0.0], time.perf_counter()

        def at_budget_here(budget: int, step: int) -> None:
            row, took = score(model, budget, step)
            curve.append({**row, "eval_seconds": took})
            spent[0] += took

        scorer = budget_callback(budgets, at_budget_here)
        model.learn(run.total_timesteps, progress_bar=progress, callback=scorer)
        return model, time.perf_counter() - start - spent[0], curve
    seated = {**vars(table), "against": display_name(table.against)}
    resolved = {"trainer": "best_response", "table": seated, "budgets": budgets, "ppo": ppo}
    resolved["run"] = dataclasses.asdict(run)
    metrics = prepare(run_dir, resume, resolved, ("budgets",), ("budgets/*.json",))
    rows = Rows(metrics, "timesteps", resume, last)
    clock, callback = clock_callback(metrics, resume, model)
    said = Progress(run_dir, run.total_timesteps, model.num_timesteps, "steps", clock.wall_before)
    said.start(run_dir.name)
    done = read_budget_rows(run_dir) if resume else {}

    def record(step: int) -> dict[str, Any]:
        learner = PPOAgent.from_model(model).act_batch
        n, seed = run.eval_episodes, results.EVAL_SEED + run.seed  # the same games each time
        s = summarise_blocks_row(
            evaluate(learner, table.game, n, table.players, agent, table.rules, seed)
        )
        row = {"timesteps": step, "wall_s": said.elapsed(), **s, **clock.account(step, 0.0)}
        rows.add(row)
        said.line(step, row)
        return row

    def checkpoint(step: int) -> None:
        save_rows(run_dir / "checkpoints" / f"step_{step}.zip", metrics)
        save_model(model, run_dir / "checkpoints" / f"step_{step}.zip")

    def keep(row: dict[str, Any], took: float) -> None:
        clock["eval_s"] += took  # evaluations inside a rollout are not training time
        row.update(eval_seconds=took, wall_s=said.elapsed())
        write_text(run_dir / "budgets" / f"budget_{row['budget']}.json", json.dumps(row) + "\n")
        done[row["budget"]] = row
        scored = summarise_blocks_row(row["best_response"])
        said.line(row["train_steps"], scored, label=f"budget {row['budget']:,}: ")

    def at_budget(budget: int, step: int) -> None:
        if not (run_dir / "checkpoints" / f"step_{step}.zip").exists():
            checkpoint(step)  # the budget's policy, kept: a kill from here rescores it
        keep(*score(model, budget, step))

    for budget in budgets:  # passed by a killed attempt that did not score them
        if budget not in done and budget <= model.num_timesteps:
            path = next((c for c in checkpoints if checkpoint_step(c) >= budget), None)
            if path is None:
                raise ConfigError(f"--resume: no checkpoint at or after budget {budget}")
            _, old, _ = load_checkpoint([path], False)
            keep(*score(old, budget, checkpoint_step(path)))
    events = [(run.eval_every, record), (run.checkpoint_every, checkpoint)]
    if not resume:
        record(0)  # the untrained learner: the curve's first point
    todo = [b for b in budgets if b not in done]
    scorer = budget_callback(todo, at_budget)
    learn_rest(model, run.total_timesteps, [callback(events), scorer], progress, resume)
    if not (run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip").exists():
        checkpoint(model.num_timesteps)  # a kill from here on resumes to the evaluation
    for budget in budgets:  # a budget past the last step learn took (a resumed full run)
        if budget not in done:
            at_budget(budget, model.num_timesteps)
    return model, clock["rollout_s"] + clock["update_s"], [done[b] for b in budgets]


def summarise_blocks_row(s: dict[str, Any]) -> dict[str, Any]:
    """An evaluation's metrics.csv columns: chips, the 95% half-width, the win rate."""
    lo, hi = s["chips_per_game_ci95"]
    return {"chips": s["chips_per_game"], "chips_ci95": (hi - lo) / 2, "win_rate": s["win_rate"]}


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
    budgets: list[int] | None = None,
    **rules,
) -> dict[str, Any]:
    """Train and evaluate a best response to ``against`` (module docstring); the results.
    ``against`` may be an Agent instance; what is None comes from the config
    (:func:`load_config`; ``steps`` is ``run.total_timesteps``, ``eval_games``
    ``run.final_eval_episodes``, ``out`` ``run.out_dir``). ``budgets``: the learner's
    decisions at which its policy is scored (a curve row each; the run trains to the
    largest; default: ``steps``). With ``save``, ``out`` or ``run_dir`` (the run folder
    itself) the run writes its folder (:func:`run_base`; ``resume``: goes on from its
    newest checkpoint)."""
    budgets = check_budgets(budgets, steps)
    total = budgets[-1] if budgets else steps
    overrides = {"total_timesteps": total, "final_eval_episodes": eval_games, "out_dir": out}
    overrides.update(n_envs=n_envs, seed=seed)
    table, ppo, run = load_config(config, game, against, players, rules, overrides)
    agent = frozen_agent(table.against, table.game, table.players, table.rules)
    budgets = budgets or [run.total_timesteps]
    folder = None
    if save or out is not None or run_dir is not None:
        where, checkpoints = choose_run_dir(run_base(table, run), resume, run_dir, "step_*.zip")
        folder = (where, resume, checkpoints)
    model, train_s, curve = train(table, agent, ppo, run, folder, progress, budgets)
    result = evaluate_all(table, agent, model, run, progress, curve)
    result.update(config=str(config), ppo=ppo, train_seconds=train_s)
    result.update(train_steps_per_s=model.num_timesteps / train_s if train_s > 0 else None)
    if folder is not None:
        write_outputs(result, model, folder[0])
        result["run_dir"] = str(folder[0])
    return result


def evaluate_all(
    table: Table, agent: Agent, model, run: RunConfig, progress: bool, curve: list[dict]
) -> dict:
    """The results: the learner's ``curve`` (a row per budget, the last its final figure),
    then the random agent (and the optimal one, where the game has it) in its place on the
    same ``run.final_eval_episodes`` games on duplicate deals."""
    from tqdm import tqdm

    game, players, against, rules = table.game, table.players, table.against, table.rules
    n_eval, has_optimal = run.final_eval_episodes, "optimal" in games.get(game).agents
    n_games = eval_blocks(n_eval, players) * players
    bar = tqdm(
        total=(1 + has_optimal) * n_games, unit="game", desc="evaluation", disable=not progress
    )
    random_agent = make_agent("random", game, **rules)
    random_agent.seed(run.seed)
    floor = evaluate(random_agent.act_batch, game, n_eval, players, agent, rules, EVAL_SEED, bar)
    last = curve[-1]
    result: dict[str, Any] = {
        "game": game,
        "rules": rules,
        "players": players,
        "against": display_name(against),
        "against_spec": against if isinstance(against, str) else display_name(against),
        "seed": run.seed,
        "run": {k: v for k, v in dataclasses.asdict(run).items() if k in RUN_FIELDS},
        "eval_seed": EVAL_SEED,
        "evaluation": "duplicate deals: blocks of one deal per players games, the learner "
        "once in every seat of it, the frozen agent in the others",
        "meaning": "chips per game of the learner's greedy policy over its seats, the frozen "
        "agent in every other seat; 95% intervals: mean ± 1.96 standard errors over the "
        "duplicate blocks (chips and win rate = games with a gain); lower is better for the "
        "frozen agent",
        "budgets": [r["budget"] for r in curve],
        "curve": curve,
        "best_response": last["best_response"],
        "random_in_its_place": floor,
        "train_steps": int(model.num_timesteps),
        "eval_games_per_s": last["best_response"]["games"] / last["eval_seconds"],
    }
    if has_optimal:
        optimal = make_agent("optimal", game, **rules).act_batch
        reference = evaluate(optimal, game, n_eval, players, agent, rules, EVAL_SEED, bar)
        result["optimal_in_its_place"] = reference
    bar.close()
    ceiling = dice_ceiling(game, against, players, rules)
    if ceiling is not None:
        result["ceiling"] = ceiling
    return result


def csv_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The results flattened to CSV rows, one per budget of the curve."""
    common = {k: result[k] for k in ("game", "players", "against", "seed")}
    common["rules"] = " ".join(f"{k}={v}" for k, v in result["rules"].items())
    out = []
    for point in result["curve"]:
        row = {**common, "budget": point["budget"], "train_steps": point["train_steps"]}
        for who in ("best_response", "random_in_its_place", "optimal_in_its_place"):
            s = point["best_response"] if who == "best_response" else result.get(who)
            if s is not None:
                row[f"{who}_chips"] = s["chips_per_game"]
                row[f"{who}_chips_lo"], row[f"{who}_chips_hi"] = s["chips_per_game_ci95"]
                row[f"{who}_win_rate"] = s["win_rate"]
        row["duplicate_blocks"] = point["best_response"]["duplicate_blocks"]
        if "ceiling" in result:
            row["ceiling_chips"] = result["ceiling"]["chips_per_game"]
        for k in ("train_seconds", "train_steps_per_s", "eval_games_per_s"):
            row[k] = result[k]
        out.append(row)
    return out


def write_outputs(result: dict[str, Any], model, out: Path) -> None:
    """``model.zip``, ``results.csv`` (a row per budget), ``results.json``, then
    ``final.json`` (the run is finished), each atomically."""
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(out / "model.zip") as f:
        model.save(f)
    rows = csv_rows(result)
    with atomic_write(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_text(out / "results.json", json.dumps(json_safe(result), indent=1) + "\n")
    others = {
        k[: -len("_in_its_place")]: v for k, v in result.items() if k.endswith("_in_its_place")
    }
    write_final(out, "best_response", result["best_response"], json_safe(others))


def report(result: dict[str, Any]) -> str:
    """The results as a few lines for people."""
    what = "deal" if result["game"] == "card_poker" else "game"
    blocks = result["best_response"]["duplicate_blocks"]
    speed = f"{result['train_steps_per_s']:.0f}" if result["train_steps_per_s"] else "?"
    lines = [
        f"{' '.join([result['game'], *(f'{k}={v}' for k, v in result['rules'].items())])}, "
        f"{result['players']} players, best response "
        f"to {result['against']} (seed {result['seed']}, {result['train_steps']} steps in "
        f"{result['train_seconds']:.0f} s = {speed} steps/s; "
        f"evaluation {blocks} duplicate deals x {result['players']} seats, "
        f"{result['eval_games_per_s']:.0f} {what}s/s)",
    ]
    for point in result["curve"]:
        s = point["best_response"]
        lines.append(
            f"  best response at {point['budget']:>9,} ({point['train_steps']:,} steps)  "
            f"chips/{what} {chips_ci(s)}, win rate {s['win_rate']:.3f}"
        )
    lines.append(f"  random there   chips/{what} {chips_ci(result['random_in_its_place'])}")
    if "optimal_in_its_place" in result:
        lines.append(f"  optimal there  chips/{what} {chips_ci(result['optimal_in_its_place'])}")
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
    ints = {"type": int, "nargs": "+"}  # --budgets and --seeds: one or more integers
    parser.add_argument(
        "--budgets",
        **ints,
        metavar="N",
        help="score the policy at each of these decisions (a curve row each); the run trains "
        "to the largest (default: --steps)",
    )
    parser.add_argument("--eval-games", type=int, help="run.final_eval_episodes")
    parser.add_argument("--n-envs", type=int, help="run.n_envs")
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, help="run.seed")
    seeds.add_argument(
        "--seeds",
        **ints,
        metavar="S",
        help="one run per seed, one after another, then the table across them; with --resume "
        "a seed without a checkpoint starts, a finished one is read",
    )
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


def run_seeds(args, rules: dict) -> list[dict[str, Any]]:
    """The results of every seed of ``--seeds`` (``--seed``: one), each its own run: with
    ``--resume`` a seed with no checkpoint yet starts afresh and a finished one (its
    ``final.json``) is read, not trained again."""
    out = []
    for seed in args.seeds or [args.seed]:
        options = dict(
            steps=args.steps,
            eval_games=args.eval_games,
            n_envs=args.n_envs,
            save=True,
            resume=args.resume,
            run_dir=args.run,
            budgets=args.budgets,
            **rules,
        )
        call = (args.game, args.against, args.players, seed, args.config, args.out)
        if args.resume and args.seeds:
            over = {"seed": seed, "out_dir": args.out}
            table, _, run = load_config(
                args.config, args.game, args.against, args.players, rules, over
            )
            try:
                where, _ = choose_run_dir(run_base(table, run), True, None, "step_*.zip")
            except FileNotFoundError:  # this seed has not started: it starts
                options["resume"] = False
            else:
                if (where / "final.json").is_file():  # finished: read, not trained again
                    out.append({**json.loads((where / "results.json").read_text())})
                    out[-1]["run_dir"] = str(where)
                    continue
        out.append(best_response(*call, not args.no_progress, **options))
        print(report(out[-1]))
        print(f"wrote {out[-1]['run_dir']}/{{{','.join(OUTPUTS)}}}", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any] | list[dict[str, Any]]:
    """The command line; the results (with ``--seeds``: a list, one per seed)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.seeds and args.run is not None and len(args.seeds) > 1:
        parser.error("--run names one run folder: give it with --seed, not several --seeds")
    try:
        table, _, _ = load_config(args.config, args.game, args.against, args.players)
        rules = rule_options(parser, args, games.get(table.game).rule_options)
        found = run_seeds(args, rules)
    except (ConfigError, FileNotFoundError, FileExistsError) as err:
        parser.error(str(err))
    if args.seeds:
        print(exploitability_table(found))
        return found
    return found[0]


def cli(argv: list[str] | None = None) -> None:
    """The command line: a bad option or config is one line and exit status 2."""
    main(argv)


if __name__ == "__main__":
    cli()
