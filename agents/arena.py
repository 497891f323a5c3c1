"""The arena: any agents at any game, seats rotated, every figure with a 95% confidence interval.

    from agents.arena import run_arena
    result = run_arena("dice_poker", ["random", "heuristic", "optimal"], 6000, seed=0, workers=2)
    print(result.markdown())

How games are played (``tools/benchmark.py`` is the command-line front end):

- **Seats.** A table has ``players`` seats. Agent specs fill the seats cyclically
  (seat entry ``k`` is agent ``k % len(specs)``), so ``--players`` may exceed the
  number of agents, never fall short of it. Every game uses one seat order from a
  fixed list: every circular arrangement of the entries, each followed by its
  ``players`` rotations. Each aligned block of ``players`` games therefore puts every
  entry in every position once, and ``players!`` games play every order once.
- **Poker games** (``dice_poker``, ``dice_poker6``, ``card_poker``): one game (one
  deal, fresh stacks) per game index, position 0 first to act. Each game yields the
  chips every seat won or lost and who won (a split card-poker pot counts as a
  share ``1/k`` to each of the ``k`` winners).
- **Duplicate deals** (``duplicate=True``, poker games; ``tools/benchmark.py
  --duplicate``): each aligned block of ``players`` games, the rotations of one seat
  order, replays one deal: card poker the same shuffled deck (position ``p`` gets the
  same five cards in every game of the block, the stock the same order), dice poker the
  same dice roll by roll (:class:`DuplicateDeal`: common dice per round, turn and roll,
  so the same choice in the same place meets the same dice). Every agent thus plays
  every hand of the deal, and luck of the cards cancels within a block; the games must
  be a multiple of ``players``, and every interval counts a block (its mean) as one
  draw, since the games of a block are not independent. A block's chance comes from
  its own seed (:func:`deal_seed`), whatever chunk or worker plays it.
- **Scorecard games** (``yahtzee``, ``yahtzee_classic``): players never interact, so
  every seat of a game rolls **the same dice stream** (common random numbers: the
  same seed drives each seat's own :class:`ScorecardGame`; the dice agree as long as
  the players' choices do). With ``players=1`` (the default) every agent plays each
  game alone on those dice and the figure is its total score; with ``players > 1``
  also the settlement of docs/rules.md section 4, total minus the table's mean total. Maximising the
  expected total maximises the expected settlement, so players see the solo
  observation of ``PokerNaKostyah-v0`` in either case.
- **Per agent and game** an agent's result is the mean over the seats it held.
  Intervals are 95%: Wilson score intervals for rates, mean ± 1.96 standard errors
  (over games) for chips and scores; with duplicate deals mean ± 1.96 standard errors
  over the blocks for both.
- **Head to head**: the fraction of games in which the row agent's result (chips, or
  score on the same dice) was higher than the column agent's, ties counting half.
- **Ratings**: openskill's Plackett-Luce model, updated game by game in game order
  with the agents ranked by their result (ties share a rank); ``ordinal`` is
  ``mu - 3 sigma``.
- **Illegal actions.** The arena's players are ``make_agent`` agents, which choose from the
  action mask (a PPO model's logits are masked), so an illegal action is a bug of the
  agent and raises: the envs' ``illegal_action`` option (issue 23, for mask-unaware
  learners) does not apply here. A mask-unaware model is measured on the batched engine
  with :func:`envs.vector.play_games` (which takes the option) or the vector envs.
- **Seeds.** Games are split into chunks of :data:`CHUNK_GAMES` games; chunk ``c`` draws
  everything from ``SeedSequence(seed, spawn_key=(c,))`` (one child seeds the agents,
  the other the dice and cards), and chunks are merged in order. So the same seed
  gives the same result for any number of worker processes, and a game's dice do not
  depend on which agents play.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents import POLICY_OPTIONS, TRAINED, TRAINED_SPECS, Agent, make_agent, split_spec
from envs import games
from envs.rules.dice import roll
from envs.rules.dice_poker import DicePokerRules
from envs.rules.scorecard_match import settle


def __getattr__(name: str):
    # views of the registry, computed when asked (a game registered later shows up)
    if name == "POKER_GAMES":
        return games.of_kind("chips")
    if name == "SCORECARD_GAMES":
        return games.of_kind("points")
    raise AttributeError(f"module 'agents.arena' has no attribute {name!r}")


MAX_SEATS = 6
# Games per chunk. Part of what a seed means (each chunk has its own seed), so fixed.
CHUNK_GAMES = 100
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a rate (``wins`` may be fractional: shared wins)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(centre - half, 0.0), min(centre + half, 1.0))


def mean_interval(x: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal 95% interval (mean ± z standard errors)."""
    x = np.asarray(x, dtype=float)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, float("nan"), float("nan")
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


def seat_orders(n: int) -> list[tuple[int, ...]]:
    """Seat orders of ``n`` entries (``order[position] = entry``), rotations adjacent.

    Every circular arrangement (entry 0 first) followed by its ``n`` rotations: each
    aligned block of ``n`` orders puts every entry in every position once.
    """
    bases = [(0, *p) for p in itertools.permutations(range(1, n))]
    return [tuple(b[(j + r) % n] for j in range(n)) for b in bases for r in range(n)]


def display_name(spec: str | Agent) -> str:
    """A short name for tables: ``ppo:runs/x/model.zip`` -> ``ppo:x``.

    A checkpoint ``runs/x/checkpoints/step_5.zip`` becomes ``ppo:x@step_5``; an option
    stays (``ppo:x?sample``).
    """
    if not isinstance(spec, str):
        return getattr(spec, "name", type(spec).__name__)
    if not spec.startswith("ppo:"):
        return spec
    path, mark, option = spec[4:].rpartition("?")
    path, tail = (path, mark + option) if option in POLICY_OPTIONS else (spec[4:], "")
    model = Path(path)
    if model.parent.name == "checkpoints":
        return f"ppo:{model.parent.parent.name}@{model.stem}{tail}"
    if model.stem == "model" and model.parent.name:
        return f"ppo:{model.parent.name}{tail}"
    return f"ppo:{model.stem}{tail}"


def _parse_specs(specs: Sequence[str | Agent]) -> tuple[str, ...]:
    names = [display_name(s) for s in specs]
    # Repeated specs are separate agents (own rows, own ratings): number the repeats.
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return tuple(out)


@dataclass(frozen=True)
class ArenaSetup:
    """What is played: the game, the agents, the seats and the rule options."""

    game: str
    specs: tuple[str | Agent, ...]
    players: int
    rules: tuple[tuple[str, object], ...] = ()
    duplicate: bool = False  # poker games: each block of ``players`` games replays one deal

    @property
    def names(self) -> tuple[str, ...]:
        return _parse_specs(self.specs)

    @property
    def scorecard(self) -> bool:
        return games.kind_of(self.game) == "points"

    @property
    def solo(self) -> bool:
        """Scorecard games played alone: every agent once per game, on the same dice."""
        return self.scorecard and self.players == 1

    @property
    def rule_options(self) -> dict:
        return dict(self.rules)

    @property
    def entries(self) -> list[int]:
        """The agent index of each seat entry."""
        n = len(self.specs) if self.solo else self.players
        return [k % len(self.specs) for k in range(n)]

    @property
    def n_positions(self) -> int:
        return len(self.entries)

    def orders(self) -> list[tuple[int, ...]]:
        if self.solo:  # every agent plays each game; positions mean nothing
            return [tuple(range(len(self.specs)))]
        return seat_orders(self.players)


def make_setup(
    game: str,
    specs: Sequence[str | Agent],
    players: int | None = None,
    duplicate: bool = False,
    **rules,
) -> ArenaSetup:
    """Check the game, the agents and the seats; ``players=None`` picks the default.

    The default is one seat per agent (at least 2) for the poker games and solo play
    (``players=1``) for the scorecard games. ``duplicate``: duplicate deals (poker games
    only; the module docstring).
    """
    record = games.get(game)  # ValueError naming the games
    specs = tuple(specs)
    if not specs:
        raise ValueError("no agents given")
    solo = record.result == "points"  # scorecard players never interact: play alone
    if players is None:
        players = 1 if solo else max(2, len(specs))
    low = 1 if solo else 2
    if not isinstance(players, int) or not low <= players <= MAX_SEATS:
        raise ValueError(f"players must be {low}..{MAX_SEATS} for {game}, got {players!r}")
    if players > 1 and players < len(specs):
        raise ValueError(
            f"{len(specs)} agents need at least {len(specs)} seats, got players={players} "
            "(every agent sits at every game)"
        )
    if not isinstance(duplicate, bool):
        raise ValueError(f"duplicate must be True or False, got {duplicate!r}")
    if duplicate and solo:
        raise ValueError(
            f"duplicate deals are for the poker games ({', '.join(games.of_kind('chips'))}); "
            f"{game} already plays every seat on the same dice"
        )
    return ArenaSetup(game, specs, players, tuple(sorted(rules.items())), duplicate)


def check_games(setup: ArenaSetup, n_games: int) -> None:
    """``n_games`` is a whole number >= 1, with duplicate deals a multiple of the players."""
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 1:
        raise ValueError(f"n_games must be a whole number >= 1, got {n_games!r}")
    if setup.duplicate and n_games % setup.players:
        raise ValueError(
            f"duplicate deals replay each deal {setup.players} times (once per rotation of "
            f"the seats): the games must be a multiple of {setup.players}, got {n_games}"
        )


def build_agents(setup: ArenaSetup) -> list[Agent]:
    """One agent per seat entry (repeats are separate instances: agents may keep state)."""
    rules = setup.rule_options
    agents: list[Agent] = []
    for k, a in enumerate(setup.entries):
        spec = setup.specs[a]
        if isinstance(spec, Agent):
            agents.append(spec if k == a else copy.deepcopy(spec))
        else:
            agents.append(make_agent(spec, setup.game, **rules))
    _check_observation_shapes(setup, agents)
    return agents


def check_spec(spec: str, game: str) -> None:
    """Fail fast, before any solver is built, on a spec that cannot play ``game``."""
    prefix, path, _ = split_spec(spec)  # a bad ?option: ValueError
    if path:  # a trained model: a file or a run/checkpoint folder
        kind = TRAINED[prefix][1]
        if not (Path(path).is_file() if kind == "file" else Path(path).is_dir()):
            raise ValueError(f"agent {spec!r}: no model {kind} at {path!r}")
        return
    from agents import AGENTS  # a view of the registry, read when asked

    if spec not in AGENTS:
        names = ", ".join(sorted(AGENTS))
        raise ValueError(f"unknown agent {spec!r}; choose one of {names}, {TRAINED_SPECS}")
    by_game = AGENTS[spec]
    if games.get(game).name not in by_game and "*" not in by_game:
        raise ValueError(
            f"agent {spec!r} does not exist for game {game!r}; it plays {', '.join(by_game)}"
        )


def check_fits(agent, game: str, players: int, rules: dict, label: str | None = None) -> None:
    """A trained agent fits the table it is to play at, before any game: a PPO model's
    observation shape and number of actions (a card-poker model of another bid range has
    other actions), a hand-value table's number of players. ValueError names the agent."""
    label = label or f"agent {getattr(agent, 'name', agent)!r}"
    record = games.get(game)
    made = record.make_rules(**rules)
    model = getattr(agent, "model", None)
    space = getattr(model, "observation_space", None)
    shape = record.observation(made, players).shape
    if space is not None and tuple(space.shape) != shape:
        raise ValueError(
            f"{label} was trained on observations of shape {tuple(space.shape)}, but {game} "
            f"with {players} players gives {shape}: a different game, variant or number of "
            "players?"
        )
    n_actions = getattr(getattr(model, "action_space", None), "n", None)
    want = getattr(made, "n_actions", None)
    if n_actions is not None and want is not None and int(n_actions) != int(want):
        raise ValueError(
            f"{label} was trained with {n_actions} actions, but {game} with these rules has "
            f"{want}: another bid range or variant (see --rule)?"
        )
    table_players = getattr(getattr(agent, "table", None), "n_players", None)
    if table_players is not None and table_players != players:
        raise ValueError(
            f"{label} is a hand-value table of {table_players}-player rounds; it cannot play "
            f"at {players} players (train one with env.kwargs.n_players: {players})"
        )


def _check_observation_shapes(setup: ArenaSetup, agents: list[Agent]) -> None:
    # A trained model fixes its observation size (card poker's grows with the seats);
    # say so before any game is played rather than from inside a worker.
    shape = _observation(setup).shape
    seats = "played alone" if setup.solo else f"with {setup.players} players"
    for a, agent in zip(setup.entries, agents, strict=True):
        space = getattr(getattr(agent, "model", None), "observation_space", None)
        if space is not None and tuple(space.shape) != shape:
            raise ValueError(
                f"agent {setup.names[a]!r} was trained on observations of shape "
                f"{tuple(space.shape)}, but {setup.game} {seats} gives {shape}: "
                "a different game, variant or number of players?"
            )


def _observation(setup: ArenaSetup) -> np.ndarray:
    record = games.get(setup.game)
    return record.observation(record.make_rules(**setup.rule_options), setup.players)


# -- playing one chunk ---------------------------------------------------------------


@dataclass
class Records:
    """Every game of a run, position by position (position 0 acts first).

    ``agent[g, p]`` is the agent at position ``p`` of game ``g``; ``value`` its chips
    (poker) or total score (scorecard); ``win`` its share of the win. Scorecard games
    also keep ``rows`` (each row's final score) and ``bonus`` (the upper bonus).
    """

    agent: np.ndarray
    value: np.ndarray
    win: np.ndarray
    rows: np.ndarray | None = None
    bonus: np.ndarray | None = None

    @staticmethod
    def concat(parts: Sequence[Records]) -> Records:
        def cat(name):
            arrays = [getattr(p, name) for p in parts]
            return None if arrays[0] is None else np.concatenate(arrays)

        return Records(*(cat(n) for n in ("agent", "value", "win", "rows", "bonus")))


def _chunk_seeds(seed: int, chunk: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    agents_ss, dice_ss = np.random.SeedSequence(seed, spawn_key=(chunk,)).spawn(2)
    return agents_ss, dice_ss


def play_chunk(
    setup: ArenaSetup, agents: list[Agent], seed: int, chunk: int, first: int, n_games: int
) -> Records:
    """Chunk ``chunk`` of a run with this seed: games ``first`` .. ``first + n_games - 1``."""
    agents_ss, dice_ss = _chunk_seeds(seed, chunk)
    for agent, s in zip(agents, agents_ss.generate_state(len(agents), np.uint64), strict=True):
        agent.seed(int(s))
    rng = np.random.default_rng(dice_ss)
    orders = setup.orders()
    picked = [orders[(first + i) % len(orders)] for i in range(n_games)]
    if setup.scorecard:
        return _play_scorecard(setup, agents, rng, picked)
    return _play_table(setup, agents, rng, picked, first, seed)


# Duplicate deals draw from seeds of their own, one per block of ``players`` games (and
# one per dice roll in it), so a block's deal does not depend on the chunk it falls in.
DUPLICATE_KEY = 2**31  # spawn keys (DUPLICATE_KEY, block, ...) never meet a chunk's (c,)


def deal_seed(seed: int, block: int, *where: int) -> np.random.SeedSequence:
    """The seed of duplicate block ``block`` of a run (with ``where``: of one roll in it)."""
    return np.random.SeedSequence(seed, spawn_key=(DUPLICATE_KEY, block, *where))


class DuplicateDeal:
    """The chance of duplicate block ``block``: every game of the block meets one deal.

    - Card poker: each game's generator starts from the block's seed, so the shuffled deck
      is the same (position ``p`` gets cards ``5p .. 5p + 4``, the stock the rest in the
      same order), and so is a reshuffle of the discards while play agrees.
    - Dice poker (chance as the rules' ``chance`` input): roll ``k`` (0 = the first) of
      turn ``t`` (0 = first to roll) of round ``r`` (0 = the main round, then the
      play-offs) comes from a seed of its own, and a re-rolled die in place ``i`` of the
      sorted dice comes up face ``i`` of that roll: whoever sits in a position, the same
      choice in the same place meets the same dice.
    """

    def __init__(self, setup: ArenaSetup, seed: int, block: int) -> None:
        self.record = games.get(setup.game)
        self.rules = self.record.make_rules(**setup.rule_options)
        self.players, self.seed, self.block = setup.players, seed, block
        self.dice = isinstance(self.rules, DicePokerRules)

    def _rng(self, *where: int) -> np.random.Generator:
        return np.random.default_rng(deal_seed(self.seed, self.block, *where))

    def roll(self, r: int, t: int, k: int) -> tuple[int, ...]:
        """Dice poker: the faces of roll ``k`` of turn ``t`` in round ``r``."""
        return roll(self._rng(r, t, k), self.rules.n_dice)

    def new_game(self):
        # dice: the game rolls its first roll with the generator of roll (0, 0, 0)
        rng = self._rng(0, 0, 0) if self.dice else self._rng()
        return self.record.new_game(self.rules, self.players, rng)

    def step(self, game, action: int) -> None:
        if not self.dice:
            game.step(action)
            return
        r, k = game.playoff, game.rolls_used
        t = len(game.round_order) - game.players_after - 1
        faces = list(self.roll(r, t, k))
        if game.ends_turn(action):  # the step may start the next turn or a play-off
            faces += self.roll(r, t + 1, 0) if game.players_after else self.roll(r + 1, 0, 0)
        game.step(action, chance=faces)


def _empty(n_games: int, n_pos: int) -> Records:
    return Records(
        agent=np.zeros((n_games, n_pos), dtype=np.int8),
        value=np.zeros((n_games, n_pos)),
        win=np.zeros((n_games, n_pos)),
    )


def _play_out(record, game, agent_at, step=None) -> None:
    """Play ``game`` to its end, each move by ``agent_at(seat)`` from that seat's view
    (``step(game, action)`` plays a move where chance comes from outside)."""
    while not game.done:
        seat = getattr(game, "current_player", 0)  # a scorecard game has one seat
        action = agent_at(seat).act(record.observe(game, seat), game.action_mask())
        if step is None:
            game.step(action)
        else:
            step(game, action)


def _start(setup: ArenaSetup, n_games: int, n_positions: int):
    """The game's registry record, its rules, and empty records of ``n_games`` games."""
    record = games.get(setup.game)
    return record, record.make_rules(**setup.rule_options), _empty(n_games, n_positions)


def _play_table(setup, agents, rng, orders, first: int = 0, seed: int = 0) -> Records:
    """One game (one deal, fresh stacks) per order; seat = position: seat 0 acts first.
    Games are ``first`` .. of the run; duplicate deals come from ``seed`` (DuplicateDeal)."""
    entries, n = setup.entries, setup.players
    record, rules, out = _start(setup, len(orders), n)
    for g, order in enumerate(orders):
        agent_at = lambda seat, order=order: agents[order[seat]]  # noqa: E731
        if setup.duplicate:
            deal = DuplicateDeal(setup, seed, (first + g) // n)
            game = deal.new_game()
            _play_out(record, game, agent_at, deal.step)
        else:
            game = record.new_game(rules, n, rng)
            _play_out(record, game, agent_at)
        pay = game.payoffs()
        winners = record.winners(game)
        for p in range(n):
            out.agent[g, p] = entries[order[p]]
            out.value[g, p] = pay[p]
            out.win[g, p] = 1 / len(winners) if p in winners else 0.0
    return out


def _play_scorecard(setup, agents, rng, orders) -> Records:
    entries, n = setup.entries, setup.n_positions
    record, rules, out = _start(setup, len(orders), n)
    n_rows = len(rules.rows)
    out.rows = np.zeros((len(orders), n, n_rows), dtype=np.int16)
    out.bonus = np.zeros((len(orders), n), dtype=np.int16)
    for g, order in enumerate(orders):
        dice_seed = int(rng.integers(2**63))
        for p in range(n):
            agent = agents[order[p]]
            game = record.new_game(rules, 1, np.random.default_rng(dice_seed))
            _play_out(record, game, lambda seat, agent=agent: agent)
            out.agent[g, p] = entries[order[p]]
            out.value[g, p] = game.card.total
            out.rows[g, p] = game.card.scores
            out.bonus[g, p] = game.card.bonus
        best = out.value[g].max()
        top = out.value[g] == best
        out.win[g] = top / top.sum()
    return out


# -- running chunks in worker processes ------------------------------------------------

_WORKER: tuple[ArenaSetup, list[Agent]] | None = None


def _init_worker(setup: ArenaSetup) -> None:
    global _WORKER
    if "torch" in sys.modules:  # trained models: one thread per worker process is fastest
        sys.modules["torch"].set_num_threads(1)
    # Under fork the parent's agents (solver tables included) are inherited as they are.
    if _WORKER is None or _WORKER[0] != setup:
        _WORKER = (setup, build_agents(setup))


def _worker_chunk(seed: int, chunk: int, first: int, n_games: int) -> tuple[int, Records]:
    assert _WORKER is not None
    setup, agents = _WORKER
    return chunk, play_chunk(setup, agents, seed, chunk, first, n_games)


def default_workers() -> int:
    return min(2, os.cpu_count() or 1)


def run_arena(
    game: str,
    specs: Sequence[str | Agent],
    n_games: int,
    players: int | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
    agents: list[Agent] | None = None,
    chunk_games: int = CHUNK_GAMES,
    duplicate: bool = False,
    **rules,
) -> ArenaResult:
    """Play ``n_games`` games of ``game`` among the agents; see the module docstring.

    ``agents`` (from :func:`build_agents`) saves building them again. ``chunk_games``
    is part of what a seed means (each chunk has its own seed); keep the default to
    compare runs. ``duplicate``: duplicate deals (poker games; ``n_games`` a multiple of
    the players).
    """
    global _WORKER
    from tqdm import tqdm

    setup = make_setup(game, specs, players, duplicate, **rules)
    check_games(setup, n_games)
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if agents is None:
        agents = build_agents(setup)
    if not isinstance(chunk_games, int) or chunk_games < 1:
        raise ValueError(f"chunk_games must be a whole number >= 1, got {chunk_games!r}")
    chunks = [
        (c, c * chunk_games, min(chunk_games, n_games - c * chunk_games))
        for c in range(math.ceil(n_games / chunk_games))
    ]
    parts: dict[int, Records] = {}
    bar = tqdm(total=n_games, unit="game", desc=game, disable=not progress)
    if workers == 1 or len(chunks) == 1:
        for c, first, n in chunks:
            parts[c] = play_chunk(setup, agents, seed, c, first, n)
            bar.update(n)
    else:
        _WORKER = (setup, agents)
        with ProcessPoolExecutor(
            max_workers=min(workers, len(chunks)), initializer=_init_worker, initargs=(setup,)
        ) as pool:
            futures = [pool.submit(_worker_chunk, seed, *chunk) for chunk in chunks]
            for future in as_completed(futures):
                c, records = future.result()
                parts[c] = records
                bar.update(len(records.value))
    bar.close()
    records = Records.concat([parts[c] for c, _, _ in chunks])
    return ArenaResult(setup, n_games, seed, records, chunk_games)


# -- results ---------------------------------------------------------------------------

HEAD_TO_HEAD_MEANING = (
    "fraction of games in which the row agent's result ({what}) was higher than the "
    "column agent's, ties counting half"
)


@dataclass
class ArenaResult:
    """A run's games and every figure drawn from them."""

    setup: ArenaSetup
    n_games: int
    seed: int
    records: Records
    chunk_games: int = CHUNK_GAMES
    _ratings: list[dict] | None = field(default=None, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        return self.setup.names

    @property
    def n_agents(self) -> int:
        return len(self.setup.specs)

    def _onehot(self) -> np.ndarray:
        return self.records.agent[:, :, None] == np.arange(self.n_agents)

    def _per_agent(self, x: np.ndarray) -> np.ndarray:
        """(games, positions) -> (games, agents): the mean over each agent's seats."""
        m = self._onehot()
        return (x[:, :, None] * m).sum(1) / m.sum(1)

    def agent_values(self) -> np.ndarray:
        """Each game's result per agent: chips (poker) or total score (scorecard)."""
        return self._per_agent(self.records.value)

    def agent_settlements(self) -> np.ndarray:
        """Scorecard games at a table: total minus the table's mean total."""
        totals = self.records.value.astype(np.int64)  # scorecard totals are whole points
        return self._per_agent(settle(totals))  # each game's sum exactly zero

    def agent_wins(self) -> np.ndarray:
        return self._per_agent(self.records.win)

    def _units(self, x: np.ndarray) -> np.ndarray:
        """What the intervals count as independent draws: the games, or with duplicate
        deals the means of the blocks of ``players`` games (one deal, every rotation),
        whose games share their cards and are not independent of each other."""
        if not self.setup.duplicate:
            return x
        return x.reshape(-1, self.setup.players, *x.shape[1:]).mean(axis=1)

    def _rate_interval(self, shares: np.ndarray) -> tuple[float, float]:
        """95% interval of a rate from per-game shares in 0..1: Wilson over the games, or
        with duplicate deals the normal interval over the blocks (within 0..1)."""
        if not self.setup.duplicate:
            return wilson_interval(float(shares.sum()), len(shares))
        _, lo, hi = mean_interval(self._units(shares))
        return (max(lo, 0.0), min(hi, 1.0))

    def head_to_head(self) -> dict:
        """Pairwise: ``rate[a][b]``, how often agent a's result beat agent b's (ties half),
        and ``difference[a][b]``, the mean of a's result minus b's in the same games (on
        the same dice for the scorecard games), each with its 95% interval."""
        v = self.agent_values()
        k = v.shape[1]
        ahead = (v[:, :, None] > v[:, None, :]) + 0.5 * (v[:, :, None] == v[:, None, :])
        rate = ahead.mean(axis=0)
        nan2 = (float("nan"), float("nan"))
        rate_ci = [
            [self._rate_interval(ahead[:, a, b]) if a != b else nan2 for b in range(k)]
            for a in range(k)
        ]
        diff = np.full((k, k), np.nan)
        diff_ci = [[nan2] * k for _ in range(k)]
        for a, b in itertools.permutations(range(k), 2):
            mean, lo, hi = mean_interval(self._units(v[:, a] - v[:, b]))
            diff[a, b], diff_ci[a][b] = mean, (lo, hi)
        np.fill_diagonal(rate, np.nan)
        what = "total score on the same dice" if self.setup.scorecard else "chips won"
        return {
            "meaning": HEAD_TO_HEAD_MEANING.format(what=what),
            "difference_meaning": f"mean of the row agent's {what} minus the column agent's",
            "agents": list(self.names),
            "rate": rate.tolist(),
            "ci95": rate_ci,
            "difference": diff.tolist(),
            "difference_ci95": diff_ci,
        }

    def ratings(self) -> list[dict]:
        """openskill Plackett-Luce ratings from every game's ranking, in game order."""
        if self._ratings is None:
            self._ratings = _rate(self.names, self.agent_values())
        return self._ratings

    def summary(self) -> list[dict]:
        """One dict per agent: every figure with its 95% interval."""
        v = self.agent_values()
        w = self.agent_wins()
        n = len(v)
        ratings = self.ratings()
        rec = self.records
        out = []
        for a, name in enumerate(self.names):
            wins = float(w[:, a].sum())
            lo, hi = self._rate_interval(w[:, a])
            row: dict = {
                "agent": name,
                "spec": self.setup.specs[a] if isinstance(self.setup.specs[a], str) else name,
                "games": n,
                "seats_per_game": self.setup.entries.count(a),
                "win_rate": wins / n,
                "win_rate_ci95": [lo, hi],
            }
            mean, lo, hi = mean_interval(self._units(v[:, a]))
            if self.setup.scorecard:
                held = rec.agent == a
                seat_values = rec.value[held]  # sd, min and max of single games, not means
                row.update(
                    mean_score=mean,
                    mean_score_ci95=[lo, hi],
                    sd=float(seat_values.std(ddof=1)) if seat_values.size > 1 else float("nan"),
                    min=float(seat_values.min()),
                    max=float(rec.value[held].max()),
                    bonus_rate=float((rec.bonus[held] > 0).mean()),
                )
                if not self.setup.solo:
                    s_mean, s_lo, s_hi = mean_interval(self.agent_settlements()[:, a])
                    row.update(settlement=s_mean, settlement_ci95=[s_lo, s_hi])
            else:
                row.update(chips_per_game=mean, chips_per_game_ci95=[lo, hi])
                by_pos = []
                for p in range(self.setup.n_positions):
                    held = rec.agent[:, p] == a
                    k = int(held.sum())
                    pw = float(rec.win[held, p].sum())
                    by_pos.append(
                        {
                            "position": p + 1,
                            "games": k,
                            "win_rate": pw / k if k else float("nan"),
                            "win_rate_ci95": list(wilson_interval(pw, k)),
                            "chips_per_game": float(rec.value[held, p].mean()) if k else 0.0,
                        }
                    )
                row["by_position"] = by_pos
            if ratings:
                row.update(ratings[a])
            out.append(row)
        return out

    def to_json(self) -> dict:
        s = self.setup
        return {
            "game": s.game,
            "agents": list(self.names),
            "players": s.players,
            "games": self.n_games,
            "seed": self.seed,
            "rules": s.rule_options,
            "chunk_games": self.chunk_games,
            "seating": "specs fill the seats cyclically; every circular order, rotated",
            "duplicate": s.duplicate,
            "intervals": (
                "95%: mean ± 1.96 standard errors over duplicate blocks (one deal, every "
                "rotation of the seats) for rates and means"
                if s.duplicate
                else "95%: Wilson for rates, mean ± 1.96 standard errors for means"
            ),
            "rating": "openskill PlackettLuce, game by game; ordinal = mu - 3 sigma",
            "summary": self.summary(),
            "head_to_head": self.head_to_head(),
        }

    def csv_rows(self) -> list[dict]:
        """The summary flattened for a CSV file (one row per agent)."""
        rows = []
        for row in self.summary():
            flat = {}
            for k, v in row.items():
                if k == "by_position":
                    for pos in v:
                        flat[f"pos{pos['position']}_win_rate"] = pos["win_rate"]
                        flat[f"pos{pos['position']}_chips_per_game"] = pos["chips_per_game"]
                elif isinstance(v, list):
                    flat[f"{k}_lo"], flat[f"{k}_hi"] = v
                else:
                    flat[k] = v
            rows.append(flat)
        return rows

    def markdown(self) -> str:
        """The summary and head-to-head tables in markdown."""
        s = self.setup
        summary = self.summary()
        rated = bool(self.ratings())
        if s.scorecard:
            head = ["agent", "mean score (95% CI)", "sd", "min", "max"]
            if not s.solo:
                head.append("settlement (95% CI)")
            head.append("best score (95% CI)" if s.solo else "win rate (95% CI)")
        else:
            head = ["agent", "win rate (95% CI)"]
            head += [f"pos {p + 1}" for p in range(s.n_positions)]
            head.append("chips/game (95% CI)")
        if rated:
            head.append("rating μ ± σ (ordinal)")
        lines = [_md_row(head), "|" + "---|" * len(head)]
        for row in summary:
            cells = [row["agent"]]
            if s.scorecard:
                cells += [
                    _ci(row["mean_score"], row["mean_score_ci95"], "{:.2f}"),
                    f"{row['sd']:.1f}",
                    f"{row['min']:.0f}",
                    f"{row['max']:.0f}",
                ]
                if not s.solo:
                    cells.append(_ci(row["settlement"], row["settlement_ci95"], "{:+.2f}"))
                cells.append(_ci(row["win_rate"], row["win_rate_ci95"], "{:.3f}"))
            else:
                cells.append(_ci(row["win_rate"], row["win_rate_ci95"], "{:.3f}"))
                cells += [f"{p['win_rate']:.3f}" for p in row["by_position"]]
                cells.append(_ci(row["chips_per_game"], row["chips_per_game_ci95"], "{:+.3f}"))
            if rated:
                cells.append(f"{row['mu']:.2f} ± {row['sigma']:.2f} ({row['ordinal']:.2f})")
            lines.append(_md_row(cells))
        if s.solo:
            lines.append(
                "\n'best score': share of games in which the agent's total was the highest "
                "on the same dice (ties shared)."
            )
        if self.n_agents > 1:
            h2h = self.head_to_head()
            lines += ["", f"Head to head: {h2h['meaning']}.", ""]
            lines.append(_md_row(["", *self.names]))
            lines.append("|" + "---|" * (self.n_agents + 1))
            for a, name in enumerate(self.names):
                cells = [name]
                for b in range(self.n_agents):
                    lo, hi = h2h["ci95"][a][b]
                    r = h2h["rate"][a][b]
                    cells.append("-" if a == b else f"{r:.3f} ({lo:.3f}-{hi:.3f})")
                lines.append(_md_row(cells))
            if s.scorecard:  # common dice make the paired difference far tighter
                lines += ["", f"Score difference: {h2h['difference_meaning']} (95% CI).", ""]
                lines.append(_md_row(["", *self.names]))
                lines.append("|" + "---|" * (self.n_agents + 1))
                for a, name in enumerate(self.names):
                    cells = [name]
                    for b in range(self.n_agents):
                        d, (lo, hi) = h2h["difference"][a][b], h2h["difference_ci95"][a][b]
                        cells.append("-" if a == b else _ci(d, (lo, hi), "{:+.2f}"))
                    lines.append(_md_row(cells))
        return "\n".join(lines)

    def chart(self, path: str | os.PathLike) -> None:
        """PNG: win rate by position (poker) or score distributions (scorecard)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        s = self.setup
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
        if s.scorecard:
            rec = self.records
            values = [rec.value[rec.agent == a] for a in range(self.n_agents)]
            lo = min(v.min() for v in values)
            hi = max(v.max() for v in values)
            bins = np.linspace(lo, hi + 1, 60)
            for name, v in zip(self.names, values, strict=True):
                line = ax.hist(v, bins=bins, histtype="step", linewidth=1.5, label=name)
                ax.axvline(v.mean(), linestyle="--", linewidth=1, color=line[2][0].get_edgecolor())
            ax.set_xlabel("total score (dashed: mean)")
            ax.set_ylabel("games")
            ax.set_title(f"{s.game}: score distribution, {self.n_games} games, seed {self.seed}")
        else:
            width = 0.8 / self.n_agents
            xs = np.arange(s.n_positions)
            for a, row in enumerate(self.summary()):
                rates = [p["win_rate"] for p in row["by_position"]]
                err = np.array(
                    [
                        [
                            p["win_rate"] - p["win_rate_ci95"][0],
                            p["win_rate_ci95"][1] - p["win_rate"],
                        ]
                        for p in row["by_position"]
                    ]
                ).T
                ax.bar(
                    xs + (a - (self.n_agents - 1) / 2) * width,
                    rates,
                    width,
                    yerr=err,
                    capsize=2,
                    label=row["agent"],
                )
            ax.axhline(1 / s.players, color="grey", linestyle=":", linewidth=1)
            ax.set_xticks(xs, [f"position {p + 1}" for p in xs])
            ax.set_ylabel("win rate (95% CI); dotted: 1/players")
            ax.set_title(
                f"{s.game}, {s.players} players: win rate by position, {self.n_games} games"
            )
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


def _rate(names: Sequence[str], values: np.ndarray) -> list[dict]:
    if len(names) < 2:
        return []
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    # rank = how many agents did strictly better (0 = best); equal results share a rank
    ranks = (values[:, None, :] > values[:, :, None]).sum(axis=2)
    for r in ranks.tolist():
        ratings = [t[0] for t in model.rate([[x] for x in ratings], ranks=r)]
    return [{"mu": x.mu, "sigma": x.sigma, "ordinal": x.ordinal()} for x in ratings]


def _ci(value: float, ci: Sequence[float], fmt: str) -> str:
    lo, hi = ci
    return f"{fmt.format(value)} ({fmt.format(lo)} to {fmt.format(hi)})"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


__all__ = [
    "CHUNK_GAMES",
    "ArenaResult",
    "ArenaSetup",
    "Records",
    "DuplicateDeal",
    "build_agents",
    "check_games",
    "deal_seed",
    "display_name",
    "default_workers",
    "make_setup",
    "mean_interval",
    "play_chunk",
    "run_arena",
    "seat_orders",
    "wilson_interval",
]
