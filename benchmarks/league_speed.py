"""League tables end to end: MaskablePPO learner steps/s against each kind of member, and
where the time goes (rollout env, opponents, learner forward, update).

    python benchmarks/league_speed.py                     # card_poker_league, its n_envs
    python benchmarks/league_speed.py --rounds 7 --n-envs 512

Builds the league's vectorised tables (``train.common.league.LeagueVecEnv``) and model exactly as
``train/league.py`` does, with the population fixed to one table kind:

- ``2 careful``, ``2 bluffer``: one fixed member, in both opponent seats;
- ``2 snapshots``: six PPO snapshots of the learner (the league's ``pool_size``), each
  table drawing one per deal, both seats playing it;
- ``mix``: the league's steady state, random, careful, bluffer, quick and six snapshots,
  drawn evenly.

Each kind is timed twice in the same run, round by round in turn so a busy machine slows
all alike: ``before``, every member's ``act_batch`` by itself per seat (the league's
dispatch before ``agents.members``; ``Members(stack=False)``), and ``after``, the league's
dispatch now (``agents.members.Members``: the snapshots of a step in one forward per seat).
A round is one rollout (``n_steps`` x ``n_envs`` learner steps) and one update; the
rollout is split into the engine (``env``: moves, observations, masks, resets), the
opponents' decisions (``opponents``) and the rest (``learner``: its forward pass,
VecNormalize, the rollout buffer). Figures are medians over ``--rounds`` rounds (the
first, warming up, is not counted); end to end is steps / (rollout + update), training
without the league's evaluations.

Measured (``--rounds 3``, 128 tables, load 12-16 on 2 cores shared with five other jobs:
the absolute figures are a fifth of a quiet machine's; at load 1-2.5 the same tables ran
600-840 steps/s): learner steps/s end to end, before -> after

    2 careful    168 -> 146 (0.87x)  same code both sides: the noise of the run
    2 bluffer    115 -> 118 (1.03x)  same code both sides
    2 snapshots  154 -> 200 (1.29x)  opponents 44% -> 35% of the time
    mix          198 -> 288 (1.46x)  opponents 56% -> 49%

The update (4 epochs over 4,096 steps, batches of 1,024, 128x128 networks) takes about a
fifth of the time whatever the table, so it alone caps a run at about five times the end
to end figure (about 3,100 steps/s at load 2.5): 5,000 learner steps/s is out of reach at
these settings however fast the opponents decide.

The snapshots are the league run's committed ones (``runs/card_poker__card_poker_league__1
/snapshots``), loaded several times over where the pool needs more.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent

SNAPSHOTS = ROOT / "runs" / "card_poker__card_poker_league__1" / "snapshots"
FIXED = ["random", "careful", "bluffer", "quick"]


def kinds(pool: int) -> dict[str, tuple[list[str], int]]:
    """Table kind -> (fixed members, snapshots)."""
    return {
        "2 careful": (["careful"], 0),
        "2 bluffer": (["bluffer"], 0),
        "2 snapshots": ([], pool),
        "mix": (FIXED, pool),
    }


class _Timer:
    """One league model and its tables, timed a rollout and an update at a time."""

    def __init__(self, cfg, fixed: list[str], snaps: int, batched: bool) -> None:
        import copy

        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.utils import configure_logger
        from stable_baselines3.common.vec_env import VecNormalize

        from agents.members import Members
        from train.common import league
        from train.common.sb3 import ppo_arguments

        class _Nothing(BaseCallback):
            def _on_step(self) -> bool:
                return True

        cfg = copy.copy(cfg)
        cfg.league = copy.copy(cfg.league)
        cfg.league.fixed, cfg.league.pool_size = list(fixed), max(snaps, 1)
        pop = league.Population(cfg)
        zips = sorted(SNAPSHOTS.glob("snap_*.zip"))
        for i in range(snaps):
            pop.add_snapshot(zips[i % len(zips)], i)
        self.tables_vec = league.LeagueVecEnv(cfg, pop, cfg.run.seed)
        self.tables = self.tables_vec.engine
        if not batched:
            self.tables.members = Members(stack=False)
        vec = VecNormalize(self.tables_vec, norm_obs=True, norm_reward=False)
        self.model = MaskablePPO(
            env=vec, seed=cfg.run.seed, device="cpu", verbose=0, **ppo_arguments(cfg.ppo)
        )
        self.model.set_logger(configure_logger(0, None, "", False))
        self.model._setup_learn(self.model.n_steps * vec.num_envs, None)
        self.callback = _Nothing()
        self.callback.init_callback(self.model)
        self.steps = self.model.n_steps * vec.num_envs
        self.clock = {"env": 0.0, "opponents": 0.0}
        _time(self.tables_vec, "step_wait", self.clock, "env")
        _time(self.tables, "act_seat", self.clock, "opponents")

    def round(self) -> dict[str, float]:
        m = self.model
        self.clock.update(env=0.0, opponents=0.0)
        start = time.perf_counter()
        m.collect_rollouts(m.env, self.callback, m.rollout_buffer, n_rollout_steps=m.n_steps)
        mid = time.perf_counter()
        m.train()
        end = time.perf_counter()
        rollout, env, opp = mid - start, self.clock["env"], self.clock["opponents"]
        return {
            "env": env - opp,
            "opponents": opp,
            "learner": rollout - env,
            "update": end - mid,
            "total": end - start,
        }


def _time(obj, name: str, clock: dict, key: str) -> None:
    inner = getattr(obj, name)

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            clock[key] += time.perf_counter() - t

    setattr(obj, name, timed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="card_poker_league", help="a league config")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per table kind")
    parser.add_argument("--n-envs", type=int, default=None, help="tables (the config's)")
    parser.add_argument("--only", nargs="*", default=None, help="table kinds to time")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    from benchmarks.timing import time_rounds
    from train.common import league
    from train.common.sb3 import setup_torch

    overrides = {"n_envs": args.n_envs} if args.n_envs else {}
    cfg = league.load_config(args.config, overrides)
    setup_torch(cfg.run.torch_threads)
    table_kinds = kinds(cfg.league.pool_size)
    chosen = args.only or list(table_kinds)
    timers = {
        (kind, when): _Timer(cfg, *table_kinds[kind], batched=when == "after")
        for kind in chosen
        for when in ("before", "after")
    }
    times = time_rounds(timers, args.rounds)
    steps = next(iter(timers.values())).steps
    print(
        f"{cfg.name}: {steps:,} learner steps per round ({cfg.run.n_envs} tables x n_steps), "
        f"torch threads {cfg.run.torch_threads}, medians of {args.rounds} rounds"
    )
    print(
        "| table | dispatch | end to end steps/s | after/before | env | opponents | "
        "learner | update |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for kind in chosen:
        rate = {}
        for when in ("before", "after"):
            rows = times[(kind, when)]
            rate[when] = float(np.median([steps / x["total"] for x in rows]))
            share = {
                part: float(np.median([x[part] / x["total"] for x in rows]))
                for part in ("env", "opponents", "learner", "update")
            }
            ratio = f"{rate['after'] / rate['before']:.2f}x" if when == "after" else ""
            parts = " | ".join(f"{100 * share[p]:.0f}%" for p in share)
            print(f"| {kind} | {when} | {rate[when]:,.0f} | {ratio} | {parts} |")


if __name__ == "__main__":
    main()
