"""The league's side of the run protocol: its config (``league:`` and ``run:`` checked,
:func:`load_config`), the population of fixed players and snapshots with their PFSP weights
(:class:`Population`) and the vectorised card-poker tables whose opponents are drawn from it
(:class:`LeagueTables`, :class:`LeagueVecEnv`). ``train/league.py`` trains on them;
``benchmarks/league_speed.py`` times them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.members import Members
from agents.tables import BatchedVecEnv, make_engine
from envs import games
from train.common import sb3
from train.common.config import (
    ConfigError,
    build,
    is_int,
    is_number,
    read_sections,
)
from train.common.rundir import check_out_dir
from train.common.sb3 import (
    EnvConfig,
    ppo_arguments,
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
