"""Agents: ``make_agent(spec, game, **rules)`` builds any player of any game.

Specs: ``"random"``, ``"heuristic"``, ``"optimal"`` and the other names a game
lists in the registry (:mod:`envs.games`, each record's ``agents``), or
``"ppo:path/to/model.zip"`` for a trained model (``"dqn:path/to/model.zip"`` for a
:class:`agents.dqn.MaskableDQN` model, ``"afterstate:path/to/value.pt"`` for a
learned scorecard value network, ``"handvalue:path/to/values.npz"`` for a learned dice-poker
hand-value table, ``"rllib:path"`` for a policy trained by ``train/rllib.py``:
needs the ``[rllib]`` extra, and ray is imported only then). ``rules`` are the game's rule
options (the same keyword arguments as the env), so an agent judges hands the
way the table does.

A ``ppo:`` or ``rllib:`` spec may end with ``?sample`` (draw each action from the model's
masked policy, with the agent's own seeded Generator: :meth:`Agent.seed`) or ``?greedy``
(its most likely legal action): ``"ppo:runs/x/model.zip?sample"``. Without either, a model
plays greedily, except a PPO model of a run whose trainer learns a mixed strategy
(``agents.ppo.MIXED_TRAINERS``: ``train/mmd.py``), which samples.
"""

from __future__ import annotations

from importlib import import_module

from agents.base import Agent, TablePolicy
from envs import games

# Agents that play every game, whatever the registry lists.
UNIVERSAL = {"random": "agents.random_agent:RandomAgent"}


def _agents() -> dict[str, dict[str, str]]:
    """name -> game -> "module:Class" ("*" serves every game), read from the registry."""
    table: dict[str, dict[str, str]] = {name: {"*": path} for name, path in UNIVERSAL.items()}
    for game in games.names():
        for name, path in games.get(game).agents.items():
            table.setdefault(name, {})[game] = path
    return table


def __getattr__(name: str):
    # GAMES and AGENTS are views of the registry, computed when asked so that a game
    # registered later shows up.
    if name == "GAMES":
        return games.names()
    if name == "AGENTS":
        return _agents()
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


def _load(path: str) -> type[Agent]:
    module, cls = path.split(":")
    return getattr(import_module(module), cls)


# Trained agents, spec "PREFIX:PATH": the class, and whether PATH is a file or a folder.
TRAINED = {
    "ppo": ("agents.ppo:PPOAgent", "file"),
    "dqn": ("agents.dqn:DQNAgent", "file"),
    "afterstate": ("agents.afterstate:AfterstateAgent", "file"),
    "handvalue": ("agents.handvalue:HandValueAgent", "file"),
    "rllib": ("agents.rllib:RLlibAgent", "folder"),
}
TRAINED_SPECS = " or ".join(f"'{prefix}:PATH'" for prefix in TRAINED)
# What a trained spec may end with ("ppo:PATH?sample"): option -> the agent's deterministic.
POLICY_OPTIONS = {"greedy": True, "sample": False}
SAMPLING = ("ppo", "rllib")  # the trained agents whose model is a distribution over actions


def split_spec(spec: str) -> tuple[str, str, str | None]:
    """A trained agent's spec as ``(prefix, path, option)``: ``"ppo:m.zip?sample"`` ->
    ``("ppo", "m.zip", "sample")``, option None where there is none; any other spec
    ``(spec, "", None)``. An option a prefix does not take is a ``ValueError``."""
    prefix, _, path = spec.partition(":")
    if not (path and prefix in TRAINED):
        return spec, "", None
    if "?" not in path:
        return prefix, path, None
    path, _, option = path.rpartition("?")
    allowed = " or ".join(f"?{o}" for o in POLICY_OPTIONS)
    if prefix not in SAMPLING:
        raise ValueError(
            f"agent {spec!r}: a {prefix}: spec takes no option ({allowed} are for "
            f"{', '.join(p + ':' for p in SAMPLING)} models)"
        )
    if option not in POLICY_OPTIONS:
        raise ValueError(
            f"agent {spec!r}: unknown option {option!r}; a {prefix}: spec takes {allowed}"
        )
    return prefix, path, option


def make_agent(spec: str | Agent, game: str, **rules) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (a name in :mod:`envs.games`)."""
    record = games.get(game)  # ValueError naming the games
    game = record.name  # an alias (poker_na_kostyah) plays as the registered name
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string or an Agent, got {spec!r}")
    prefix, path, option = split_spec(spec)
    if path:
        try:
            cls = _load(TRAINED[prefix][0])
        except ModuleNotFoundError as err:  # Ray, an optional extra
            raise ValueError(
                f'agent {spec!r} needs Ray RLlib ({err.name} is missing): pip install -e ".[rllib]"'
            ) from None
        if option is not None:
            rules = {**rules, "deterministic": POLICY_OPTIONS[option]}
        return cls(path, game=game, **rules)
    table = _agents()
    if spec not in table:
        raise ValueError(f"unknown agent {spec!r}; choose one of {sorted(table)}, {TRAINED_SPECS}")
    path = record.agents.get(spec, UNIVERSAL.get(spec))
    if path is None:
        raise ValueError(
            f"agent {spec!r} does not exist for game {game!r}; it plays {sorted(table[spec])}"
        )
    return _load(path)(game=game, **rules)


def make_env(env_id: str, opponents=None, **kwargs):
    """``gym.make(env_id, **kwargs)`` with the opponents' agent specs resolved here, one
    floor above the envs: ``opponents`` (a spec such as ``"heuristic"`` or
    ``"ppo:PATH"``, an Agent, or a list of them; default the registry's
    ``default_opponents``) become Agents built by :func:`make_agent` for the id's game and
    rule options, one per seat (:func:`agents.tables.seat_options`, which ``gym.make``'s
    entry point calls too, so the same seed gives the same trajectory). A game without
    opponents (the scorecard games) takes none."""
    import gymnasium as gym

    import envs  # noqa: F401  (registers the ids)
    from agents.tables import seat_options

    record = games.by_gym_id(env_id)
    if "opponents" in record.table_options:
        if opponents is not None:
            kwargs["opponents"] = opponents
        kwargs = seat_options(env_id, kwargs)
    elif opponents is not None:
        raise ValueError(f"{env_id} has no opponents, got opponents={opponents!r}")
    return gym.make(env_id, **kwargs)


__all__ = [
    "AGENTS",
    "GAMES",
    "POLICY_OPTIONS",
    "SAMPLING",
    "TRAINED",
    "UNIVERSAL",
    "Agent",
    "TablePolicy",
    "make_agent",
    "make_env",
    "split_spec",
]
