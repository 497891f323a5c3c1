"""The baseline table: every stable-baselines3 and sb3-contrib algorithm for a discrete
action space on every game, scored the same way as every agent of the project.

    python benchmarks/sb3_baselines.py             # 8 rows x 5 games, 3 seeds (RecurrentPPO 1)
    python benchmarks/sb3_baselines.py --resume    # continue it after a kill or a Ctrl-C
    python benchmarks/sb3_baselines.py --estimate 32768 --only yahtzee_classic,dice_poker
    python benchmarks/sb3_baselines.py --budget 20000 --seeds 1 --only PPO,DQN,yahtzee_classic

Rows: ``PPO``, ``A2C``, ``DQN``, ``QR-DQN``, ``TRPO``, ``RecurrentPPO`` (mask-unaware:
trained with ``illegal_action="penalize"``, an illegal action ignored at -1 point or chip
(``--unaware-penalty``), 100 in a row ending the episode, :data:`UNAWARE_TRAINING`;
``--unaware-training terminate`` trains them with ``"terminate"``, better on four games and
a trap on the russian scorecard game: docs/sb3.md), ``MaskablePPO`` and ``MaskableDQN``
(mask-aware: ``action_masks()``, never an illegal action; ``MaskableDQN`` is SB3's ``DQN``
with masks, :class:`agents.dqn.MaskableDQN`), side by side. Each row trains its own budget of env
steps per seed (``Algo.budget``; ``--budget`` gives every row one budget) on the game's
batched engine behind SB3's ``VecEnv`` (:class:`agents.tables.BatchedVecEnv`), with SB3's
default hyperparameters except these (``ALGOS``; the table's header prints each row's):

- on-policy (PPO, MaskablePPO, TRPO, RecurrentPPO): 256 games side by side and
  ``n_steps=64``, so a rollout is 16,384 steps (SB3's default: 2,048 steps of one env),
  and ``batch_size=4096`` (SB3's 64 would make each epoch of such a rollout 256 small
  gradient steps; PPO's 10 epochs stay). A2C: the same 256 games and its own 5-step
  rollouts (1,280 steps, one gradient step each: 16k-step rollouts would leave it a few
  dozen updates in a budget).
- value-based (DQN, QR-DQN, MaskableDQN): 64 games per step and ``train_freq=1,
  gradient_steps=1, batch_size=512``, one gradient step of 512 after every 64
  transitions: SB3's replay ratio (32 samples per 4 transitions) at a sixteenth of its
  Python calls per transition. ``buffer_size`` is the budget (SB3's 1M holds a budget
  of at most 1M whole too). QR-DQN: 25 quantiles (with SB3's 200 its step costs over 50x
  DQN's) and exploration over 10% of its run as DQN's (its default 0.5% is tuned for
  10M-step Atari runs).
- the budgets (``ALGOS``, the table prints them): about a minute of one core per run for
  every row, so that the whole table is about two hours of one core (``--estimate``
  predicts it from a short probe of each row). RecurrentPPO runs one seed (``max_seeds``),
  on the scorecard games and dice poker (``games``: on the pokers it trains at a fiftieth
  of PPO's speed).
  PPO and MaskablePPO, DQN and MaskableDQN
  share theirs: masks against no masks at equal steps.
- the scorecard games train on rewards times 0.01 (the value nets' scale) and are
  measured in points.

Scored as ``train/ppo.py`` scores its runs, on ``--eval-games`` games of the batched engine
with one evaluation seed, so every agent meets the same deals in the same seats:

- scorecard games (``yahtzee``, ``yahtzee_classic``): the mean final total and its % of
  the exact optimum (``agents.optimal.scorecard.solve(rules).expected_score``, what
  ``train/ppo.py``'s ``pct_optimal`` divides by); beside it the heuristic player in the
  learner's place (``train/ppo.py``'s yardstick), the optimal player and the random one.
- the pokers: chips per game in a random seat against the heuristic opponents
  (``dice_poker``, ``dice_poker6``) or ``quick`` (``card_poker``), beside the heuristic's,
  the optimal player's (dice) and the random player's chips in that same seat.

Each model is scored twice on the same games: acting deterministically (SB3's evaluation
default; the table's result), where a mask-unaware model's first illegal action ends its
game (``"terminate"``) and the game counts what it had, the points filled so far or the
chips with its stake forfeited (``illegal`` is the share of games that ended so); and
sampling its policy (``sampled``), a mask-unaware model's illegal actions ignored so that
it samples again (``"penalize"``, penalty 0). Means come with a 95% CI
(``agents.arena.mean_interval``) per run; the table gives the mean over seeds with the
spread of the seeds' means. Wall time is per run (training, with its CPU seconds in the
JSON, then evaluation). Writes a markdown table to ``--out`` and the same results as JSON
beside it (``.json``) after every run, one progress line per run; ``--resume`` continues
such a file (the same settings), measuring only the runs it lacks, so the table can be
built over several sittings and comes out as it would in one (the runs are seeded: only
the wall times differ).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections import Counter
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
from envs.games import ILLEGAL_OPTIONS  # noqa: E402

EVAL_SEED = 10_000_000  # as train/ppo.py's evaluations: apart from every training seed
SCORECARD_SCALE = 0.01  # training reward scale of the scorecard games
OPPONENTS = {"dice_poker": "heuristic", "dice_poker6": "heuristic", "card_poker": "quick"}
GAMES = ("yahtzee", "yahtzee_classic", "dice_poker", "dice_poker6", "card_poker")


@dataclass(frozen=True)
class Algo:
    """One row kind of the table: where the class lives, how it is built, its budget.

    ``n_envs`` games play side by side on one batched engine; ``kwargs`` are exactly the
    constructor arguments that differ from SB3's defaults (the table's header prints them).
    """

    name: str
    module: str  # "stable_baselines3", "sb3_contrib" or "agents.dqn" (MaskableDQN)
    cls: str
    budget: int  # env steps per run
    n_envs: int
    masked: bool = False  # MaskablePPO, MaskableDQN: train and act with the masks
    recurrent: bool = False  # RecurrentPPO: predict carries the LSTM state
    value_based: bool = False  # DQN, QR-DQN, MaskableDQN: a replay buffer
    policy: str = "MlpPolicy"
    kwargs: dict[str, Any] = field(default_factory=dict)
    max_seeds: int | None = None  # at most this many of ``--seeds`` (None: all of them)
    games: tuple[str, ...] | None = None  # the games it runs on (None: every game)

    def seeds(self, wanted: int) -> int:
        """How many of ``wanted`` seeds this row runs."""
        return wanted if self.max_seeds is None else min(wanted, self.max_seeds)

    def runs_on(self, game: str) -> bool:
        return self.games is None or game in self.games

    def resolved(self, budget: int | None = None) -> dict[str, Any]:
        """The settings of a run of ``budget`` steps (the row's own by default): its
        budget, games in parallel and the constructor arguments that differ from SB3's."""
        budget = self.budget if budget is None else budget
        kwargs = copy.deepcopy(self.kwargs)  # SB3 adds to a policy_kwargs it is given
        if self.value_based:
            # SB3's default buffer (1M) never fills within a budget of at most 1M; holding
            # just the budget behaves the same and allocates less
            kwargs["buffer_size"] = min(budget, 1_000_000)
        return {"budget": budget, "n_envs": self.n_envs, "kwargs": kwargs}

    def build(self, env, seed: int, budget: int):
        from importlib import import_module

        cls = getattr(import_module(self.module), self.cls)
        kwargs = self.resolved(budget)["kwargs"]
        return cls(self.policy, env, seed=seed, device="cpu", verbose=0, **kwargs)


# On-policy rows: 256 games side by side, 64 steps each, so a rollout is 16,384 steps (SB3's
# default is 2,048 steps of one env); minibatches of 4,096 (SB3's 64 would be 256 gradient
# steps per epoch of such a rollout; at 4,096, 4). A2C keeps its 5-step rollouts (1,280
# steps, one gradient step each: 16k-step rollouts would leave a budget a few dozen updates).
GAMES_ON_POLICY = 256
ON_POLICY = {"n_steps": 64, "batch_size": 4096}
# Value-based rows: 64 games per step and one gradient step of 512 transitions after each
# (SB3's default: one of 32 every 4 steps of one env): SB3's 8 replayed samples per
# transition at a sixteenth of its Python calls per transition.
GAMES_VALUE_BASED = 64
VALUE_BASED = {"train_freq": 1, "gradient_steps": 1, "batch_size": 512}

# The budgets (env steps per run) give each row about a minute of one core per run, so the
# whole table is about two hours (``--estimate``): 20 rollouts for PPO, MaskablePPO and TRPO
# (SB3's 10 epochs, or 10 critic updates, over every rollout are most of their cost), 4 for
# RecurrentPPO (a step costs it over 10x PPO's: neither LSTMs of 64 units nor one minibatch
# per epoch made it cheaper; and one seed, since with three it alone would be half the
# table: the scorecard and dice games show the whole state, so memory has nothing to add
# there, and card poker's summary of the bidding (bids and chips per player) is the one
# place an LSTM could remember more), a million steps for A2C (one gradient step per
# rollout), 250k for DQN and MaskableDQN, 100k for QR-DQN (a head of n_actions x n_quantiles
# outputs). The rows of a family share their budget: masks against no masks is a comparison
# at equal steps.
ROLLOUTS_20 = 20 * GAMES_ON_POLICY * ON_POLICY["n_steps"]  # 327,680

ALGOS = {
    a.name: a
    for a in (
        Algo("PPO", "stable_baselines3", "PPO", ROLLOUTS_20, GAMES_ON_POLICY, kwargs=ON_POLICY),
        Algo("A2C", "stable_baselines3", "A2C", 1_000_000, GAMES_ON_POLICY),
        Algo(
            "DQN",
            "stable_baselines3",
            "DQN",
            250_000,
            GAMES_VALUE_BASED,
            value_based=True,
            kwargs=VALUE_BASED,
        ),
        Algo(
            "QR-DQN",
            "sb3_contrib",
            "QRDQN",
            100_000,
            GAMES_VALUE_BASED,
            value_based=True,
            # QR-DQN's default explores over 0.5% of the run (tuned for 10M-step Atari runs):
            # DQN's 10%, so the value-based rows explore alike. Its head has n_actions x
            # n_quantiles outputs and its loss compares every pair of quantiles: with SB3's
            # 200 a step of 64 games and 512 samples costs over 50x DQN's, with 25 (within
            # the QR-DQN paper's 10-200) about 4x
            kwargs={
                **VALUE_BASED,
                "exploration_fraction": 0.1,
                "policy_kwargs": {"n_quantiles": 25},
            },
        ),
        Algo("TRPO", "sb3_contrib", "TRPO", ROLLOUTS_20, GAMES_ON_POLICY, kwargs=ON_POLICY),
        Algo(
            "RecurrentPPO",
            "sb3_contrib",
            "RecurrentPPO",
            ROLLOUTS_20 // 5,
            GAMES_ON_POLICY,
            policy="MlpLstmPolicy",
            recurrent=True,
            kwargs=ON_POLICY,
            max_seeds=1,
            # on dice poker it trained at 49 steps/s (22 min for its 65,536 steps: a
            # poker game is a few steps, so a rollout is thousands of short sequences),
            # where PPO trains at 2,700: run on the scorecard games and dice poker only
            games=("yahtzee", "yahtzee_classic", "dice_poker"),
        ),
        Algo(
            "MaskablePPO",
            "sb3_contrib",
            "MaskablePPO",
            ROLLOUTS_20,
            GAMES_ON_POLICY,
            masked=True,
            kwargs=ON_POLICY,
        ),
        Algo(
            "MaskableDQN",
            "agents.dqn",
            "MaskableDQN",
            250_000,
            GAMES_VALUE_BASED,
            masked=True,
            value_based=True,
            kwargs=VALUE_BASED,
        ),
    )
}


# How mask-unaware rows train by default: an illegal action is ignored and costs
# ``illegal_penalty`` (the default, -1 point or chip), 100 in a row end the episode. With
# ``"terminate"`` they learn to end the russian scorecard game at once (docs/sb3.md, "Which
# mode to train with").
UNAWARE_TRAINING = "penalize"
UNAWARE_PENALTY = ILLEGAL_OPTIONS["illegal_penalty"]  # --unaware-penalty: in points or chips


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


def score_model(
    model, algo: Algo, game: str, n_games: int, deterministic: bool = True
) -> tuple[np.ndarray, float]:
    """Each game's result (points or chips) of ``model`` over ``n_games`` games side by
    side, and the share ended by an illegal action: acting ``deterministically`` (SB3's
    ``predict`` default for evaluation; a mask-unaware model's first illegal action ends
    its game, ``"terminate"``), or sampling its policy (a mask-unaware model's illegal
    action is ignored and it samples again, ``"penalize"``, so the share is of games cut
    short by the illegal-step limit).

    One batched env slot per game, its first episode counted: the first game of every
    slot meets the deal of the evaluation seed, as :func:`envs.vector.play_games` deals it.
    The penalty is 0 here, so a game's return is its result.
    """
    mode = "raise" if algo.masked else "terminate" if deterministic else "penalize"
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
        kwargs: dict[str, Any] = {"deterministic": deterministic}
        if algo.masked:
            kwargs["action_masks"] = vec.action_masks()
        if algo.recurrent:
            kwargs.update(state=state, episode_start=starts)
        actions, state = model.predict(obs, **kwargs)
        obs, _, dones, infos = vec.step(actions)
        for g in np.flatnonzero(dones & np.isnan(result)):
            result[g] = infos[g]["episode"]["r"]
            illegal[g] = infos[g].get("illegal_action", False)  # on the game's last step
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


def run_one(
    algo: Algo,
    game: str,
    seed: int,
    budget: int,
    n_eval: int,
    penalty: float = UNAWARE_PENALTY,
    training: str = UNAWARE_TRAINING,
) -> dict[str, Any]:
    """Train ``algo`` on ``game`` for ``budget`` steps with ``seed`` (a mask-unaware one
    with ``illegal_action=training``, paying ``penalty`` per illegal action); its
    evaluation."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small MLPs: more threads only contend (and runs stay comparable)
    mode = "raise" if algo.masked else training
    vec = BatchedVecEnv(
        gym_id(game),
        algo.n_envs,
        seed=seed,
        illegal_action=mode,
        **({} if algo.masked else {"illegal_penalty": penalty}),
        **env_options(game, training=True),
    )
    start, cpu = time.perf_counter(), time.process_time()
    model = algo.build(vec, seed, budget)
    model.learn(budget)
    train_s, train_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    results, illegal = score_model(model, algo, game, n_eval)
    sampled, _ = score_model(model, algo, game, n_eval, deterministic=False)
    return {
        "algo": algo.name,
        "game": game,
        "seed": seed,
        "budget": budget,
        "steps": int(model.num_timesteps),  # whole rollouts: at least the budget
        "masks": algo.masked,
        "result": summary(results),
        "illegal": illegal,
        "sampled": summary(sampled),
        "train_s": round(train_s, 2),
        "train_cpu_s": round(train_cpu_s, 2),  # this process's CPU time: the load's share out
        "eval_s": round(time.perf_counter() - start, 2),
    }


def estimate(
    algos: list[str], picked: list[str], probe: int, seeds: int, n_eval: int, budget: int | None
) -> dict[str, float]:
    """Train every (algorithm, game) ``probe`` steps, print each row's steps/s and its
    predicted time per run at its budget (training at the probe's rate, then the
    evaluation as measured), and return the predicted seconds of the whole table: ``wall``
    at this machine's present load, ``cpu`` this process's CPU seconds (the wall time
    where it has a core to itself)."""
    from importlib import import_module

    for name in algos:  # imported before any probe: a first import is no row's cost
        import_module(ALGOS[name].module)
    total = {"wall": 0.0, "cpu": 0.0}
    print(f"probe: {probe:,} steps per (algorithm, game), seed 0; {seeds} seeds in the table")
    for game in picked:
        start, cpu = time.perf_counter(), time.process_time()
        references(game, n_eval)  # once per game in the table; the optimum's solve included
        refs = {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu}
        for k in total:
            total[k] += refs[k]
        print(f"{game}: references {refs['wall']:.1f}s ({refs['cpu']:.1f} CPU s)", flush=True)
        for name in algos:
            algo = ALGOS[name]
            steps = algo.budget if budget is None else budget
            cpu = time.process_time()
            run = run_one(algo, game, 0, probe, n_eval)
            eval_cpu = time.process_time() - cpu - run["train_cpu_s"]
            rate = {k: run["steps"] / max(run[t], 1e-9) for k, t in
                    (("wall", "train_s"), ("cpu", "train_cpu_s"))}  # fmt: skip
            per_run = {
                "wall": steps / rate["wall"] + run["eval_s"],
                "cpu": steps / rate["cpu"] + eval_cpu,
            }
            n = algo.seeds(seeds) if algo.runs_on(game) else 0
            for k in total:
                total[k] += n * per_run[k]
            print(
                f"  {name:>12}: {rate['wall']:7,.0f} steps/s ({rate['cpu']:7,.0f} per CPU s) "
                f"over {run['steps']:,} steps; {steps:,} steps + eval = "
                f"{per_run['wall'] / 60:5.1f} min per run ({per_run['cpu'] / 60:5.1f} CPU min), "
                f"x{n} = {n * per_run['wall'] / 60:5.1f} min",
                flush=True,
            )
    print(
        f"predicted table: {total['wall'] / 3600:.2f} h at this load, "
        f"{total['cpu'] / 3600:.2f} h of one free core (CPU time)"
    )
    return total


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


def header(record: dict[str, Any]) -> list[str]:
    """What the table measured: its command, and each algorithm's budget and the settings
    that differ from SB3's defaults (why: :data:`ON_POLICY`, :data:`VALUE_BASED`)."""
    lines = [f"`{record['command']}`", ""] if record.get("command") else []
    per_row = Counter((r["game"], r["algo"]) for r in record["runs"])
    if per_row:
        seeds = sorted(set(per_row.values()))
        count = str(seeds[0]) if len(seeds) == 1 else f"{seeds[0]} to {seeds[-1]}"
        plural = "s" if seeds[-1] > 1 else ""
        lines += [f"{len(per_row)} rows measured, {count} seed{plural} each.", ""]
    lines += [
        "SB3's default hyperparameters except these (on-policy: 16,384-step rollouts over "
        "many games of the batched engine and large minibatches; value-based: one gradient "
        "step of 512 after every step of 64 games, SB3's replay ratio at a sixteenth of its "
        "calls; budgets of about a minute of one core per run, so that the table is about "
        "two hours; see benchmarks/sb3_baselines.py):",
        "",
        "| algorithm | budget | games in parallel | not SB3's default |",
        "|---|---|---|---|",
    ]
    measured = {r["algo"] for r in record["runs"]}
    for name, st in record["settings"].items():
        if name not in measured:
            continue
        changed = ", ".join(f"{k}={v}" for k, v in st["kwargs"].items()) or "—"
        lines.append(f"| {name} | {st['budget']:,} | {st['n_envs']} | {changed} |")
    return lines + [""]


def unaware_note(record: dict[str, Any]) -> str:
    """How the record's mask-unaware rows trained, in one sentence."""
    mode = record.get("unaware_training", UNAWARE_TRAINING)
    penalty = record.get("unaware_penalty", UNAWARE_PENALTY)
    ends = "100 in a row end the episode" if mode == "penalize" else "it ends the episode"
    return (
        f'Mask-unaware rows train with illegal_action="{mode}" ({penalty:g} per illegal '
        f"action, {ends})."
    )


def table(record: dict[str, Any]) -> str:
    """The markdown table: the settings, then one row per (game, algorithm), seeds pooled."""
    runs, refs, optima = record["runs"], record["references"], record["optimal"]
    lines = header(record) + [
        "| game | algorithm | masks | budget | seeds | result (mean ± sd of seeds) | illegal "
        "| sampled | heuristic | optimal | random | train s/run (CPU s) | eval s/run |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
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
            if all("sampled" in r for r in rs):
                drawn = np.array([r["sampled"]["mean"] for r in rs])
                sd = float(drawn.std(ddof=1)) if len(drawn) > 1 else float("nan")
                sampled = _fmt({"mean": float(drawn.mean()), "ci95": sd}, best, chips)
            else:
                sampled = "—"
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
                        sampled,
                        cells.get("heuristic", "—"),
                        cells.get("optimal", "—"),
                        cells.get("random", "—"),
                        f"{np.mean([r['train_s'] for r in rs]):.1f} "
                        f"({np.mean([r.get('train_cpu_s', np.nan) for r in rs]):.1f})",
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
        "same evaluation deals (mean ± 95% CI). Result: the model acting deterministically "
        "(SB3's evaluation default); illegal: the games a mask-unaware model ended so with an "
        "illegal action (scored as they stood). Sampled: the model sampling its policy on "
        "the same deals, a mask-unaware model's illegal actions ignored (it samples again). "
        + unaware_note(record)
        + " "
        "Train s/run: wall seconds at "
        "the machine's load, this process's CPU seconds in brackets.",
    ]
    return "\n".join(lines + notes) + "\n"


def _resumed(args, out_json: Path, algos: list[str]) -> dict[str, Any]:
    """The results already in ``--out``'s JSON (``--resume``), checked against this
    command's settings (the evaluation, and the settings of every algorithm with runs in
    it that this command runs again); a fresh record when there is none."""
    evaluation = {
        "eval_games": args.eval_games,
        "eval_seed": EVAL_SEED,
        "unaware_training": args.unaware_training,
        "unaware_penalty": args.unaware_penalty,
    }
    settings = {name: ALGOS[name].resolved(args.budget) for name in algos}
    if not out_json.exists():
        return {**evaluation, "settings": settings, "optimal": {}, "references": {}, "runs": []}
    done = json.loads(out_json.read_text())
    done.setdefault("unaware_penalty", UNAWARE_PENALTY)  # a record from before the options
    done.setdefault("unaware_training", UNAWARE_TRAINING)
    differ = [f"{k}={done.get(k)} (this command: {v})" for k, v in evaluation.items()
              if done.get(k) != v]  # fmt: skip
    measured = {r["algo"] for r in done["runs"]}  # an algorithm without runs may change
    for name, now in settings.items():
        before = done["settings"].get(name)
        if name in measured:
            differ += [f"{name} {k}={before[k]} (this command: {v})" for k, v in now.items()
                       if before[k] != v]  # fmt: skip
    if differ:
        raise SystemExit(
            f"--resume: {out_json} was measured with "
            + ", ".join(differ)
            + "; rerun with the same settings or give another --out"
        )
    done["settings"].update(settings)
    return done


def _save(record: dict[str, Any], out: Path) -> None:
    """The markdown table and its JSON, each written whole (a kill leaves the last pair)."""
    write_text(out.with_suffix(".json"), json.dumps(record, indent=1))
    write_text(out, table(record))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        help="env steps of every run (default: each algorithm's own, ALGOS)",
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per algorithm and game")
    parser.add_argument("--eval-games", type=int, default=2_000, help="games per evaluation")
    parser.add_argument("--only", default=None, help="comma-separated algorithms and games")
    parser.add_argument(
        "--unaware-penalty",
        type=float,
        default=UNAWARE_PENALTY,
        help="what a mask-unaware row pays per illegal action while training, in points "
        f"(before reward_scale) or chips (default {UNAWARE_PENALTY:g})",
    )
    parser.add_argument(
        "--unaware-training",
        choices=("penalize", "terminate"),
        default=UNAWARE_TRAINING,
        help="the illegal_action mode mask-unaware rows train with (default "
        f"{UNAWARE_TRAINING}; the evaluation is the same either way)",
    )
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
    parser.add_argument(
        "--estimate",
        type=int,
        default=None,
        metavar="STEPS",
        help="write nothing: probe each algorithm and game STEPS steps and print the "
        "predicted time of the table (e.g. 50000: a few rollouts of each)",
    )
    args = parser.parse_args(argv)
    for key in ("budget", "seeds", "eval_games", "estimate"):
        value = getattr(args, key)
        if value is not None and value < (2 if key == "eval_games" else 1):
            parser.error(f"--{key.replace('_', '-')} {value}: give a positive whole number")
    algos, picked = _pick(args.only)
    if args.estimate:
        return {"predicted_s": estimate(
            algos, picked, args.estimate, args.seeds, args.eval_games, args.budget
        )}  # fmt: skip
    if args.out.exists() and args.out.is_dir():
        parser.error(f"--out {args.out} is a folder; give a file path (.md)")
    out_json = args.out.with_suffix(".json")
    if not args.resume and (args.out.exists() or out_json.exists()):
        parser.error(f"--out {args.out} exists; pass --resume to continue it, or another --out")
    args.out.parent.mkdir(parents=True, exist_ok=True)

    record = _resumed(args, out_json, algos)
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
    # seed by seed, so that a table built over several sittings has every row's first
    # seed before any row's second
    todo = [
        (game, name, seed)
        for seed in range(args.seeds)
        for game in picked
        for name in algos
        if seed < ALGOS[name].seeds(args.seeds)
        and ALGOS[name].runs_on(game)
        and (name, game, seed) not in done
    ]
    if done:
        print(f"--resume: {len(done)} runs kept from {out_json}, {len(todo)} to measure")
    for k, (game, name, seed) in enumerate(todo, 1):
        budget = record["settings"][name]["budget"]
        run = run_one(
            ALGOS[name], game, seed, budget, args.eval_games, args.unaware_penalty,
            args.unaware_training,
        )  # fmt: skip
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
