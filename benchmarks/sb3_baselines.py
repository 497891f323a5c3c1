"""The baseline table: every stable-baselines3 and sb3-contrib algorithm for a discrete
action space on every game, scored the same way as every agent of the project.

    python benchmarks/sb3_baselines.py                        # the whole table (hours)
    python benchmarks/sb3_baselines.py --budget 20000 --seeds 1 --only PPO,DQN,yahtzee_classic
    python benchmarks/sb3_baselines.py --budget 1000000 --seeds 3 --out benchmarks/results/b1m.md

Rows: ``PPO``, ``A2C``, ``DQN``, ``QR-DQN``, ``TRPO``, ``RecurrentPPO`` (mask-unaware:
trained and measured with ``illegal_action="terminate"``, so an illegal action ends the
game where it stands), ``MaskablePPO`` and ``MaskableDQN`` (mask-aware: ``action_masks()``,
never an illegal action; ``MaskableDQN`` is SB3's ``DQN`` with masks,
:class:`agents.dqn.MaskableDQN`), side by side. Each trains ``--budget`` steps per seed on
the game's batched engine behind SB3's ``VecEnv`` (:class:`agents.tables.BatchedVecEnv`), with SB3's
default hyperparameters except the number of parallel games and, for the value-based
methods, a replay start and exploration scaled to the budget (``ALGOS``); the scorecard
games train on rewards times 0.01 (the value nets' scale) and are measured in points.

Scored as ``train/ppo.py`` scores its runs, on ``--eval-games`` games of the batched engine
with one evaluation seed, so every agent meets the same deals in the same seats:

- scorecard games (``yahtzee``, ``yahtzee_classic``): the mean final total and its % of
  the exact optimum (``agents.optimal.scorecard.solve(rules).expected_score``, what
  ``train/ppo.py``'s ``pct_optimal`` divides by); beside it the heuristic player in the
  learner's place (``train/ppo.py``'s yardstick), the optimal player and the random one.
- the pokers: chips per game in a random seat against the heuristic opponents
  (``dice_poker``, ``dice_poker6``) or ``quick`` (``card_poker``), beside the heuristic's,
  the optimal player's (dice) and the random player's chips in that same seat.

A game that a mask-unaware model ends with an illegal action counts what it had: the
points filled so far, or the chips with its stake forfeited (``illegal`` is the share of
evaluation games that ended so). Means come with a 95% CI (``agents.arena.mean_interval``)
per run; the table gives the mean over seeds with the spread of the seeds' means. Wall
time is per run (training, then evaluation). Writes a markdown table to ``--out`` and the
same results as JSON beside it (``.json``) after every run, one progress line per run;
``--resume`` continues such a file (the same settings), measuring only the runs it lacks,
so the table can be built over several sittings.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent

import envs  # noqa: E402, F401
from agents import make_agent  # noqa: E402
from agents.arena import mean_interval  # noqa: E402
from agents.atomic import write_text  # noqa: E402
from agents.tables import BatchedVecEnv, play_games  # noqa: E402
from envs import games  # noqa: E402

EVAL_SEED = 10_000_000  # as train/ppo.py's evaluations: apart from every training seed
SCORECARD_SCALE = 0.01  # training reward scale of the scorecard games
OPPONENTS = {"dice_poker": "heuristic", "dice_poker6": "heuristic", "card_poker": "quick"}
GAMES = ("yahtzee", "yahtzee_classic", "dice_poker", "dice_poker6", "card_poker")


@dataclass(frozen=True)
class Algo:
    """One row kind of the table: where the class lives and how it is built."""

    name: str
    module: str  # "stable_baselines3", "sb3_contrib" or "agents.dqn" (MaskableDQN)
    cls: str
    masked: bool = False  # MaskablePPO, MaskableDQN: train and act with the masks
    recurrent: bool = False  # RecurrentPPO: predict carries the LSTM state
    n_envs: int = 16
    policy: str = "MlpPolicy"
    kwargs: dict[str, Any] = field(default_factory=dict)

    def build(self, env, seed: int, budget: int):
        from importlib import import_module

        cls = getattr(import_module(self.module), self.cls)
        kwargs = dict(self.kwargs)
        if "learning_starts" in kwargs:  # value-based: start and explore within the budget
            kwargs["learning_starts"] = min(kwargs["learning_starts"], max(budget // 10, 32))
            kwargs.setdefault("exploration_fraction", 0.2)
        return cls(self.policy, env, seed=seed, device="cpu", verbose=0, **kwargs)


# DQN, QR-DQN and MaskableDQN alike: replay start and buffer (Algo.build scales the start
# and the exploration to the budget)
VALUE_BASED = {"learning_starts": 10_000, "buffer_size": 200_000}

ALGOS = {
    a.name: a
    for a in (
        Algo("PPO", "stable_baselines3", "PPO", kwargs={"n_steps": 128, "batch_size": 256}),
        Algo("A2C", "stable_baselines3", "A2C"),
        Algo(
            "DQN",
            "stable_baselines3",
            "DQN",
            n_envs=4,
            kwargs=VALUE_BASED,
        ),
        Algo(
            "QR-DQN",
            "sb3_contrib",
            "QRDQN",
            n_envs=4,
            kwargs=VALUE_BASED,
        ),
        Algo("TRPO", "sb3_contrib", "TRPO", kwargs={"n_steps": 128, "batch_size": 256}),
        Algo(
            "RecurrentPPO",
            "sb3_contrib",
            "RecurrentPPO",
            policy="MlpLstmPolicy",
            recurrent=True,
            kwargs={"n_steps": 128, "batch_size": 256},
        ),
        Algo(
            "MaskablePPO",
            "sb3_contrib",
            "MaskablePPO",
            masked=True,
            kwargs={"n_steps": 128, "batch_size": 256},
        ),
        Algo(
            "MaskableDQN",
            "agents.dqn",
            "MaskableDQN",
            masked=True,
            n_envs=4,
            kwargs=VALUE_BASED,
        ),
    )
}


def env_options(game: str, training: bool) -> dict[str, Any]:
    """The table options of a game in the table: its opponents, or the reward scale."""
    if game in OPPONENTS:
        return {"opponents": OPPONENTS[game]}
    return {"reward_scale": SCORECARD_SCALE} if training else {}


def gym_id(game: str) -> str:
    return games.get(game).gym_id


# -- scoring ---------------------------------------------------------------------------------


def summary(x: np.ndarray) -> dict[str, float]:
    mean, low, high = mean_interval(x)
    return {"mean": mean, "ci95": (high - low) / 2 if np.isfinite(high) else float("nan")}


def score_model(model, algo: Algo, game: str, n_games: int) -> tuple[np.ndarray, float]:
    """Each game's result (points or chips) of ``model``, acting deterministically, over
    ``n_games`` games side by side; and the share ended by an illegal action.

    One batched env slot per game, its first episode counted: the first game of every
    slot meets the deal of the evaluation seed, as :func:`envs.vector.play_games` deals it.
    The penalty is 0 here, so a game's return is its result.
    """
    mode = "raise" if algo.masked else "terminate"
    vec = BatchedVecEnv(
        gym_id(game),
        n_games,
        seed=EVAL_SEED,
        illegal_action=mode,
        illegal_penalty=0.0,
        **env_options(game, training=False),
    )
    obs = vec.reset()
    result = np.full(n_games, np.nan)
    illegal = np.zeros(n_games, dtype=bool)
    state, starts = None, np.ones(n_games, dtype=bool)
    while np.isnan(result).any():
        kwargs: dict[str, Any] = {"deterministic": True}
        if algo.masked:
            kwargs["action_masks"] = vec.action_masks()
        if algo.recurrent:
            kwargs.update(state=state, episode_start=starts)
        actions, state = model.predict(obs, **kwargs)
        obs, _, dones, infos = vec.step(actions)
        for g in np.flatnonzero(dones & np.isnan(result)):
            result[g] = infos[g]["episode"]["r"]
            illegal[g] = infos[g].get("illegal_action", False)
        starts = dones
    return result, float(illegal.mean())


def score_agent(spec: str, game: str, n_games: int) -> np.ndarray:
    """Each game's result of a project agent (``heuristic``, ``optimal``, ``random``) in
    the learner's place, on the same deals and seats as :func:`score_model`."""
    agent = make_agent(spec, game)
    agent.seed(EVAL_SEED)
    return play_games(
        agent.act_batch, gym_id(game), n_games, EVAL_SEED, **env_options(game, training=False)
    )


def optimum(game: str) -> float | None:
    """The exact optimal mean of a scorecard game (``train/ppo.py``'s ``optimal_score``)."""
    if games.kind_of(game) != "points":
        return None
    from agents.optimal.scorecard import solve

    return float(solve(games.get(game).make_rules()).expected_score)


def references(game: str, n_games: int) -> dict[str, dict[str, float]]:
    """The heuristic, optimal and random players in the learner's place (where written)."""
    out = {}
    for spec in ("heuristic", "optimal", "random"):
        if spec != "random" and spec not in games.get(game).agents:
            continue
        out[spec] = summary(score_agent(spec, game, n_games))
    return out


# -- the table ---------------------------------------------------------------------------------


def run_one(algo: Algo, game: str, seed: int, budget: int, n_eval: int) -> dict[str, Any]:
    """Train ``algo`` on ``game`` for ``budget`` steps with ``seed``; its evaluation."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small MLPs: more threads only contend (and runs stay comparable)
    mode = "raise" if algo.masked else "terminate"
    vec = BatchedVecEnv(
        gym_id(game),
        algo.n_envs,
        seed=seed,
        illegal_action=mode,
        **env_options(game, training=True),
    )
    start = time.perf_counter()
    model = algo.build(vec, seed, budget)
    model.learn(budget)
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    results, illegal = score_model(model, algo, game, n_eval)
    return {
        "algo": algo.name,
        "game": game,
        "seed": seed,
        "budget": budget,
        "steps": int(model.num_timesteps),  # whole rollouts: at least the budget
        "masks": algo.masked,
        "result": summary(results),
        "illegal": illegal,
        "train_s": round(train_s, 2),
        "eval_s": round(time.perf_counter() - start, 2),
    }


def _pick(only: str | None) -> tuple[list[str], list[str]]:
    """``--only`` (comma-separated algorithm and game names) as (algorithms, games)."""
    if not only:
        return list(ALGOS), list(GAMES)
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in ALGOS and w not in GAMES]
    if unknown:
        raise SystemExit(
            f"--only: unknown name(s) {unknown}; algorithms {list(ALGOS)}, games {list(GAMES)}"
        )
    algos = [a for a in ALGOS if a in wanted] or list(ALGOS)
    picked = [g for g in GAMES if g in wanted] or list(GAMES)
    return algos, picked


def _fmt(x: dict[str, float], pct_of: float | None = None, chips: bool = False) -> str:
    mean, ci = x["mean"], x.get("ci95", float("nan"))
    text = f"{mean:+.3f}" if chips else f"{mean:.1f}"
    if np.isfinite(ci):
        text += f" ± {ci:.3f}" if chips else f" ± {ci:.1f}"
    if pct_of:
        text += f" ({100 * mean / pct_of:.1f}%)"
    return text


def table(runs: list[dict], refs: dict[str, dict], optima: dict[str, float | None]) -> str:
    """The markdown table: one row per (game, algorithm), seeds pooled."""
    lines = [
        "| game | algorithm | masks | budget | seeds | result (mean ± sd of seeds) | illegal "
        "| heuristic | optimal | random | train s/run | eval s/run |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for game in dict.fromkeys(r["game"] for r in runs):
        chips = games.kind_of(game) == "chips"
        best = optima.get(game)
        ref = refs.get(game, {})
        cells = {k: _fmt(v, best, chips) for k, v in ref.items()}
        for algo in dict.fromkeys(r["algo"] for r in runs if r["game"] == game):
            rs = [r for r in runs if r["game"] == game and r["algo"] == algo]
            means = np.array([r["result"]["mean"] for r in rs])
            sd = float(means.std(ddof=1)) if len(means) > 1 else float("nan")
            result = _fmt({"mean": float(means.mean()), "ci95": sd}, best, chips)
            lines.append(
                "| "
                + " | ".join(
                    [
                        game,
                        algo,
                        "aware" if rs[0]["masks"] else "unaware",
                        f"{rs[0]['budget']:,}",
                        str(len(rs)),
                        result,
                        f"{np.mean([r['illegal'] for r in rs]):.1%}",
                        cells.get("heuristic", "—"),
                        cells.get("optimal", "—"),
                        cells.get("random", "—"),
                        f"{np.mean([r['train_s'] for r in rs]):.1f}",
                        f"{np.mean([r['eval_s'] for r in rs]):.1f}",
                    ]
                )
                + " |"
            )
    notes = [
        "",
        "Scorecard games: mean final total in points (% of the exact optimum "
        + ", ".join(f"{g} {v:.2f}" for g, v in optima.items() if v)
        + "). Pokers: chips per game in a random seat (dice: heuristic opponents; card: "
        "quick). Heuristic, optimal and random: that player in the learner's place on the "
        "same evaluation deals (mean ± 95% CI). Illegal: evaluation games a mask-unaware "
        "model ended with an illegal action (scored as they stood).",
    ]
    return "\n".join(lines + notes) + "\n"


def _resumed(args, out_json: Path) -> dict[str, Any]:
    """The results already in ``--out``'s JSON (``--resume``), checked against this
    command's settings; a fresh record when there is none."""
    settings = {"budget": args.budget, "eval_games": args.eval_games, "eval_seed": EVAL_SEED}
    if not out_json.exists():
        return {**settings, "optimal": {}, "references": {}, "runs": []}
    done = json.loads(out_json.read_text())
    differ = {k: (done.get(k), v) for k, v in settings.items() if done.get(k) != v}
    if differ:
        raise SystemExit(
            f"--resume: {out_json} was measured with "
            + ", ".join(f"{k}={a} (this command: {b})" for k, (a, b) in differ.items())
            + "; rerun with the same settings or give another --out"
        )
    return done


def _save(record: dict[str, Any], out: Path) -> None:
    """The markdown table and its JSON, each written whole (a kill leaves the last pair)."""
    write_text(out.with_suffix(".json"), json.dumps(record, indent=1))
    write_text(out, table(record["runs"], record["references"], record["optimal"]))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=200_000, help="env steps per run")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per algorithm and game")
    parser.add_argument("--eval-games", type=int, default=2_000, help="games per evaluation")
    parser.add_argument("--only", default=None, help="comma-separated algorithms and games")
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "benchmarks" / "results" / "sb3_baselines.md",
        help="markdown table path (the JSON goes beside it, .json)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs already in --out's JSON and measure only the missing ones",
    )
    args = parser.parse_args(argv)
    for key in ("budget", "seeds", "eval_games"):
        if getattr(args, key) < (2 if key == "eval_games" else 1):
            parser.error(f"--{key.replace('_', '-')} must be a positive whole number")
    algos, picked = _pick(args.only)
    if args.out.exists() and args.out.is_dir():
        parser.error(f"--out {args.out} is a folder; give a file path (.md)")
    out_json = args.out.with_suffix(".json")
    if not args.resume and (args.out.exists() or out_json.exists()):
        parser.error(f"--out {args.out} exists; pass --resume to continue it, or another --out")
    args.out.parent.mkdir(parents=True, exist_ok=True)

    record = _resumed(args, out_json)
    record["command"] = " ".join(["python", "benchmarks/sb3_baselines.py", *(argv or sys.argv[1:])])
    for game in picked:
        if game in record["references"]:
            continue
        start = time.perf_counter()
        record["optimal"][game] = optimum(game)
        record["references"][game] = refs = references(game, args.eval_games)
        print(
            f"{game}: references "
            + ", ".join(f"{k} {v['mean']:.3f}" for k, v in refs.items())
            + f" ({time.perf_counter() - start:.1f}s)",
            flush=True,
        )
        _save(record, args.out)
    done = {(r["algo"], r["game"], r["seed"]) for r in record["runs"]}
    todo = [
        (game, name, seed)
        for game in picked
        for name in algos
        for seed in range(args.seeds)
        if (name, game, seed) not in done
    ]
    if done:
        print(f"--resume: {len(done)} runs kept from {out_json}, {len(todo)} to measure")
    for k, (game, name, seed) in enumerate(todo, 1):
        run = run_one(ALGOS[name], game, seed, args.budget, args.eval_games)
        record["runs"].append(run)
        _save(record, args.out)  # after every run: a kill loses at most the run in hand
        best = record["optimal"][game]
        pct = f" = {100 * run['result']['mean'] / best:.1f}%" if best else ""
        print(
            f"[{k}/{len(todo)}] {game} {name} seed {seed}: "
            f"{run['result']['mean']:.3f} ± {run['result']['ci95']:.3f}{pct}, "
            f"illegal {run['illegal']:.1%}, train {run['train_s']:.1f}s "
            f"({run['steps'] / max(run['train_s'], 1e-9):,.0f} steps/s), "
            f"eval {run['eval_s']:.1f}s",
            flush=True,
        )
    _save(record, args.out)
    print(f"wrote {args.out} and {out_json}")
    return record


if __name__ == "__main__":
    main()
