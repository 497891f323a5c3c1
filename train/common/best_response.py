"""What ``train/best_response.py`` and the benchmarks share (a module, not a script): the
table a best response plays, its config and the frozen agent, checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents import Agent, make_agent
from agents.arena import check_fits, check_spec, display_name
from envs import games
from train.common.config import ConfigError, is_int
from train.common.sb3 import RunConfig, load_env_run, ppo_arguments


def games_with_engine() -> tuple[str, ...]:
    """The betting games (chips) with a batched engine: those a best response can train at."""
    return tuple(n for n in games.of_kind("chips") if games.get(n).batched_engine is not None)


# the run: fields a best response reads (train/ppo.py reads the others)
RUN_FIELDS = (
    "seed",
    "n_envs",
    "total_timesteps",
    "eval_every",
    "eval_episodes",
    "final_eval_episodes",
    "checkpoint_every",
    "torch_threads",
    "out_dir",
)


@dataclass
class Table:
    """What the best response plays: the game, the seats, the frozen agent, the rules."""

    game: str
    players: int
    against: str | Agent
    rules: dict[str, Any]


def load_config(
    name: str,
    game: str | None = None,
    against: str | Agent | None = None,
    players: int | None = None,
    rules: dict[str, Any] | None = None,
    overrides: dict[str, Any] | None = None,
) -> tuple[Table, dict[str, Any], RunConfig]:
    """The table, ``ppo:`` and ``run:`` of training config ``name`` (a ``train/ppo.py``
    config, read and checked by its :func:`train.common.sb3.load_env_run` and
    :func:`train.common.sb3.ppo_arguments`). The config's ``env:`` gives the defaults: its game,
    ``n_players``, ``opponents`` (the frozen agent) and rule options (these only for its
    own game); ``game``, ``against``, ``players`` and ``rules`` replace them, ``overrides``
    (None = keep) replace ``run:`` fields."""
    path, data, env, run = load_env_run(name, overrides, None, ("ppo", "best_response"))
    ppo = data.get("ppo") or {}
    ppo_arguments(ppo)
    own = games.by_gym_id(env.id).name
    game = game or own
    kwargs = env.kwargs if game == own else {}
    record = games.get(game)
    table_rules, _ = record.split_options(kwargs)
    table_rules.pop("n_dice", None)  # set by the game itself (dice_poker, dice_poker6)
    table_rules.update(rules or {})
    if against is None:
        against = kwargs.get("opponents")
        if not isinstance(against, str):
            raise ConfigError(
                f"no frozen agent: give --against (the config's env.kwargs.opponents is "
                f"{against!r})"
            )
    players = players if players is not None else kwargs.get("n_players", record.default_players)
    return Table(game, players, against, table_rules), ppo, run


def frozen_agent(against: str | Agent, game: str, players: int, rules: dict) -> Agent:
    """The frozen player as an Agent, checked against the game and the table's observation."""
    if game not in games_with_engine():
        raise ConfigError(
            f"game {game!r} has no batched betting engine; choose one of "
            f"{', '.join(games_with_engine())}"
        )
    record = games.get(game)
    low, high = record.players
    if not is_int(players) or not max(low, 2) <= players <= high:
        raise ConfigError(f"players must be {max(low, 2)}..{high} for {game}, got {players!r}")
    try:
        record.make_rules(**rules)
        if isinstance(against, str):
            check_spec(against, game)
        agent = make_agent(against, game, **rules)
    except (ValueError, TypeError, FileNotFoundError) as err:
        raise ConfigError(f"--against {display_name(against)!r}: {err}") from None
    try:
        check_fits(agent, game, players, rules, f"--against {display_name(against)!r}")
    except ValueError as err:
        raise ConfigError(str(err)) from None
    return agent
