"""Tables whose opponents are given as agent specs, resolved here: one floor above the envs.

The envs take Agents (the single-agent tables) and batched policies (the batched engines)
only. A spec string such as ``"heuristic"``, ``"optimal"``, ``"quick"`` or ``"ppo:PATH"``
becomes an Agent here, with :func:`agents.make_agent`, for the id's game and rule options.

``gym.make(id, opponents="heuristic")``, ``gym.make_vec(id, ...)`` and the RLlib creator
reach :func:`seat_options` through the entry points ``import envs`` registers, which name
it as a ``"module:attr"`` string (as Gymnasium's entry points do), so the envs import
nothing of this layer. :class:`BatchedVecEnv`, :func:`make_engine` and :func:`play_games`
are the batched front doors of :mod:`envs.vector` with the specs resolved first;
:func:`record_game` records a game of agents named by their specs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent, make_agent
from envs import games
from envs import vector as _vector


def _game_rules(record: games.Game, options: dict) -> dict:
    """The rule options in ``options`` (not the table options, not those the id fixes),
    checked as the env checks them, so a bad rule is the env's own error."""
    rules, _ = record.split_options(options)
    rules = {k: v for k, v in rules.items() if k not in record.gym_kwargs}
    record.make_rules(**rules)
    return rules


def seat_options(env_id: str, options: dict, batched: bool = False) -> dict:
    """``options`` of ``env_id`` with the opponents' agent specs as Agents.

    The default opponents are the registry's (``default_opponents``). A single-agent table
    gets one Agent per opponent seat (``gym.make(id, opponents="heuristic")`` with three
    players: two heuristic agents, each with its own Generator); a batched engine gets one
    Agent per distinct name (the engine asks an object once for all its seats). Anything
    that is not a string is left for the env to take or refuse. A game without opponents
    (the scorecard games) is left as it is.
    """
    record = games.by_gym_id(env_id)
    out = dict(options)
    if "opponents" not in record.table_options:
        return out
    spec = out.get("opponents", record.default_opponents)
    if not (
        isinstance(spec, str)
        or (isinstance(spec, list | tuple) and any(isinstance(s, str) for s in spec))
    ):
        return out
    rules = _game_rules(record, out)
    made: dict[str, Agent] = {}

    def one(s: Any) -> Any:
        if not isinstance(s, str):
            return s
        if not batched:
            return make_agent(s, record.name, **rules)
        if s not in made:
            made[s] = make_agent(s, record.name, **rules)
        return made[s]

    if isinstance(spec, list | tuple):
        out["opponents"] = [one(s) for s in spec]
        return out
    n_players = out.get("n_players", record.default_players)
    if batched or type(n_players) is not int or n_players < 2:
        out["opponents"] = one(spec)  # a bad n_players is the env's error to name
    else:
        out["opponents"] = [one(spec) for _ in range(n_players - 1)]
    return out


def make_engine(env_id: str, num_envs: int, seed: int | None = None, **options):
    """:func:`envs.vector.make_engine` with the opponents' specs resolved."""
    return _vector.make_engine(env_id, num_envs, seed, **seat_options(env_id, options, True))


class BatchedVecEnv(_vector.BatchedVecEnv):
    """:class:`envs.vector.BatchedVecEnv` (an SB3 ``VecEnv``) with the opponents' specs
    resolved."""

    def __init__(self, env_id: str, num_envs: int, seed: int | None = None, **options) -> None:
        super().__init__(env_id, num_envs, seed, **seat_options(env_id, options, True))


def play_games(
    act_batch, env_id: str, n_games: int, seed: int = 0, stats: dict | None = None, **options
):
    """:func:`envs.vector.play_games` with the opponents' specs resolved."""
    options = seat_options(env_id, options, True)
    return _vector.play_games(act_batch, env_id, n_games, seed, stats, **options)


def _seated(game: str, agents: Sequence, players: int | None, rules: dict):
    """Seat ``k`` plays ``agents[k % len(agents)]`` (specs or Agents), each seat its own
    Agent: (the Agents, their names in the picture by :func:`agents.arena.display_name`)."""
    from agents.arena import display_name

    if not agents:
        raise ValueError("record_game needs at least one agent")
    n = len(agents) if players is None else players
    specs = [agents[k % len(agents)] for k in range(n)] if isinstance(n, int) else list(agents)
    built = [make_agent(s, game, **rules) for s in specs]
    return built, {k: display_name(s) for k, s in enumerate(specs)}


def game_frames(
    game: str, agents: Sequence, players: int | None = None, seed: int = 0, **rules
) -> list[np.ndarray]:
    """:func:`envs.render.record.game_frames` of ``agents`` given as specs or Agents."""
    built, labels = _seated(game, agents, players, rules)
    return _drawing().game_frames(game, built, players, seed, labels=labels, **rules)


def record_game(
    game: str, agents: Sequence, path: str | os.PathLike, players: int | None = None, **options
) -> Path:
    """Record one game of ``game`` played by ``agents`` (specs or Agents) as a GIF or MP4:
    :func:`envs.render.record.record_game` (``seed``, ``fps`` and the rule options are
    its own), each seat its own Agent."""
    rules = {k: v for k, v in options.items() if k not in ("seed", "fps")}
    built, labels = _seated(game, agents, players, rules)
    return _drawing().record_game(game, built, path, players, labels=labels, **options)


__all__ = [
    "BatchedVecEnv",
    "game_frames",
    "make_engine",
    "play_games",
    "record_game",
    "seat_options",
]


def _drawing():
    """envs.render.record, imported when a game is drawn: building an env loads no drawing
    code (tests/envs/test_render.py)."""
    from envs.render import record

    return record
