"""Play any of the games in the terminal against agents, with an optional coach.

    python tools/play.py --game dice_poker                      # you + two heuristic players
    python tools/play.py --game dice_poker6 --opponents optimal,random --coach
    python tools/play.py --game yahtzee --opponents none --coach  # the scorecard game alone
    python tools/play.py --game yahtzee_classic --opponents heuristic --games 2
    python tools/play.py --game card_poker --players 4 --games 5 --rule deck=54

Moves are typed: ``hold 5 5`` / ``reroll 2 3`` / ``stand`` (dice poker), ``keep 6 6 6`` /
``reroll 1 2`` / ``fill sixes`` (scorecard games), ``discard 1 4`` / ``bid 3`` / ``reveal``
/ ``pass`` (card poker). Dice are named by their faces. ``help`` lists the commands,
``moves`` the legal moves now, ``show`` redraws the table, ``quit`` leaves.

``--coach`` judges each of your decisions against the exact player where one exists:
dice poker shows the optimal move and each move's chance to win the pot (with everyone
after you playing optimally), the scorecard games the optimal move and each move's
expected final score; card poker has no exact player.

The program is a function of its input: :func:`main` takes ``argv``, an input function
and an output stream, so tests drive it with scripted moves; a given ``--seed`` replays
the same dice, cards and agent choices. This file is the command line, the setup and the
run loop; the tables, the coach and the console are in ``train/playing/``, and
:func:`game_rules` is the one place that builds a game's rules from ``--rule`` options.
"""

from __future__ import annotations

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from agents import make_agent
from envs import games as registry
from envs.cli import add_rule_argument, parse_rule_options
from envs.rules.card_poker import CardPokerRules
from envs.rules.dice_poker import DicePokerRules
from envs.rules.scorecard import ScorecardRules
from tools.playing.base import MoveError, Quit, SetupError, Table
from tools.playing.card_poker import CardPokerTable
from tools.playing.coach import (
    Coach,
    DicePokerCoach,
    ScorecardCoach,
    build_coach,
    solving_note,
)
from tools.playing.console import (
    HELP_WORDS,
    MOVES_WORDS,
    QUIT_WORDS,
    SHOW_WORDS,
    Console,
)
from tools.playing.dice_poker import DicePokerTable
from tools.playing.scorecard import ScorecardTable

# the table of each kind of rules object (a new game with new kinds of rules brings its table)
TABLES: dict[type, type[Table]] = {
    DicePokerRules: DicePokerTable,
    ScorecardRules: ScorecardTable,
    CardPokerRules: CardPokerTable,
}
# players when one opponent spec is given without --players: three at a betting table
# (the envs' default), you and one other at a scorecard game
DEFAULT_PLAYERS = {"chips": 3, "points": 2}


def parse_rules(items: Sequence[str], game: str | None = None) -> dict:
    """``["key=value", ...]`` -> ``{key: parsed value}`` (:func:`envs.cli.parse_rule_options`).

    With ``game``, only its rule options (the registry's) are allowed; an option that the
    game itself fixes (``n_dice`` of the dice games, ``rules`` of the scorecard games)
    is named as such.
    """
    allowed = None
    if game is not None:
        try:
            record = registry.get(game)
        except ValueError as e:
            raise SetupError(str(e)) from None
        allowed = record.rule_options
        for item in items:
            key = item.partition("=")[0].strip()
            if key in record.gym_kwargs:
                raise SetupError(
                    f"--rule {key}: {key} comes with --game ({game} is "
                    f"{key}={record.gym_kwargs[key]!r})"
                )
    try:
        return parse_rule_options(items, allowed)
    except ValueError as e:
        raise SetupError(f"--rule: {e}") from None


def game_rules(game: str, options: dict):
    """The rules object of ``game`` with ``options``, checked: the registry's
    :meth:`~envs.games.Game.make_rules` (the one place play builds them), which names a
    bad option and the allowed ones."""
    return registry.get(game).make_rules(**options)


def table_class(rules) -> type[Table]:
    """The table that plays games of ``rules``."""
    for kind, table in TABLES.items():
        if isinstance(rules, kind):
            return table
    raise SetupError(f"train/playing has no table for {type(rules).__name__}")


def _opponent_specs(game: str, opponents: str, players: int | None) -> list[str]:
    record = registry.get(game)
    specs = [] if opponents.strip().lower() in ("none", "") else opponents.split(",")
    specs = [s.strip() for s in specs]
    if players is None:
        players = DEFAULT_PLAYERS[record.result] if len(specs) == 1 else len(specs) + 1
        if not specs:
            players = 1
    if len(specs) == 1:  # one spec serves every opponent seat (none when alone)
        specs = specs * (players - 1)
    if players != len(specs) + 1:
        raise SetupError(
            f"--players {players} needs {players - 1} opponents, but --opponents lists "
            f"{len(specs)} ({opponents!r}); give one spec for all or one per seat"
        )
    low, high = record.players
    if not low <= players <= high:
        what = f"{low}-{high}" + (" (1 = alone)" if low == 1 else "")
        raise SetupError(f"{record.title} takes {what} players, got {players}")
    return specs


def build_table(
    game: str,
    opponents: str = "heuristic",
    players: int | None = None,
    seat: int = 0,
    seed: int = 0,
    games: int = 1,
    rules: dict | None = None,
    say: Callable[..., None] | None = None,
) -> Table:
    """The table of ``game`` with the person at ``seat``; SetupError explains bad options.

    ``say`` hears a note before a slow first solve of the optimal scorecard player.
    """
    try:
        game = registry.get(game).name  # an alias plays as the registered name
    except ValueError as e:
        raise SetupError(str(e)) from None
    if games < 1:
        raise SetupError(f"--games must be at least 1, got {games}")
    rules = dict(rules or {})
    specs = _opponent_specs(game, opponents, players)
    n = len(specs) + 1
    if seat not in range(n):
        raise SetupError(f"--seat must be 0..{n - 1} with {n} players, got {seat}")
    if not isinstance(seed, int) or seed < 0:
        raise SetupError(f"--seed must be a whole number >= 0, got {seed}")
    try:
        rule_set = game_rules(game, rules)
        others = [s for s in range(n) if s != seat]
        if "optimal" in specs:
            solving_note(rule_set, game, say)
        agents = {s: make_agent(spec, game, **rules) for s, spec in zip(others, specs, strict=True)}
        rng = np.random.default_rng(seed)
        for s in others:  # seeded from the table's generator, as the envs do
            agents[s].seed(int(rng.integers(2**63)))
        # the deal or first roll happens here: a rule set that cannot start a game
        # (card poker stacks below the ante) fails now, not mid-game
        table = table_class(rule_set)(game, rule_set, seat, agents, rng, games)
    except (TypeError, ValueError, FileNotFoundError) as e:
        raise SetupError(str(e)) from None
    check_models(table)
    return table


def check_models(table: Table) -> None:
    """A trained model seated at a game it was not trained for fails before play starts.

    A model fixes the size of its observation and of its action space (card poker's
    observation grows with the seats); the table's must match, as the arena checks.
    """
    for seat, agent in table.agents.items():
        model = getattr(agent, "model", None)
        if model is None:
            continue
        shape = table.observation(seat).shape
        n_actions = len(table.mask())
        if tuple(model.observation_space.shape) != shape or model.action_space.n != n_actions:
            raise SetupError(
                f"agent {agent.name!r} was trained on observations of shape "
                f"{tuple(model.observation_space.shape)} and {model.action_space.n} actions, but "
                f"{table.game} with {table.n_players} players gives {shape} and {n_actions}: "
                "a different game, variant or number of players?"
            )


def play_move(table: Table, action: int, console: Console, recorder=None) -> None:
    """Play ``action`` for the player to act, tell what happened, and add a picture."""
    table.last = (table.current_seat, action)
    console.say(*table.step(action))
    if recorder is not None:
        recorder.add(table.frame())


def human_turn(table: Table, console: Console, coach: Coach | None, recorder=None) -> None:
    """Show the table, read moves until one is legal, play it, and let the coach judge it."""
    console.say("", table.view())
    while True:
        line = console.ask("> ")
        words = line.strip().lower().split()
        if not words:
            continue
        if words[0] in QUIT_WORDS:
            raise Quit("You left the game.")
        if words[0] in HELP_WORDS:
            console.say(table.help())
            continue
        if words[0] in MOVES_WORDS:
            console.say(table.moves())
            continue
        if words[0] in SHOW_WORDS:
            console.say(table.view(full=True))
            continue
        try:
            action = table.parse(words)
            if action not in table.legal():  # the parsers check, this guards against slips
                raise MoveError(f"{' '.join(words)!r} is not a legal move now")
        except MoveError as e:
            console.say(f"! {e}")
            continue
        break
    if coach is not None:  # judged before the dice fall: the decision, not the luck
        advice = coach.advise(table)
        console.say(coach.judge(advice, action, table.describe(action)))
    play_move(table, action, console, recorder)


def run(table: Table, console: Console, coach: Coach | None = None, recorder=None) -> None:
    """Play the table to its end: agents move by themselves, the person types.
    ``recorder`` (an ``envs.render.record.VideoRecorder``) gets a picture after each move."""
    if recorder is not None:
        recorder.add(table.frame())
    while not table.done:
        seat = table.current_seat
        if seat == table.human:
            human_turn(table, console, coach, recorder)
        else:
            agent = table.agents[seat]
            action = agent.act(table.observation(seat), table.mask())
            play_move(table, int(action), console, recorder)
    console.say("", *table.summary())
    if coach is not None:
        console.say(*coach.report())


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="play.py",
        description="Play a game of dicepoker-gym in the terminal against agents.",
        epilog="Example: python tools/play.py --game yahtzee --opponents none --coach",
    )
    p.add_argument("--game", default="dice_poker", choices=registry.names(aliases=True))
    p.add_argument(
        "--opponents",
        default="heuristic",
        help="agent spec for every opponent, or a comma-separated list, one per seat "
        "(random, heuristic, optimal, careful, bluffer, ppo:PATH); 'none' to play a "
        "scorecard game alone",
    )
    p.add_argument("--players", type=int, default=None, help="players at the table, you included")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first in seat order)")
    p.add_argument("--seed", type=int, default=None, help="replay the same game (default: new)")
    p.add_argument(
        "--games", type=int, default=1, help="games to play (card poker: deals of a session)"
    )
    p.add_argument("--coach", action="store_true", help="judge each decision with the exact player")
    p.add_argument(
        "--record", type=Path, metavar="OUT.gif|OUT.mp4", help="save the game as a video"
    )
    add_rule_argument(p, example="ante=2")
    return p


def main(
    argv: Sequence[str] | None = None,
    input_fn: Callable[[], str] = input,
    out: TextIO | None = None,
    echo: bool | None = None,
) -> int:
    """Run the program; returns the exit status (0 played or left, 2 bad options)."""
    out = out or sys.stdout
    args = make_parser().parse_args(argv)
    if echo is None:  # show typed moves in the transcript when they come from a file
        echo = input_fn is input and not sys.stdin.isatty()
    console = Console(input_fn, out, echo)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 10**6)
    try:
        try:
            rules = parse_rules(args.rule, args.game)
            table = build_table(
                args.game,
                args.opponents,
                args.players,
                args.seat,
                seed,
                args.games,
                rules,
                say=console.say,
            )
            recorder = None
            if args.record is not None:
                from envs.render.record import VideoRecorder

                try:
                    recorder = VideoRecorder(args.record)
                except ValueError as e:
                    raise SetupError(f"--record: {e}") from None
        except SetupError as e:
            print(f"play.py: error: {e}", file=sys.stderr if out is sys.stdout else out)
            return 2
        console.say(*table.intro())
        console.say(f'Seed {seed} (replay with --seed {seed}). Type "help" for the commands.')
        coach = build_coach(table, console.say) if args.coach else None
        if coach is not None:
            console.say(coach.intro())
            if not isinstance(coach, DicePokerCoach | ScorecardCoach):
                coach = None
        try:
            run(table, console, coach, recorder)
        finally:
            if recorder is not None and recorder.frames:
                console.say(f"Recorded the game: {recorder.close()}")
    except Quit as q:
        console.say(str(q))
    except KeyboardInterrupt:
        console.say("", "Interrupted: leaving the game.")
    return 0


def cli() -> None:
    """The command line (``dicepoker-play``)."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
