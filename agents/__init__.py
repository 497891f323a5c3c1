"""Agents: ``make_agent(spec, game, **rules)`` builds any player of any game.

Specs: ``"random"``, ``"heuristic"``, ``"optimal"`` and the other names in
:data:`AGENTS`, or ``"ppo:path/to/model.zip"`` for a trained model. ``rules``
are the game's rule options (the same keyword arguments as the env), so an
agent judges hands the way the table does.
"""

from __future__ import annotations

from importlib import import_module

from agents.base import Agent

GAMES = ("dice_poker", "dice_poker6", "yahtzee", "yahtzee_classic", "card_poker")

# name -> game -> "module:Class"; "*" serves every game. Classes are imported
# lazily so that asking for one game's agent never loads another's solver.
AGENTS: dict[str, dict[str, str]] = {
    "random": {"*": "agents.random_agent:RandomAgent"},
    "heuristic": {
        "dice_poker": "agents.heuristic.dice_poker:DicePokerHeuristic",
        "dice_poker6": "agents.heuristic.dice_poker:DicePokerHeuristic",
        "yahtzee": "agents.heuristic.yahtzee:YahtzeeHeuristic",
        "yahtzee_classic": "agents.heuristic.yahtzee:YahtzeeHeuristic",
        "card_poker": "agents.heuristic.card_poker:CardPokerCareful",
    },
    "careful": {"card_poker": "agents.heuristic.card_poker:CardPokerCareful"},
    "bluffer": {"card_poker": "agents.heuristic.card_poker:CardPokerBluffer"},
    "optimal": {
        "dice_poker": "agents.optimal.dice_poker:DicePokerOptimal",
        "dice_poker6": "agents.optimal.dice_poker:DicePokerOptimal",
        "yahtzee": "agents.optimal.yahtzee:YahtzeeOptimal",
        "yahtzee_classic": "agents.optimal.yahtzee:YahtzeeOptimal",
    },
}


def _load(path: str) -> type[Agent]:
    module, cls = path.split(":")
    return getattr(import_module(module), cls)


def make_agent(spec: str | Agent, game: str, **rules) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (one of :data:`GAMES`)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {GAMES}")
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string or an Agent, got {spec!r}")
    if spec.startswith("ppo:"):
        return _load("agents.ppo:PPOAgent")(spec[4:], game=game, **rules)
    if spec not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}; choose one of {sorted(AGENTS)} or 'ppo:PATH'")
    by_game = AGENTS[spec]
    path = by_game.get(game, by_game.get("*"))
    if path is None:
        raise ValueError(
            f"agent {spec!r} does not exist for game {game!r}; it plays {sorted(by_game)}"
        )
    return _load(path)(game=game, **rules)


__all__ = ["AGENTS", "GAMES", "Agent", "make_agent"]
