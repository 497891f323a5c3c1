"""THE REGISTRY: one record per game; everything else asks it.

A :class:`Game` says how keyword options become a validated rules object
(:meth:`Game.make_rules`), which keywords are table options rather than rules
(players, seats, opponents, episode, reward scale, rendering), the Gymnasium id
and entry point, the PettingZoo AEC module, the observation :class:`~envs.obs.Layout`
and how a seat's observation is read off a rules-layer game, how one game at a
table is started (seat 0 first) and who won it, the agents written for it, and
what a result is counted in (``"chips"`` or ``"points"``).

Adding a game means writing its rules, observation and wrapper modules and one
:func:`register` call here: ``make_agent``, the arena, ``train/ppo.py`` and the
Gymnasium ids (``import envs``) all read the registry. Entry points and agent
classes are ``"module:attr"`` strings, imported only when used, so this module
imports nothing above the rules and observation layers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

from envs.obs import card_poker as card_obs
from envs.obs import dice_poker as dice_obs
from envs.obs import scorecard as scorecard_obs
from envs.obs.layout import Layout
from envs.rules import scorecard
from envs.rules.card_poker import CardPokerGame, CardPokerRules
from envs.rules.dice_poker import DicePokerGame, DicePokerRules

RESULT_KINDS = ("chips", "points")

# Keyword options of the wrappers that are not rules of the game (agents take only rules).
# What an env does with an illegal action, and its defaults: a table option of every game
# (scalar, AEC, batched and vector envs alike ask illegal_actions() below).
ILLEGAL_MODES = ("raise", "terminate", "penalize")
ILLEGAL_OPTIONS = {"illegal_action": "raise", "illegal_penalty": -1.0, "max_illegal_steps": 100}
DICE_TABLE = (
    "n_players", "opponents", "agent_seat", "first_player", "episode", "render_mode",
    *ILLEGAL_OPTIONS,
)  # fmt: skip
CARD_TABLE = (
    "n_players", "opponents", "agent_seat", "episode", "max_deals", "render_mode",
    *ILLEGAL_OPTIONS,
)  # fmt: skip
SCORECARD_TABLE = ("n_players", "reward", "reward_scale", "render_mode", *ILLEGAL_OPTIONS)
SIX_DICE_ONLY = ("six_dice_low_hands", "pyramid")


@dataclass(frozen=True)
class Game:
    """Everything the layers above the rules need to know about one game."""

    name: str
    result: str  # "chips" (zero-sum betting games) or "points" (scorecard games)
    rule_options: tuple[str, ...]  # keywords make_rules accepts
    table_options: tuple[str, ...]  # keywords of the envs that are not rules
    rules_factory: Callable[..., Any]  # (**validated options) -> rules object
    layout: Callable[[Any, int], Layout]  # (rules, n_players) -> observation layout
    observe: Callable[[Any, int], np.ndarray]  # (rules-layer game, seat) -> observation
    new_game: Callable[[Any, int, np.random.Generator], Any]  # (rules, n_players, rng)
    winners: Callable[[Any], list[int]]  # of a finished game
    gym_id: str
    gym_entry_point: str | Callable[..., Any]  # "module:Class" (or a callable)
    aec_module: str  # module with env(**kwargs), e.g. "envs.multi.dice_poker_v0"
    players: tuple[int, int] = (2, 6)  # seats at one table
    gym_kwargs: Mapping[str, Any] = field(default_factory=dict)  # set by the id
    aec_kwargs: Mapping[str, Any] = field(default_factory=dict)
    agents: Mapping[str, str] = field(default_factory=dict)  # agent name -> "module:Class"
    check_options: Callable[[dict], None] | None = None  # game-level checks before the rules
    # "module:Class" of the batched engine core (envs.batched), built as Class(n, rules, seed,
    # **the table options it lists in table_options); it also gives the id a gym.make_vec
    # vector_entry_point (envs.vector)
    batched_engine: str | None = None
    title: str = ""  # the game's name for people (tables, reports); the name if empty
    short_title: str = ""  # the name on a rendered table or card; the title if empty
    # the table's defaults every wrapper and trainer asks for (not written in signatures)
    default_players: int = 3  # seats at a table of the single-agent and AEC envs
    default_opponents: str = "heuristic"  # agent spec of the single-agent env's opponents
    # other names of the game and of its Gymnasium id, answered as the record itself
    # (games.get, make_agent's game=, gym.make, gym.make_vec); names() lists only ``name``
    aliases: tuple[str, ...] = ()
    gym_aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.result not in RESULT_KINDS:
            raise ValueError(f"result must be one of {RESULT_KINDS}, got {self.result!r}")
        object.__setattr__(self, "gym_kwargs", MappingProxyType(dict(self.gym_kwargs)))
        object.__setattr__(self, "aec_kwargs", MappingProxyType(dict(self.aec_kwargs)))
        object.__setattr__(self, "agents", MappingProxyType(dict(self.agents)))
        if not self.title:
            object.__setattr__(self, "title", self.name)
        if not self.short_title:
            object.__setattr__(self, "short_title", self.title)

    def make_rules(self, **options):
        """The validated rules object of these options.

        An unknown option is a ``TypeError`` naming it and the allowed ones; a
        bad value is a ``ValueError`` naming the key, the value and what is allowed.
        """
        unknown = sorted(set(options) - set(self.rule_options))
        if unknown:
            raise TypeError(
                f"unknown option(s) {unknown} for {self.name}; "
                f"rule options are {list(self.rule_options)}"
            )
        if self.check_options is not None:
            self.check_options(options)
        return self.rules_factory(**options)

    def split_options(self, kwargs: Mapping[str, Any]) -> tuple[dict, dict]:
        """Env keyword arguments as (rule options, table options)."""
        rules = {k: v for k, v in kwargs.items() if k not in self.table_options}
        table = {k: v for k, v in kwargs.items() if k in self.table_options}
        return rules, table

    def observation(self, rules, n_players: int = 1) -> np.ndarray:
        """The observation of seat 0 at the start of a game (its shape and dtype)."""
        return self.observe(self.new_game(rules, n_players, np.random.default_rng(0)), 0)


_REGISTRY: dict[str, Game] = {}


def register(game: Game, *, replace: bool = False) -> Game:
    """Add ``game`` (``replace=True`` to overwrite a record of the same name)."""
    if not replace and game.name in _REGISTRY:
        raise ValueError(f"a game named {game.name!r} is already registered")
    _REGISTRY[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove a game (tests that register a toy game clean up with this)."""
    _REGISTRY.pop(name, None)


def names(*, aliases: bool = False) -> tuple[str, ...]:
    """Every registered game, in registration order; ``aliases=True`` adds each game's
    aliases after its name (what a ``--game`` flag accepts)."""
    if not aliases:
        return tuple(_REGISTRY)
    return tuple(n for name, game in _REGISTRY.items() for n in (name, *game.aliases))


def _find(name: Any) -> Game | None:
    """The one place a game name or alias is resolved: the record, or None."""
    if not isinstance(name, str):
        return None
    if name in _REGISTRY:
        return _REGISTRY[name]
    return next((game for game in _REGISTRY.values() if name in game.aliases), None)


def get(name: str) -> Game:
    """The record of ``name`` or of one of its aliases (``poker_na_kostyah``: the russian
    scorecard game, registered as ``yahtzee``); ``ValueError`` naming the games otherwise."""
    game = _find(name)
    if game is None:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(_REGISTRY)}")
    return game


def by_gym_id(gym_id: str) -> Game:
    """The record of a Gymnasium id or of one of its aliases (``Yahtzee-v0``)."""
    for game in _REGISTRY.values():
        if game.gym_id == gym_id or gym_id in game.gym_aliases:
            return game
    ids = sorted(g.gym_id for g in _REGISTRY.values())
    raise ValueError(f"env id {gym_id!r} is not one of {ids}")


def by_fixed(key: str, value: Any) -> Game:
    """The game whose Gymnasium id fixes ``key`` to ``value`` (``n_dice=6``: dice_poker6,
    ``rules="classic"``: yahtzee_classic): the one reverse lookup of the wrappers that play
    several games. ``ValueError`` naming the values otherwise (the same type: ``5.0`` or
    ``True`` is not a number of dice)."""
    found = {g.gym_kwargs[key]: g for g in _REGISTRY.values() if key in g.gym_kwargs}
    for fixed, game in found.items():
        if type(fixed) is type(value) and fixed == value:
            return game
    raise ValueError(f"{key} must be one of {sorted(found)}, got {value!r}")


def of_kind(result: str) -> tuple[str, ...]:
    """The games whose results are ``"chips"`` or ``"points"``."""
    if result not in RESULT_KINDS:
        raise ValueError(f"result must be one of {RESULT_KINDS}, got {result!r}")
    return tuple(n for n, g in _REGISTRY.items() if g.result == result)


def names_for(rules_type: type) -> tuple[str, ...]:
    """The games whose rules objects are instances of ``rules_type``."""
    return tuple(n for n, g in _REGISTRY.items() if isinstance(g.make_rules(), rules_type))


def rules_for(game: str, rules_type: type, who: str, **options):
    """The validated rules of ``game`` (a name or an alias) for ``who`` (an agent class
    name), which plays only the games whose rules are a ``rules_type``; ``ValueError``
    naming them otherwise."""
    allowed = names_for(rules_type)
    record = _find(game)
    if record is None or record.name not in allowed:
        raise ValueError(f"{who} plays {' or '.join(allowed)}, not {game!r}")
    return record.make_rules(**options)


def scorecard_rules_for(game: str, who: str, **options) -> scorecard.ScorecardRules:
    """:func:`rules_for` of a scorecard game; a ``rules=`` option must name its rule set."""
    named = options.pop("rules", None)
    rules = rules_for(game, scorecard.ScorecardRules, who, **options)
    if named is not None and named != rules.rules:
        raise ValueError(f"game {game!r} plays rules={rules.rules!r}, got rules={named!r}")
    return rules


# -- option checks shared by the wrappers ---------------------------------------------------


def check_id_kwargs(game: Game, kwargs: Mapping[str, Any], gym_id: str | None = None) -> None:
    """A keyword its Gymnasium id fixes (``rules`` of ``PokerNaKostyah-v0``, ``n_dice`` of
    ``DicePoker6-v0``) may only repeat the id's value; ``gym.make`` and ``gym.make_vec``
    both refuse another, naming the id that plays it (``gym_id``: the id, or alias, asked
    for; the game's own id if None)."""
    for key, fixed in game.gym_kwargs.items():
        if key in kwargs and kwargs[key] != fixed:
            other = [g.gym_id for g in _REGISTRY.values() if g.gym_kwargs.get(key) == kwargs[key]]
            elsewhere = f"; {other[0]} plays {key}={kwargs[key]!r}" if other else ""
            raise ValueError(
                f"{gym_id or game.gym_id} is played with {key}={fixed!r}, got {key}={kwargs[key]!r}"
                + elsewhere
            )


def check_whole(key: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as a whole number in ``low..high`` (not a bool, not a float)."""
    if type(value) is not int and not isinstance(value, np.integer):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{key} must be a whole number {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{key} must be {allowed}, got {value!r}")
    return int(value)


def check_positive(key: str, value: Any) -> float:
    """``value`` as a finite number > 0 (an int or float, not a bool), e.g. ``reward_scale``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not np.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{key} must be a positive number, got {value!r}")
    return float(value)


def check_seat(key: str, value: Any, n_players: int, word: str) -> int | str:
    """``value`` is ``word`` (e.g. "random", "roll") or a seat 0..n_players-1 (not a bool)."""
    if value == word and isinstance(value, str):
        return value
    if type(value) is int and 0 <= value < n_players:
        return value
    raise ValueError(f"{key} must be {word!r} or 0..{n_players - 1}, got {value!r}")


@dataclass(frozen=True)
class IllegalActions:
    """What an env does with an illegal action (the options ``illegal_action``,
    ``illegal_penalty`` and ``max_illegal_steps``; :func:`illegal_actions` checks them).

    - ``"raise"`` (default): ``ValueError`` naming the action and the legal ones, the
      state unchanged.
    - ``"terminate"``: the episode ends at once (``terminated``), the offender paid
      ``penalty`` in the env's reward units (points before ``reward_scale``, chips), as
      PettingZoo's ``TerminateIllegalWrapper``; at a betting table the offender also
      forfeits its stake in the game in play (:func:`envs.rules.seats.forfeit`), so an
      illegal action never costs less than folding and the chips stay conserved.
    - ``"penalize"``: the action is ignored (nothing moves), ``penalty`` is paid, and
      ``max_steps`` illegal actions in a row truncate the episode (``truncated``; an
      unfinished game is then not paid: the chips of finished games stand).

    In both modes the step's ``info["illegal_action"]`` is True.
    """

    mode: str = ILLEGAL_OPTIONS["illegal_action"]
    penalty: float = ILLEGAL_OPTIONS["illegal_penalty"]
    max_steps: int = ILLEGAL_OPTIONS["max_illegal_steps"]

    @property
    def raises(self) -> bool:
        return self.mode == "raise"


def illegal_actions(
    illegal_action: Any = ILLEGAL_OPTIONS["illegal_action"],
    illegal_penalty: Any = ILLEGAL_OPTIONS["illegal_penalty"],
    max_illegal_steps: Any = ILLEGAL_OPTIONS["max_illegal_steps"],
) -> IllegalActions:
    """The checked illegal-action options (defaults :data:`ILLEGAL_OPTIONS`); one
    ``ValueError`` naming the bad value and what is allowed otherwise."""
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_MODES:
        raise ValueError(
            f"illegal_action must be one of {list(ILLEGAL_MODES)}, got {illegal_action!r}"
        )
    if (
        isinstance(illegal_penalty, bool)
        or not isinstance(illegal_penalty, int | float | np.integer | np.floating)
        or not np.isfinite(illegal_penalty)
    ):
        raise ValueError(f"illegal_penalty must be a finite number, got {illegal_penalty!r}")
    steps = check_whole("max_illegal_steps", max_illegal_steps, 1)
    return IllegalActions(illegal_action, float(illegal_penalty), steps)


def pop_illegal(options: dict) -> IllegalActions:
    """:func:`illegal_actions` of the illegal-action keys of ``options``, removed from it."""
    return illegal_actions(**{k: options.pop(k) for k in ILLEGAL_OPTIONS if k in options})


# -- the five games -----------------------------------------------------------------------------

_DICE_OPTIONS = tuple(f.name for f in fields(DicePokerRules) if f.name != "n_dice")
_DICE_AGENTS = {
    "heuristic": "agents.heuristic.dice_poker:DicePokerHeuristic",
    "optimal": "agents.optimal.dice_poker:DicePokerOptimal",
}
_YAHTZEE_AGENTS = {
    "heuristic": "agents.heuristic.scorecard:YahtzeeHeuristic",
    "optimal": "agents.optimal.scorecard:YahtzeeOptimal",
}


def _five_dice_only(options: dict) -> None:
    # A six-dice option at its default changes nothing and is let through, so the
    # options of a DicePokerRules (e.g. its hand_variant) can be passed back as they are.
    defaults = DicePokerRules()
    six = sorted(k for k in SIX_DICE_ONLY if k in options and options[k] != getattr(defaults, k))
    if six:
        raise ValueError(
            f"option(s) {six} apply to six dice only (dice_poker6), not to dice_poker; "
            f"five-dice options are {[o for o in _DICE_OPTIONS if o not in SIX_DICE_ONLY]}"
        )


def _dice_game(name: str, n_dice: int, gym_id: str) -> Game:
    short = "Prison dice poker"  # a rendered table's header adds the dice
    return Game(
        name=name,
        title=f"{short}, {n_dice} dice",
        short_title=short,
        result="chips",
        rule_options=_DICE_OPTIONS,
        table_options=DICE_TABLE,
        rules_factory=lambda **o: DicePokerRules(n_dice=n_dice, **o),
        layout=lambda rules, n_players=1: dice_obs.layout(rules.n_dice),
        observe=dice_obs.observe,
        new_game=lambda rules, n, rng: DicePokerGame(range(n), rng, rules),
        winners=lambda game: [game.winner],
        gym_id=gym_id,
        gym_entry_point="envs.dice_poker:DicePokerEnv",
        gym_kwargs={"n_dice": n_dice},
        aec_module="envs.multi.dice_poker_v0",
        aec_kwargs={"n_dice": n_dice},
        agents=_DICE_AGENTS,
        check_options=_five_dice_only if n_dice == 5 else None,
        batched_engine="envs.batched.dice_poker:BatchedDicePokerSingle",
    )


def _scorecard_game(
    name: str, rule_set: str, gym_id: str, title: str, short: str, **aliases
) -> Game:
    return Game(
        name=name,
        **aliases,
        title=title,
        short_title=short,
        default_players=2,  # the AEC table; the single-agent env plays one card
        result="points",
        rule_options=scorecard.OPTION_NAMES,
        table_options=SCORECARD_TABLE,
        rules_factory=lambda **o: scorecard.make_rules(rule_set, **o),
        layout=lambda rules, n_players=1: scorecard_obs.layout(rules, n_players),
        observe=lambda game, seat=0: scorecard_obs.observe(game),
        new_game=lambda rules, n, rng: scorecard.ScorecardGame(rng, rules),
        winners=lambda game: [0],
        gym_id=gym_id,
        gym_entry_point="envs.scorecard:YahtzeeEnv",
        gym_kwargs={"rules": rule_set},
        aec_module="envs.multi.yahtzee_v0",
        aec_kwargs={"rules": rule_set},
        players=(1, 6),
        agents=_YAHTZEE_AGENTS,
        batched_engine="envs.batched.scorecard:BatchedScorecard",
    )


register(_dice_game("dice_poker", 5, "DicePoker-v0"))
register(_dice_game("dice_poker6", 6, "DicePoker6-v0"))
register(
    _scorecard_game(
        "yahtzee",
        "russian",
        "PokerNaKostyah-v0",
        "Покер на костях (russian scorecard game)",
        "Покер на костях",
        # The old id and the unambiguous name, answered as the record itself: the owner's
        # configs, committed models and run folders say Yahtzee-v0; the registered name stays
        # "yahtzee", the prefix of the committed run folders ({game}__{config}__{seed}).
        aliases=("poker_na_kostyah",),
        gym_aliases=("Yahtzee-v0",),
    )
)
register(
    _scorecard_game(
        "yahtzee_classic", "classic", "YahtzeeClassic-v0", "Classic Yahtzee", "Classic Yahtzee"
    )
)
register(
    Game(
        name="card_poker",
        title="Card poker",
        result="chips",
        rule_options=tuple(f.name for f in fields(CardPokerRules)),
        table_options=CARD_TABLE,
        rules_factory=CardPokerRules,
        layout=lambda rules, n_players: card_obs.layout(rules.deck_cards.size, n_players),
        observe=card_obs.observe,
        new_game=lambda rules, n, rng: CardPokerGame(n, rng, rules),  # seat 0 first
        winners=lambda game: list(game.showdown.winners),
        gym_id="CardPoker-v0",
        gym_entry_point="envs.card_poker:CardPokerEnv",
        aec_module="envs.multi.card_poker_v0",
        agents={
            "heuristic": "agents.heuristic.card_poker:CardPokerCareful",
            "careful": "agents.heuristic.card_poker:CardPokerCareful",
            "bluffer": "agents.heuristic.card_poker:CardPokerBluffer",
            "quick": "agents.heuristic.card_poker_batch:CardPokerQuick",
        },
        batched_engine="envs.batched.card_poker:BatchedCardPokerTable",
    )
)

BUILT_IN: tuple[str, ...] = names()


def kind_of(name: str) -> str:
    """``"chips"`` or ``"points"``."""
    return get(name).result


__all__ = [
    "BUILT_IN",
    "ILLEGAL_MODES",
    "ILLEGAL_OPTIONS",
    "RESULT_KINDS",
    "Game",
    "IllegalActions",
    "by_fixed",
    "by_gym_id",
    "check_id_kwargs",
    "check_positive",
    "check_seat",
    "check_whole",
    "get",
    "illegal_actions",
    "kind_of",
    "names",
    "names_for",
    "of_kind",
    "pop_illegal",
    "register",
    "rules_for",
    "scorecard_rules_for",
    "unregister",
]
