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
import dataclasses
import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.atomic import atomic_write, write_text
from agents.members import Members
from agents.ppo import PPOAgent
from agents.tables import BatchedVecEnv, make_engine, play_games
from envs import games
from envs.cli import add_rule_argument, rule_options
from train.common import sb3
from train.common.config import (
    ConfigError,
    add_run_arguments,
    build,
    command_line,
    is_int,
    is_number,
    read_sections,
    run_overrides,
)
from train.common.progress import Progress
from train.common.results import EVAL_SEED, FINAL_SEED, model_line, write_final
from train.common.rundir import check_out_dir, choose_run_dir, resuming
from train.common.sb3 import (
    EnvConfig,
    build_model,
    check_same_network,
    learn_rest,
    open_run,
    ppo_arguments,
    resume_model,
    save_model,
    setup_torch,
)

GAME = "card_poker"
ENV_ID = "CardPoker-v0"
SECTIONS = ("env", "ppo", "league", "run")


@dataclass
class LeagueConfig:
    # the fixed members: agent specs of card poker ("random", "careful", "ppo:PATH", ...)
    fixed: list[str] = field(default_factory=lambda: ["random", "careful", "bluffer", "quick"])
    snapshot_every: int = 50_000  # timesteps between snapshots of the learner joining
    pool_size: int = 6  # newest snapshots kept in the population (0: no self-play)
    eval_every: int = 25_000  # timesteps between measurements of every member (the weights)
    eval_deals: int = 1_000  # deals per member and measurement
    temperature: float = 1.0  # chips per deal: the lower, the more the weakest spot is met
    floor: float = 0.2  # share of the tables spread evenly over the members


@dataclass
class LeagueRun:
    seed: int = 0
    n_envs: int = 128  # tables of the batched engine feeding PPO
    torch_threads: int = 1  # small MLPs on 2 cores: more threads only add contention
    # scale observations by running mean/std (VecNormalize, saved beside every model and
    # snapshot): the raw ones hold stacks near 100 that saturate a tanh layer
    normalize_obs: bool = True
    total_timesteps: int = 500_000
    checkpoint_every: int = 50_000  # timesteps between checkpoints (for --resume)
    final_eval_deals: int = 20_000  # deals per member of the evaluation after training
    out_dir: str = "runs"


@dataclass
class Config(sb3.Config):
    """train/ppo.py's config (its run name and folder) with the ``league:`` section; its
    ``run:`` is a :class:`LeagueRun`."""

    league: LeagueConfig = field(default_factory=LeagueConfig)

    @property
    def rules(self) -> dict[str, Any]:
        """The rule options of ``env.kwargs`` (what an agent needs to judge hands)."""
        return games.get(GAME).split_options(self.env.kwargs)[0]


# -- config ---------------------------------------------------------------------------------


def _whole(low: int):
    return lambda v: is_int(v) and v >= low, f"a whole number >= {low}"


LIMITS: dict[str, tuple[Any, str]] = {
    "league.snapshot_every": _whole(1),
    "league.pool_size": _whole(0),
    "league.eval_every": _whole(1),
    "league.eval_deals": (
        lambda v: is_int(v) and v >= 2,
        "a whole number >= 2 (a confidence interval needs two deals)",
    ),
    "league.temperature": (lambda v: is_number(v) and v > 0, "a number > 0"),
    "league.floor": (lambda v: is_number(v) and 0 <= v <= 1, "a number from 0 to 1"),
    "run.seed": (lambda v: is_int(v) and 0 <= v < 2**32, "a whole number 0 .. 2**32-1"),
    "run.n_envs": _whole(1),
    "run.torch_threads": _whole(1),
    "run.normalize_obs": (lambda v: isinstance(v, bool), "true or false"),
    "run.total_timesteps": _whole(1),
    "run.checkpoint_every": _whole(1),
    "run.final_eval_deals": (
        lambda v: is_int(v) and v >= 2,
        "a whole number >= 2 (a confidence interval needs two deals)",
    ),
    "run.out_dir": (lambda v: isinstance(v, str) and v.strip() != "", "a folder name"),
}


def load_config(
    name: str, overrides: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None
) -> Config:
    """Read and check a whole league config: ``overrides`` replace ``run:`` fields (the
    command line's), ``env_kwargs`` env kwargs (``--rule``). Every problem is one
    ConfigError line naming the key, the value and what is allowed."""
    path, data = read_sections(name, SECTIONS, ("league",))
    if data.get("env") is None:
        raise ConfigError(f"{path.name}: env: is missing; it needs id: {ENV_ID}")
    env = build(EnvConfig, data["env"], f"{path.name}: env")
    if env.id != ENV_ID:
        raise ConfigError(f"{path.name}: env.id must be {ENV_ID!r} (the league plays card poker)")
    env.kwargs = {**env.kwargs, **(env_kwargs or {})}
    if "opponents" in env.kwargs:
        raise ConfigError(
            f"{path.name}: env.kwargs.opponents is set by the league; list fixed players "
            "in league.fixed"
        )
    for section in ("league", "run"):
        if not isinstance(data.get(section) or {}, dict):
            raise ConfigError(f"{path.name}: {section}: must be a mapping, got {data[section]!r}")
    league = build(LeagueConfig, data.get("league") or {}, f"{path.name}: league")
    run = build(LeagueRun, data.get("run") or {}, f"{path.name}: run", overrides)
    values = {f"league.{k}": v for k, v in dataclasses.asdict(league).items()}
    values.update({f"run.{k}": v for k, v in dataclasses.asdict(run).items()})
    for key, (ok, allowed) in LIMITS.items():
        if not ok(values[key]):
            raise ConfigError(f"{path.name}: {key} must be {allowed}, got {values[key]!r}")
    check_out_dir(run.out_dir, f"{path.name}: run")
    ppo_section = data.get("ppo") or {}
    ppo_arguments(ppo_section)  # MaskablePPO's keys and values, checked before any work
    cfg = Config(path.stem, env, ppo_section, run, league)
    try:  # the engine's own checks of the rules and table options
        make_engine(ENV_ID, 1, opponents="random", **env.kwargs)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{path.name}: env.kwargs {env.kwargs!r}: {err}") from None
    if not league.fixed:
        raise ConfigError(f"{path.name}: league.fixed is empty; name at least one fixed player")
    if len(set(league.fixed)) != len(league.fixed):
        raise ConfigError(f"{path.name}: league.fixed {league.fixed} names a player twice")
    for spec in league.fixed:
        try:
            make_agent(spec, GAME, **cfg.rules)
        except (ValueError, TypeError, FileNotFoundError) as err:
            raise ConfigError(f"{path.name}: league.fixed: {err}") from None
    return cfg


# -- the population -------------------------------------------------------------------------


def pfsp_weights(chips: np.ndarray, temperature: float, floor: float) -> np.ndarray:
    """Sampling weights of the members from the learner's chips per deal against each
    (``floor / N + (1 - floor) * softmax(-chips / temperature)``; a member not measured
    yet counts as even, 0 chips)."""
    c = np.nan_to_num(np.asarray(chips, dtype=np.float64), nan=0.0)
    z = -c / temperature
    e = np.exp(z - z.max())
    return floor / len(c) + (1 - floor) * e / e.sum()


@dataclass
class Member:
    name: str  # the fixed player's spec, or snap_{step} for a snapshot
    spec: str  # what make_agent builds
    agent: Agent
    uid: int  # stable id (tables hold it; indices change when a snapshot leaves)
    chips: float = float("nan")  # the learner's chips per deal at its table, last measured
    ci95: float = float("nan")
    deals: int = 0  # training deals played against it

    @property
    def snapshot(self) -> bool:
        return self.name.startswith("snap_")


class Population:
    """The fixed players and the newest snapshots, with their PFSP weights."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.members: list[Member] = []
        self.next_uid = 0
        for spec in cfg.league.fixed:
            self._add(spec, spec)

    def _add(self, name: str, spec: str) -> Member:
        member = Member(name, spec, make_agent(spec, GAME, **self.cfg.rules), self.next_uid)
        self.next_uid += 1
        self.members.append(member)
        return member

    def add_snapshot(self, path: Path, step: int) -> tuple[Member, list[Member]]:
        """The snapshot saved at ``path`` joins; the oldest beyond ``pool_size`` leave.
        Returns the new member and those that left."""
        member = self._add(f"snap_{step}", f"ppo:{path}")
        snaps = [m for m in self.members if m.snapshot]
        gone = snaps[: max(len(snaps) - self.cfg.league.pool_size, 0)]
        self.members = [m for m in self.members if m not in gone]
        return member, gone

    @property
    def uids(self) -> np.ndarray:
        return np.array([m.uid for m in self.members], dtype=np.int64)

    def by_uid(self, uid: int) -> Member:
        return next(m for m in self.members if m.uid == uid)

    def weights(self) -> np.ndarray:
        league = self.cfg.league
        return pfsp_weights([m.chips for m in self.members], league.temperature, league.floor)

    def sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        """The uids of the members of ``m`` tables, drawn by the weights."""
        return self.uids[rng.choice(len(self.members), size=m, p=self.weights())]

    # -- the state --resume restores ----------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "next_uid": self.next_uid,
            "members": [
                {
                    "name": m.name,
                    "spec": m.spec,
                    "uid": m.uid,
                    "chips": None if np.isnan(m.chips) else m.chips,
                    "ci95": None if np.isnan(m.ci95) else m.ci95,
                    "deals": m.deals,
                }
                for m in self.members
            ],
        }

    @classmethod
    def from_state(cls, cfg: Config, state: dict[str, Any], where: str) -> Population:
        pop = cls.__new__(cls)
        pop.cfg, pop.members, pop.next_uid = cfg, [], int(state["next_uid"])
        fixed = [m["name"] for m in state["members"] if not m["name"].startswith("snap_")]
        if fixed != list(cfg.league.fixed):
            raise ConfigError(
                f"--resume: {where} was trained with league.fixed {fixed}, "
                f"the config now says {cfg.league.fixed}"
            )
        for m in state["members"]:
            if m["name"].startswith("snap_"):  # in this run's pool, wherever it was run from
                m["spec"] = f"ppo:{cfg.run_dir / 'pool' / Path(m['spec'][4:]).name}"
            try:
                agent = make_agent(m["spec"], GAME, **cfg.rules)
            except (ValueError, FileNotFoundError) as err:
                raise ConfigError(f"--resume: {where}: member {m['name']}: {err}") from None
            nan = float("nan")
            pop.members.append(
                Member(
                    m["name"],
                    m["spec"],
                    agent,
                    int(m["uid"]),
                    nan if m["chips"] is None else float(m["chips"]),
                    nan if m["ci95"] is None else float(m["ci95"]),
                    int(m["deals"]),
                )
            )
        return pop


def state_path(checkpoint: Path) -> Path:
    """The population saved beside a checkpoint."""
    return checkpoint.with_suffix(".league.json")


# -- the tables -----------------------------------------------------------------------------


class LeagueTables:
    """The engine protocol of ``envs.vector`` over a ``BatchedCardPokerTable`` whose
    opponent seats dispatch, table by table, to the member drawn for that table's deal.

    The opponents are given to the engine as one :class:`_Seat` per opponent seat; the
    engine asks seat j for the tables where it is to move (``_advance``: every running table
    where a seat other than the learner's is to move). A seat's ``table_policy`` gets those
    tables and seats: a member with a ``table_policy`` of its own (``careful``, ``bluffer``,
    ``quick``) reads its rows off the tables' state, the same choices as its ``act_batch``
    on their observations (tested in tests/agents), and only the other members' rows are
    encoded as observations (``direct = False``: every row is, as before).
    """

    def __init__(self, table, population: Population) -> None:
        self.table, self.population = table, population
        self.n, self.n_actions, self.layout = table.n, table.n_actions, table.layout
        self.uid = np.full(self.n, -1, dtype=np.int64)
        self.rng = np.random.default_rng()
        self.deals = 0  # deals begun at these tables (for the throughput)
        self.members = Members()  # each table's member; the snapshots in one forward
        self.direct = True  # members with a table_policy read the tables' state
        self._acts: dict[int, tuple] = {}  # id(agent) -> (agent, core, its act or None)

    @staticmethod
    def seat_policies(holder: dict, n_players: int) -> list:
        """The opponents to build the engine with: seat j asks ``holder["tables"]``."""
        return [_Seat(holder, j) for j in range(n_players - 1)]

    def _index(self, tables: np.ndarray) -> np.ndarray:
        """Each table's member, as its index in the population's list."""
        uids = self.population.uids
        order = np.argsort(uids)
        return order[np.searchsorted(uids[order], self.uid[tables])]

    def _act_of(self, agent: Agent, core):
        """``agent.table_policy(core)`` (None: it has none), made once per agent."""
        known = self._acts.get(id(agent))
        if known is None or known[0] is not agent or known[1] is not core:
            if len(self._acts) > 64:  # snapshots come and go: keep it small
                self._acts.clear()
            make = getattr(agent, "table_policy", None)
            act = make(core) if callable(make) else None
            known = self._acts[id(agent)] = (agent, core, act)
        return known[2]

    def act_tables(self, core, tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The actions of ``seats`` (to move) at ``tables``: each played by its table's
        member, from the tables' state where the member reads it (class docstring)."""
        index = self._index(tables)
        agents = [m.agent for m in self.population.members]
        out = np.empty(len(tables), dtype=np.int64)
        encoded = np.ones(len(tables), dtype=bool)
        for k in np.unique(index).tolist() if self.direct else ():
            act = self._act_of(agents[k], core)
            if act is not None:
                rows = np.flatnonzero(index == k)
                out[rows] = act(tables[rows], seats[rows])
                encoded[rows] = False
        if encoded.any():
            r = np.flatnonzero(encoded)
            obs, masks = core.observe(seats[r], tables[r]), core.action_masks(tables[r])
            out[r] = self.members.act(agents, index[r], obs, masks)
        return out

    def act_seat(self, j: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        core, learner = self.table.core, self.table.agent_seat
        seat = core.to_act.astype(np.int64)
        t = np.flatnonzero(~core.over & (seat != learner) & (seat - (seat > learner) == j))
        if len(t) != len(observations):
            raise RuntimeError(
                f"opponent seat {j} was asked for {len(observations)} tables but {len(t)} "
                "have it to move: the engine's order of play changed"
            )
        agents = [m.agent for m in self.population.members]
        return self.members.act(agents, self._index(t), observations, masks)

    def seed(self, seed: int) -> None:
        engine_seq, own = np.random.SeedSequence(seed).spawn(2)
        self.rng = np.random.default_rng(own)
        self.table.rng = np.random.default_rng(engine_seq)
        for m in self.population.members:
            m.agent.seed(int(self.rng.integers(2**63)))

    def reset(self, which: np.ndarray | None = None) -> None:
        which = np.ones(self.n, dtype=bool) if which is None else which
        self._draw(np.flatnonzero(which))
        self.table.reset(which)

    def _draw(self, tables: np.ndarray) -> None:
        self.uid[tables] = self.population.sample(len(tables), self.rng)
        self.deals += len(tables)
        for u, count in zip(*np.unique(self.uid[tables], return_counts=True), strict=True):
            self.population.by_uid(int(u)).deals += int(count)

    def refresh(self) -> None:
        """Tables whose member left the population draw another at once (their deal goes
        on with it); a member that joins is seeded from the tables' generator."""
        gone = np.flatnonzero(~np.isin(self.uid, self.population.uids))
        if len(gone):
            self._draw(gone)

    def step(self, actions) -> np.ndarray:
        return self.table.step(actions)

    @property
    def done(self) -> np.ndarray:
        return self.table.done

    def observe(self) -> np.ndarray:
        return self.table.observe()

    def action_masks(self) -> np.ndarray:
        return self.table.action_masks()


class _Seat:
    """Opponent seat j of the league's tables (:class:`LeagueTables`, found in
    ``holder["tables"]`` once the engine is built): called on observations, or through
    ``table_policy`` on the tables and seats to move."""

    def __init__(self, holder: dict, j: int) -> None:
        self.holder, self.j = holder, j

    def __call__(self, observations, masks) -> np.ndarray:
        return self.holder["tables"].act_seat(self.j, observations, masks)

    def table_policy(self, core):
        holder = self.holder
        return lambda tables, seats: holder["tables"].act_tables(core, tables, seats)


class LeagueVecEnv(BatchedVecEnv):
    """``BatchedVecEnv`` of card poker whose opponents are the league's (:class:`LeagueTables`)."""

    def __init__(self, cfg: Config, population: Population, seed: int) -> None:
        holder: dict = {}
        n_players = cfg.env.kwargs.get("n_players", games.get(cfg.game).default_players)
        policies = LeagueTables.seat_policies(holder, n_players)
        super().__init__(ENV_ID, cfg.run.n_envs, opponents=policies, **cfg.env.kwargs)
        self.engine = holder["tables"] = LeagueTables(self.engine, population)
        self.seed(seed)


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
