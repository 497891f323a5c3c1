"""League tables end to end: MaskablePPO learner steps/s against each kind of member, and
where the time goes (rollout env, opponents, learner forward, update).

    python benchmarks/league_speed.py                     # card_poker_league, its n_envs
    python benchmarks/league_speed.py --rounds 7 --n-envs 512
    python benchmarks/league_speed.py --base 259bb2f --only "BR vs careful" mix

Builds the league's vectorised tables (``train.common.league.LeagueVecEnv``) and model exactly as
``train/league.py`` does, with the population fixed to one table kind:

- ``2 careful``, ``2 bluffer``: one fixed member, in both opponent seats;
- ``2 snapshots``: six PPO snapshots of the learner (the league's ``pool_size``), each
  table drawing one per deal, both seats playing it;
- ``careful+bluffer``, ``quick+random``: two fixed members, each table drawing one per deal;
- ``mix``: the league's steady state, random, careful, bluffer, quick and six snapshots,
  drawn evenly;
- ``BR vs league``, ``BR vs careful``: ``train/best_response.py``'s learner and tables
  (``configs/best_response.yaml``, ``--br-config``), the league's committed agent or
  ``careful`` in every other seat; timed once (``agent``: nothing to dispatch).

Each league kind is timed twice in the same run, round by round in turn so a busy machine
slows all alike: ``before``, every member's ``act_batch`` by itself per seat on encoded
observations (the league's dispatch before ``agents.members``: ``Members(stack=False)``,
``LeagueTables.direct = False``), and ``after``, the league's dispatch now (the snapshots
of a step in one forward per seat, ``agents.members.Members``; careful, bluffer and quick
reading their rows off the tables' state, ``LeagueTables.act_tables``).
A round is one rollout (``n_steps`` x ``n_envs`` learner steps) and one update; the
rollout is split into the engine (``env``: moves, observations, masks, resets), the
opponents' decisions (``opponents``) and the rest (``learner``: its forward pass,
VecNormalize, the rollout buffer). Figures are medians over ``--rounds`` rounds (the
first, warming up, is not counted); end to end is steps / (rollout + update), training
without the league's evaluations. ``per CPU second`` is steps over the round's CPU time
of this process (one torch thread): what one quiet core would give, read on a loaded
machine (CPU time still grows somewhat with the load: shared caches and cores).

``--base REV`` measures a change instead: each kind (the league's dispatch now; the best
responses' agent) in a copy of revision ``REV`` and of the working tree, fresh processes
taking turns, ``--repeats`` of each, printing both sides' steps/s and their ratios.

Measured at revision 259bb2f (``--rounds 2``, 128 tables; 64 for the best responses,
their config's; load 10-12 on 2 cores shared with the lead's training and other jobs, this
script at the lowest priority: the absolute figures are a small fraction of a quiet
machine's; compare within the table): learner steps/s end to end, and the shares of the
round

    table            before  after  after/before  env  opponents  learner  update
    2 careful           144    175  1.22x         18%        47%      12%     23%
    2 bluffer           191    237  1.24x         20%        46%      12%     22%
    2 snapshots         193    256  1.33x         22%        43%      12%     22%
    careful+bluffer     202    207  1.02x         19%        51%      10%     19%
    quick+random        371    376  1.01x         22%        29%      16%     33%
    mix                 190    228  1.20x         16%        57%       8%     18%
    BR vs league          -    228                48%        23%      10%     20%
    BR vs careful         -    242                25%        41%      10%     23%

(two rounds a row, so differences of 20% between rows are within the noise).

Against 259bb2f, side by side (fresh processes taking turns, 2 x 2 rounds a side, load
7.5-9.2): ``BR vs careful`` 424 -> 444 learner steps/s end to end (1.05x) and 2,184 ->
2,439 per CPU second (1.12x), with ``careful``'s bet read off a per-strength table and its
draw valued column by column; the engine's own share (its hands sorted by ``np.sort``,
valued in one gather, its masks computed once per move) came after that measurement. The
engine alone (64 tables of 3, random legal learner actions, no learner, CPU time per
learner step, medians of 3 processes a side taking turns, load 11-14; before the single
gather): with ``random`` opponents 140 -> 127 us (1.10x), with ``careful`` 292 -> 280 us
(1.04x), the same trajectories (hashes equal); with the single gather (one process a
side, 3 runs each, load 8.5-12.6): ``random`` 173 -> 129 us (1.34x), ``careful`` 459 ->
339 us (1.36x), hashes equal. Per CPU second is the figure a quiet core
would give, about 2,200-2,400 learner steps/s for a best response against ``careful``: far
from 5,000, and not reachable by cutting the engine. A round of 4,096 learner steps
spends, in CPU time (load 11, cProfile-free clocks around each part): ``careful``'s
decisions 33% (of which its Monte Carlo draw, 64 samples x 32 exchanges per decision,
26%), the PPO update (4 epochs over 4,096 steps, batches of 1,024, 128x128 networks) 26%,
the engine's moves 15%, and the rest the learner's forward pass, the rollout buffer and
the vector env. The draw and the update together (504 + 452 ms of CPU a round in a run at
load 9) cap a quiet core at about 4,300 learner steps/s even with a free engine; 5,000
needs fewer draw samples (other choices: a new agent) or a cheaper update (a config
change, checked on mini card poker with ``benchmarks/mini_br_curve.py`` first).

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
LEAGUE_AGENT = ROOT / "runs" / "card_poker__card_poker_league__1" / "model.zip"


def kinds(pool: int) -> dict[str, tuple[list[str], int]]:
    """Table kind -> (fixed members, snapshots)."""
    return {
        "2 careful": (["careful"], 0),
        "2 bluffer": (["bluffer"], 0),
        "2 snapshots": ([], pool),
        "careful+bluffer": (["careful", "bluffer"], 0),
        "quick+random": (["quick", "random"], 0),
        "mix": (FIXED, pool),
    }


def best_responses() -> dict[str, str]:
    """Best-response table kind -> the frozen agent's spec in every other seat."""
    return {"BR vs league": f"ppo:{LEAGUE_AGENT}", "BR vs careful": "careful"}


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
            self.tables.direct = False
        vec = VecNormalize(self.tables_vec, norm_obs=True, norm_reward=False)
        self.model = MaskablePPO(
            env=vec, seed=cfg.run.seed, device="cpu", verbose=0, **ppo_arguments(cfg.ppo)
        )
        self.model.set_logger(configure_logger(0, None, "", False))
        self.model._setup_learn(self.model.n_steps * vec.num_envs, None)
        self.callback = _Nothing()
        self.callback.init_callback(self.model)
        self.steps = self.model.n_steps * vec.num_envs
        self.clock = _Clock()
        _time(self.tables_vec, "step_wait", self.clock, "env")
        _time(self.tables, "act_seat", self.clock, "opponents")
        _time(self.tables, "act_tables", self.clock, "opponents")

    def round(self) -> dict[str, float]:
        m = self.model
        self.clock.clear()
        start, cpu0 = time.perf_counter(), time.process_time()
        m.collect_rollouts(m.env, self.callback, m.rollout_buffer, n_rollout_steps=m.n_steps)
        mid = time.perf_counter()
        m.train()
        end, cpu1 = time.perf_counter(), time.process_time()
        rollout, env, opp = mid - start, self.clock["env"], self.clock["opponents"]
        return {
            "env": env - opp,
            "opponents": opp,
            "learner": rollout - env,
            "update": end - mid,
            "total": end - start,
            "cpu": cpu1 - cpu0,  # this process's CPU seconds (one torch thread)
        }


class _BestResponseTimer(_Timer):
    """``train/best_response.py``'s learner and tables (its config's ``ppo:`` and
    ``run:``), the frozen agent ``against`` in every other seat, timed as :class:`_Timer`."""

    def __init__(self, config: str, against: str, n_envs: int | None) -> None:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.utils import configure_logger

        from agents.tables import BatchedVecEnv
        from envs import games
        from train.common import best_response
        from train.common.sb3 import ppo_arguments

        class _Nothing(BaseCallback):
            def _on_step(self) -> bool:
                return True

        over = {"n_envs": n_envs} if n_envs else {}
        table, ppo, run = best_response.load_config(config, against=against, overrides=over)
        agent = best_response.frozen_agent(against, table.game, table.players, table.rules)
        self.clock = _Clock()
        _time(agent, "act_batch", self.clock, "opponents")
        if hasattr(agent, "table_policy"):  # the engine's shortcut past the observation
            make = agent.table_policy

            def table_policy(core):
                act = make(core)
                return None if act is None else _timed(act, self.clock, "opponents")

            agent.table_policy = table_policy
        gym_id = games.get(table.game).gym_id
        self.tables_vec = BatchedVecEnv(
            gym_id, run.n_envs, run.seed, n_players=table.players, opponents=agent, **table.rules
        )
        self.model = MaskablePPO(
            env=self.tables_vec, seed=run.seed, device="cpu", verbose=0, **ppo_arguments(ppo)
        )
        self.model.set_logger(configure_logger(0, None, "", False))
        self.model._setup_learn(self.model.n_steps * run.n_envs, None)
        self.callback = _Nothing()
        self.callback.init_callback(self.model)
        self.steps = self.model.n_steps * run.n_envs
        _time(self.tables_vec, "step_wait", self.clock, "env")


class _Clock(dict):
    """Seconds by part of a round (``env``, ``opponents``), zero until timed."""

    def clear(self) -> None:
        self.update(env=0.0, opponents=0.0)

    def __missing__(self, key: str) -> float:
        return 0.0


def _timed(inner, clock: dict, key: str):
    """``inner``, its seconds added to ``clock[key]``."""

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            clock[key] += time.perf_counter() - t

    return timed


def _time(obj, name: str, clock: dict, key: str) -> None:
    setattr(obj, name, _timed(getattr(obj, name), clock, key))


# run inside a checkout (python -c: the cwd's packages first): one table kind, the league's
# dispatch now ("after") or the best response's agent, timed rounds -> JSON per round
_MEASURE = r"""
import json, sys, time
from benchmarks import league_speed as ls
from train.common import league
from train.common.sb3 import setup_torch
config, br_config, kind, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cfg = league.load_config(config, {})
setup_torch(cfg.run.torch_threads)
against = ls.best_responses().get(kind)
if against is not None:
    timer = ls._BestResponseTimer(br_config, against, None)
else:
    timer = ls._Timer(cfg, *ls.kinds(cfg.league.pool_size)[kind], batched=True)
timer.round()  # warming up
out = []
for _ in range(rounds):
    wall, cpu = time.perf_counter(), time.process_time()
    timer.round()
    out.append([timer.steps, time.perf_counter() - wall, time.process_time() - cpu])
print(json.dumps(out))
"""


def against_base(base: str, kinds_: list[str], args) -> list[str]:
    """Each kind timed in a copy of revision ``base`` and of the working tree (its tracked
    files, committed or not; ``git archive`` into a temporary folder, two folders of the
    same name length), in fresh processes taking turns, ``--repeats`` times ``--rounds``
    rounds: the median steps/s of wall time and per CPU second of each, and here / base."""
    import json
    import statistics
    import subprocess
    import sys
    import tempfile

    def git(*a: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, **kw)

    here_rev = git("stash", "create", text=True).stdout.strip() or "HEAD"
    lines = [
        f"here / {base}: the league's dispatch (best responses: their agent), "
        f"{args.repeats} x {args.rounds} rounds each",
        "| table | base steps/s | here steps/s | here / base | base per CPU s | "
        "here per CPU s | here / base |",
        "|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"base": Path(tmp) / "base", "here": Path(tmp) / "here"}
        for path, rev in zip(sides.values(), (base, here_rev), strict=True):
            path.mkdir()
            tar = git("archive", rev)
            if tar.returncode:
                raise SystemExit(f"cannot read revision {rev!r}: {tar.stderr.decode().strip()}")
            subprocess.run(["tar", "-x", "-C", str(path)], input=tar.stdout, check=True)
        for kind in kinds_:
            rounds: dict[str, list] = {"base": [], "here": []}
            for _ in range(args.repeats):
                for side, path in sides.items():
                    cmd = [sys.executable, "-c", _MEASURE, args.config, args.br_config, kind]
                    done = subprocess.run(
                        [*cmd, str(args.rounds)], cwd=path, capture_output=True, text=True
                    )
                    if done.returncode:
                        raise SystemExit(f"{side} {kind!r} failed:\n{done.stderr[-2000:]}")
                    rounds[side] += json.loads(done.stdout.strip().splitlines()[-1])
            wall = {k: statistics.median(n / w for n, w, _ in v) for k, v in rounds.items()}
            cpu = {k: statistics.median(n / c for n, _, c in v) for k, v in rounds.items()}
            lines.append(
                f"| {kind} | {wall['base']:,.0f} | {wall['here']:,.0f} | "
                f"{wall['here'] / wall['base']:.2f}x | {cpu['base']:,.0f} | {cpu['here']:,.0f} | "
                f"{cpu['here'] / cpu['base']:.2f}x |"
            )
            print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="card_poker_league", help="a league config")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per table kind")
    parser.add_argument("--n-envs", type=int, default=None, help="tables (the config's)")
    parser.add_argument("--only", nargs="*", default=None, help="table kinds to time")
    parser.add_argument(
        "--br-config", default="best_response.yaml", help="the best responses' config"
    )
    parser.add_argument(
        "--base", default=None, help="a git revision: time each kind there and here instead"
    )
    parser.add_argument("--repeats", type=int, default=3, help="--base: processes per side")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.repeats < 1:
        parser.error(f"--rounds and --repeats must be >= 1, got {args.rounds}, {args.repeats}")
    from benchmarks.timing import time_rounds
    from train.common import league
    from train.common.sb3 import setup_torch

    overrides = {"n_envs": args.n_envs} if args.n_envs else {}
    cfg = league.load_config(args.config, overrides)
    setup_torch(cfg.run.torch_threads)
    table_kinds, br_kinds = kinds(cfg.league.pool_size), best_responses()
    chosen = args.only or [*table_kinds, *br_kinds]
    unknown = [k for k in chosen if k not in table_kinds and k not in br_kinds]
    if unknown:
        parser.error(f"--only {unknown[0]!r}: choose from {', '.join([*table_kinds, *br_kinds])}")
    if args.base:
        if args.n_envs:
            parser.error("--base times the configs' own tables: leave out --n-envs")
        against_base(args.base, chosen, args)
        return
    timers: dict[tuple[str, str], _Timer] = {}
    for kind in chosen:
        if kind in br_kinds:  # one engine, one frozen agent: nothing to stack
            timers[(kind, "agent")] = _BestResponseTimer(
                args.br_config, br_kinds[kind], args.n_envs
            )
            continue
        for when in ("before", "after"):
            timers[(kind, when)] = _Timer(cfg, *table_kinds[kind], batched=when == "after")
    times = time_rounds(timers, args.rounds)
    steps = {key: timer.steps for key, timer in timers.items()}
    print(
        f"{cfg.name}: {cfg.run.n_envs} tables x n_steps {cfg.ppo.get('n_steps')} learner steps "
        f"per round; best responses ({args.br_config}) their own; torch threads "
        f"{cfg.run.torch_threads}; medians of {args.rounds} rounds"
    )
    print(
        "| table | dispatch | end to end steps/s | after/before | per CPU second | env | "
        "opponents | learner | update |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in chosen:
        rate = {}
        for (k, when), rows in times.items():
            if k != kind:
                continue
            rate[when] = float(np.median([steps[(k, when)] / x["total"] for x in rows]))
            quiet = float(np.median([steps[(k, when)] / x["cpu"] for x in rows]))
            share = {
                part: float(np.median([x[part] / x["total"] for x in rows]))
                for part in ("env", "opponents", "learner", "update")
            }
            ratio = f"{rate['after'] / rate['before']:.2f}x" if when == "after" else ""
            parts = " | ".join(f"{100 * share[p]:.0f}%" for p in share)
            print(f"| {kind} | {when} | {rate[when]:,.0f} | {ratio} | {quiet:,.0f} | {parts} |")


if __name__ == "__main__":
    main()
