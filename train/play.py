"""Play any of the games in the terminal against agents, with an optional coach.

    python train/play.py --game dice_poker                      # you + two heuristic players
    python train/play.py --game dice_poker6 --opponents optimal,random --coach
    python train/play.py --game yahtzee --opponents none --coach  # the scorecard game alone
    python train/play.py --game yahtzee_classic --opponents heuristic --games 2
    python train/play.py --game card_poker --players 4 --games 5 --rule deck=54

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
the same dice, cards and agent choices.
"""

from __future__ import annotations

import argparse
import sys
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TextIO

import numpy as np

from agents import GAMES, Agent, make_agent
from envs.cli import parse_rule_options
from envs.rules.card_poker import (
    FIRST_BID,
    HAND_SIZE,
    PASS,
    REVEAL,
    CardPokerGame,
    CardPokerMatch,
    CardPokerRules,
    Phase,
)
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame, DicePokerMatch, DicePokerRules
from envs.rules.scorecard import N_REROLL_ACTIONS, UPPER_ROWS, ScorecardGame, ScorecardRules

GAME_TITLES = {
    "dice_poker": "Prison dice poker, 5 dice",
    "dice_poker6": "Prison dice poker, 6 dice",
    "yahtzee": "Покер на костях (russian scorecard game)",
    "yahtzee_classic": "Classic Yahtzee",
    "card_poker": "Card poker",
}
SCORECARD_RULES = {"yahtzee": "russian", "yahtzee_classic": "classic"}
DEFAULT_PLAYERS = {"dice_poker": 3, "dice_poker6": 3, "card_poker": 3}
# the rule options that change the exact dice poker player (the ante does not)
DICE_VARIANT = (
    "lock_kept_dice",
    "full_house_tiebreak",
    "two_pairs_tiebreak",
    "six_dice_low_hands",
    "pyramid",
)
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")
QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "h", "?")
COMMON_HELP = (
    "  moves        list the legal moves now\n"
    "  show         draw the table again\n"
    "  help         this text\n"
    "  quit         leave the game"
)


class MoveError(ValueError):
    """Input that is not a legal move; the message says why, in one line."""


class SetupError(ValueError):
    """Bad command-line options (unknown game, agent, rule, player count...)."""


class Quit(Exception):
    """The person asked to leave (``quit``) or the input ended."""


# -- small helpers --------------------------------------------------------------------------


def parse_rules(items: Sequence[str]) -> dict:
    """``["key=value", ...]`` -> ``{key: parsed value}`` (:func:`envs.cli.parse_rule_options`)."""
    try:
        return parse_rule_options(items)
    except ValueError as e:
        raise SetupError(f"--rule: {e}") from None


def read_faces(words: Sequence[str]) -> list[int]:
    """Die faces from words such as ``["5", "5"]``, ``["55"]`` or ``["5,5"]``."""
    faces = []
    for word in words:
        for ch in word.replace(",", ""):
            if ch not in "123456":
                raise MoveError(f"dice are named by their faces 1-6, got {word!r}")
            faces.append(int(ch))
    return faces


def take(pool: Sequence[int], faces: Sequence[int], what: str = "") -> list[int]:
    """Indices in ``pool`` of the dice ``faces`` (each die used once); MoveError if missing."""
    left = list(enumerate(pool))
    out = []
    for f in faces:
        hit = next((k for k, (_, d) in enumerate(left) if d == f), None)
        if hit is None:
            have = Counter(pool)[f]
            among = f"among your {what + ' ' if what else ''}dice ({dice_text(pool)})"
            if have == 0:
                raise MoveError(f"there is no {f} {among}")
            many = f"one {f}" if have == 1 else f"{NUMBERS[have]} {f}s"
            raise MoveError(f"there {'is' if have == 1 else 'are'} only {many} {among}")
        out.append(left.pop(hit)[0])
    return out


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice))


def reroll_text(dice: Sequence[int], action: int, keep_word: str) -> str:
    """A re-roll bit set as the command that plays it: ``hold 5 5 (reroll 2 3 6)``."""
    out = [d for i, d in enumerate(dice) if action >> i & 1]
    kept = [d for i, d in enumerate(dice) if not action >> i & 1]
    if not kept:
        return "reroll all"
    return f"{keep_word} {dice_text(kept)} (reroll {dice_text(out)})"


def percent(p: float) -> str:
    return f"{100 * p:.1f}%"


# -- the tables ------------------------------------------------------------------------------


class Table(ABC):
    """One game at a table: the state, the agents' turns, and the person's moves in words.

    ``step`` plays an action for the player to act and returns the lines that tell what
    happened; ``view`` is what the person sees before deciding.
    """

    game: str
    human: int
    labels: dict[int, str]

    @property
    @abstractmethod
    def done(self) -> bool: ...

    @property
    @abstractmethod
    def current_seat(self) -> int: ...

    @abstractmethod
    def observation(self, seat: int) -> np.ndarray: ...

    @abstractmethod
    def mask(self) -> np.ndarray: ...

    @abstractmethod
    def intro(self) -> list[str]: ...

    @abstractmethod
    def view(self, full: bool = False) -> str:
        """What the person sees before deciding; ``full`` also after the turn's first look."""

    @abstractmethod
    def moves(self) -> str:
        """The legal moves now, in the words the person types."""

    @abstractmethod
    def help(self) -> str: ...

    @abstractmethod
    def parse(self, words: list[str]) -> int:
        """The action of a typed move (lower-case words); MoveError when it is not legal."""

    @abstractmethod
    def describe(self, action: int) -> str:
        """An action of the player to act, as the command that plays it."""

    @abstractmethod
    def step(self, action: int) -> list[str]: ...

    @abstractmethod
    def summary(self) -> list[str]: ...

    def legal(self) -> list[int]:
        return np.flatnonzero(self.mask()).tolist()


def _subject(table: Table, seat: int) -> str:
    """The player as the first word of a sentence."""
    return "You" if seat == table.human else table.labels[seat]


def _labels(n_players: int, human: int, agents: dict[int, Agent]) -> dict[int, str]:
    return {s: "you" if s == human else f"{agents[s].name}-{s}" for s in range(n_players)}


class DicePokerTable(Table):
    """Prison dice poker: ``games`` games at one table, chips carried over (RULES.md 1, 2)."""

    def __init__(
        self,
        game: str,
        rules: DicePokerRules,
        human: int,
        agents: dict[int, Agent],
        rng: np.random.Generator,
        games: int = 1,
    ) -> None:
        self.game, self.rules, self.human, self.agents = game, rules, human, agents
        self.n_players = len(agents) + 1
        self.labels = _labels(self.n_players, human, agents)
        self.match = DicePokerMatch(self.n_players, rng, rules, n_games=games)

    # -- state -----------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.match.done

    @property
    def current_seat(self) -> int:
        return self.match.game.current_player

    def observation(self, seat: int) -> np.ndarray:
        from envs.dice_poker import observe

        m = self.match
        return observe(m.game, seat, m.games_left, m.chips[seat])

    def mask(self) -> np.ndarray:
        return self.match.game.action_mask()

    def _chips(self) -> str:
        return ", ".join(f"{self.labels[s]} {c:+d}" for s, c in enumerate(self.match.chips))

    def _hand(self, dice: Sequence[int]) -> str:
        h = self.rules.rank(dice)
        return f"{h.name.replace('_', ' ')} ({h.points})"

    # -- text ------------------------------------------------------------------------------
    def intro(self) -> list[str]:
        m, r = self.match, self.rules
        lines = [
            f"{GAME_TITLES[self.game]} · {self.n_players} players: "
            + ", ".join(
                self.labels[s] + (f" (seat {s})" if s == self.human else "")
                for s in range(self.n_players)
            )
            + f" · {m.n_games} game{'s' if m.n_games > 1 else ''} · ante {r.ante}",
            "Each turn: roll all dice, then re-roll some of them up to twice; the best hand"
            " takes the pot.",
        ]
        if r.lock_kept_dice:
            lines.append(
                "Dice kept after the first roll are frozen: the third roll may only re-roll"
                " dice re-rolled at the second."
            )
        if m.seating_rolls:
            rolls = "; tied highest roll again: ".join(
                ", ".join(f"{self.labels[s]} {f}" for s, f in faces.items())
                for faces in m.seating_rolls
            )
            lines.append(f"Rolling for the first player: {rolls} -> {self.labels[m.first]} starts.")
        return lines

    def view(self, full: bool = False) -> str:
        m, g = self.match, self.match.game
        title = "main round" if g.playoff == 0 else f"play-off {g.playoff}"
        lines = [
            f"-- game {m.games_played + 1}/{m.n_games} · pot {g.pot} · {title} · "
            f"chips: {self._chips()} --"
        ]
        for t in g.rounds[-1]:
            rolls = " -> ".join("".join(map(str, r)) for r in t.rolls)
            if t.hand is not None:
                state = f"{self._hand(t.rolls[-1])}   rolls {rolls}"
            elif t.seat == g.current_player:
                state = "rolling"
            else:
                state = "to roll"
            lines.append(f"  {self.labels[t.seat]:<13} {state}")
        best, count = g.best_so_far()
        if best is not None:
            holders = [
                self.labels[t.seat] for t in g.rounds[-1] if t.hand is not None and t.hand == best
            ]
            lines.append(
                f"Best so far: {best.name.replace('_', ' ')} ({best.points}), "
                f"held by {', '.join(holders)}"
            )
        else:
            lines.append("You roll first in this round.")
        shown = " ".join(f"[{d}]" if z else f" {d} " for d, z in zip(g.dice, g.frozen, strict=True))
        lines.append(
            f"Your dice (roll {g.rolls_used} of {MAX_ROLLS}): {shown}   = {self._hand(g.dice)}"
        )
        if any(g.frozen):
            lines.append("  [d] = frozen: kept after the first roll, it cannot be re-rolled")
        lines.append(self.moves())
        return "\n".join(lines)

    def moves(self) -> str:
        g = self.match.game
        free = [d for d, z in zip(g.dice, g.frozen, strict=True) if not z]
        return (
            f"Moves: stand | hold <dice> | reroll <dice>   (free dice: {dice_text(free)}; "
            f'e.g. "hold {free[-1]}" or "reroll {free[0]}")'
        )

    def help(self) -> str:
        return (
            "Dice poker commands (dice are named by their faces):\n"
            "  stand        keep these dice; your turn ends\n"
            "  hold 5 5     keep the listed dice and re-roll the others (also: keep, h 55)\n"
            "  reroll 2 3   re-roll the listed dice (also: r 23; 'reroll all')\n"
            "Frozen dice [d] stay whatever you type. Hands, best first: poker, four,"
            " full house, three, two pairs, pair, nothing"
            + (
                " (six dice: poker, line, pentagon, pyramid, four, two triples, three plus two,"
                " two plus two, three, pair)"
                if self.rules.n_dice == 6
                else ""
            )
            + "; equal hands compare by points.\n"
            + COMMON_HELP
        )

    # -- moves -----------------------------------------------------------------------------
    def parse(self, words: list[str]) -> int:
        g = self.match.game
        verb, rest = words[0], words[1:]
        free = [i for i, z in enumerate(g.frozen) if not z]
        if verb in ("stand", "s", "stay"):
            if rest:
                raise MoveError("'stand' takes nothing after it")
            return 0
        if verb in ("reroll", "r", "roll", "re-roll"):
            if rest == ["all"]:
                chosen = free
            else:
                faces = read_faces(rest)
                if not faces:
                    raise MoveError("name the dice to re-roll (e.g. 'reroll 2 3'), or 'stand'")
                chosen = [free[k] for k in take([g.dice[i] for i in free], faces, "free")]
            return sum(1 << i for i in chosen)
        if verb in ("hold", "keep", "h", "k"):
            faces = read_faces(rest)
            held = take(g.dice, faces) if faces else []
            # frozen dice are kept anyway; the listed faces use them up first
            kept = set()
            want = Counter(g.dice[i] for i in held)
            for i in sorted(range(len(g.dice)), key=lambda i: not g.frozen[i]):
                if g.frozen[i] or want[g.dice[i]] > 0:
                    kept.add(i)
                    want[g.dice[i]] -= 1
            return sum(1 << i for i in range(len(g.dice)) if i not in kept)
        raise MoveError(f"unknown move {verb!r}: type stand, hold <dice>, reroll <dice> or help")

    def describe(self, action: int) -> str:
        g = self.match.game
        if action == 0:
            return "stand"
        return reroll_text(g.dice, action, "hold")

    def step(self, action: int) -> list[str]:
        m = self.match
        g, seat = m.game, m.game.current_player
        r, i = len(g.rounds) - 1, next(k for k, t in enumerate(g.rounds[-1]) if t.seat == seat)
        before = g.dice
        m.step(action)
        turn = g.rounds[r][i]
        lines = []
        if seat == self.human and action:
            out = [d for k, d in enumerate(before) if action >> k & 1]
            lines.append(f"You re-roll {dice_text(out)} -> {dice_text(turn.rolls[-1])}")
        if turn.hand is not None:
            rolls = " -> ".join("".join(map(str, x)) for x in turn.rolls)
            lines.append(
                f"{_subject(self, seat)} {'finish' if seat == self.human else 'finishes'} with "
                f"{self._hand(turn.rolls[-1])}   (rolls {rolls})"
            )
            lines += self._round_end(g, r)
        return lines

    def _round_end(self, g: DicePokerGame, r: int) -> list[str]:
        lines = []
        if len(g.rounds) > r + 1:
            tied = [self.labels[t.seat] for t in g.rounds[r + 1]]
            tied = ", ".join(tied[:-1]) + " and " + tied[-1]
            lines.append(f"Tie for the best hand: play-off between {tied}.")
        elif g.done:
            lines.append(
                f"{_subject(self, g.winner)} {'win' if g.winner == self.human else 'wins'} "
                f"the pot of {g.pot} chips. Chips: {self._chips()}"
            )
            m = self.match
            if not m.done:
                first = m.game.order[0]
                verb = "start" if first == self.human else "starts"
                lines.append(
                    f"\nGame {m.games_played + 1} of {m.n_games}: {self.labels[first]} {verb}."
                )
        return lines

    def summary(self) -> list[str]:
        m = self.match
        ranked = sorted(range(self.n_players), key=lambda s: -m.chips[s])
        return [
            f"Final chips after {m.games_played} game{'s' if m.games_played > 1 else ''}: "
            + ", ".join(f"{self.labels[s]} {m.chips[s]:+d}" for s in ranked)
        ]


class ScorecardTable(Table):
    """The scorecard games: every player fills their own card, whole turns in seat order."""

    def __init__(
        self,
        game: str,
        rules: ScorecardRules,
        human: int,
        agents: dict[int, Agent],
        rng: np.random.Generator,
        games: int = 1,
    ) -> None:
        self.game, self.rules, self.human, self.agents = game, rules, human, agents
        self.n_players = len(agents) + 1
        self.labels = _labels(self.n_players, human, agents)
        self.rng = rng
        self.n_games = games
        self.games_played = 0
        self.results: list[list[int]] = []
        self._deal()

    def _deal(self) -> None:
        self.cards = [ScorecardGame(self.rng, self.rules) for _ in range(self.n_players)]
        self.seat = 0

    @property
    def done(self) -> bool:
        return self.games_played == self.n_games

    @property
    def current_seat(self) -> int:
        return self.seat

    @property
    def now(self) -> ScorecardGame:
        return self.cards[self.seat]

    def observation(self, seat: int) -> np.ndarray:
        from envs.yahtzee import observe

        return observe(self.cards[seat])

    def mask(self) -> np.ndarray:
        return self.now.action_mask()

    def _row(self, text: str) -> str:
        """A row name from what the person typed: exact, with spaces, or a unique prefix."""
        rows = self.rules.rows
        if text in rows:
            return text
        hits = [r for r in rows if r.startswith(text)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise MoveError(f"{text!r} could be {', '.join(hits)}: type more of the name")
        raise MoveError(f"no row is called {text!r}; rows: {' '.join(rows)}")

    # -- text ------------------------------------------------------------------------------
    def intro(self) -> list[str]:
        r = self.rules
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items())
        who = (
            "you alone"
            if self.n_players == 1
            else ", ".join(self.labels[s] for s in range(self.n_players))
        )
        lines = [
            f"{GAME_TITLES[self.game]} ({opts}) · players: {who} · "
            f"{self.n_games} game{'s' if self.n_games > 1 else ''}",
            "Each turn: roll five dice, re-roll any of them up to twice, then fill one row.",
        ]
        if r.rules == "russian":
            lines.append(
                "Stage 1 (ones..sixes) first: (count - 3) x face, +50 if their sum >= 0; "
                "stage-2 rows score double when filled right after the first roll."
            )
        return lines

    def _board(self, options: dict[str, int] | None) -> list[str]:
        cards = [g.card for g in self.cards]
        width = max(12, *(len(self.labels[s]) + 1 for s in range(self.n_players)))
        head = f"  {'row':<16}{'now':>5} " + "".join(
            f"{self.labels[s]:>{width}}" for s in range(self.n_players)
        )
        lines = [head]

        def line(name: str, values: list, now: str = "") -> str:
            cells = "".join(f"{'' if v is None else v:>{width}}" for v in values)
            return f"  {name:<16}{now:>5} {cells}".rstrip()

        for k, row in enumerate(self.rules.rows):
            if k == len(UPPER_ROWS):
                label = "stage-1 sum" if self.rules.rules == "russian" else "upper sum"
                lines.append(line(label, [c.upper_sum for c in cards]))
                lines.append(line("bonus", [c.bonus for c in cards]))
            now = str(options[row]) if options and row in options else ""
            lines.append(line(row, [c.scores[k] for c in cards], now))
        if self.rules.rules == "classic":
            lines.append(line("yahtzee bonus", [c.yahtzee_bonus for c in cards]))
        lines.append(line("total", [c.total for c in cards]))
        return lines

    def view(self, full: bool = False) -> str:
        g = self.now
        left = MAX_ROLLS - g.rolls_used
        note = f"{left} re-roll{'s' if left != 1 else ''} left" if left else "no re-rolls left"
        if self.rules.rules == "russian" and g.first_roll and g.card.stage == 2:
            note += "; stage-2 rows filled now score double"
        dice = f"Your dice: {dice_text(g.dice)}   (roll {g.rolls_used} of {MAX_ROLLS}: {note})"
        if not full and not g.first_roll:  # the card was drawn at this turn's first roll
            options = " · ".join(f"{r} {v}" for r, v in g.fill_options().items())
            return "\n".join([dice, f"Rows now: {options}", self.moves("('show' draws the card)")])
        turn = len(self.rules.rows) - g.card.turns_left + 1
        game = f"game {self.games_played + 1}/{self.n_games} · " if self.n_games > 1 else ""
        lines = [f"-- {game}turn {turn} of {len(self.rules.rows)} --"]
        lines += self._board(g.fill_options())
        lines.append(dice)
        lines.append("'now': what filling the row scores now, bonuses included.")
        lines.append(self.moves("(a row with a 'now' value can be filled)"))
        return "\n".join(lines)

    def moves(self, hint: str = "") -> str:
        g = self.now
        hint = hint or f"(rows now: {' '.join(g.legal_rows())})"
        if g.rolls_used < MAX_ROLLS:
            return f"Moves: keep <dice> | reroll <dice> | fill <row>   {hint}"
        return f"Moves: fill <row>   {hint}"

    def help(self) -> str:
        return (
            "Scorecard commands (dice are named by their faces):\n"
            "  keep 6 6     keep the listed dice, re-roll the others (also: hold, k 66)\n"
            "  reroll 1 2   re-roll the listed dice (also: r 12; 'reroll all')\n"
            "  fill sixes   write the dice into a row (also just 'sixes', a unique prefix such"
            " as 'six', or 'small straight')\n"
            f"Rows: {' '.join(self.rules.rows)}\n" + COMMON_HELP
        )

    # -- moves -----------------------------------------------------------------------------
    def parse(self, words: list[str]) -> int:
        g = self.now
        verb, rest = words[0], words[1:]
        if verb in ("keep", "hold", "k", "reroll", "r", "roll", "re-roll"):
            if g.rolls_used >= MAX_ROLLS:
                raise MoveError("no re-rolls left (roll 3 of 3): fill a row")
            if verb in ("reroll", "r", "roll", "re-roll"):
                if rest == ["all"]:
                    out = list(range(len(g.dice)))
                else:
                    faces = read_faces(rest)
                    if not faces:
                        raise MoveError("name the dice to re-roll (e.g. 'reroll 1 2')")
                    out = take(g.dice, faces)
            else:
                kept = take(g.dice, read_faces(rest))
                out = [i for i in range(len(g.dice)) if i not in kept]
                if not out:
                    raise MoveError("keeping all five dice re-rolls nothing: fill a row instead")
            return sum(1 << i for i in out)
        if verb in ("fill", "f", "score", "write"):
            if not rest:
                raise MoveError(f"name the row to fill; rows now: {' '.join(g.legal_rows())}")
            row = self._row("_".join(rest))
        else:  # a bare row name
            try:
                row = self._row("_".join(words))
            except MoveError:
                raise MoveError(
                    f"unknown move {' '.join(words)!r}: keep <dice>, reroll <dice>, fill <row>, "
                    "or help"
                ) from None
        if row not in g.legal_rows():
            raise MoveError(self._why_not(row))
        return N_REROLL_ACTIONS + self.rules.rows.index(row)

    def _why_not(self, row: str) -> str:
        g = self.now
        card, legal = g.card, " ".join(g.legal_rows())
        if card.score_of(row) is not None:
            why = f"{row} is already filled"
        elif self.rules.rules == "russian" and card.stage == 1:
            why = f"{row} is a stage-2 row; fill the stage-1 rows (ones..sixes) first"
        elif self.rules.rules == "russian":
            why = f"the dice fit other rows, so a dash in {row} is not allowed (scratch rule)"
        else:
            why = f"a Yahtzee joker must go in {legal} (joker rule)"
        return f"you cannot fill {row} now: {why}; rows now: {legal}"

    def describe(self, action: int) -> str:
        g = self.now
        if action >= N_REROLL_ACTIONS:
            return f"fill {self.rules.rows[action - N_REROLL_ACTIONS]}"
        return reroll_text(g.dice, action, "keep")

    def step(self, action: int) -> list[str]:
        g, seat = self.now, self.seat
        before = g.dice
        points = g.step(action)
        lines = []
        if action < N_REROLL_ACTIONS:
            if seat == self.human:
                out = [d for i, d in enumerate(before) if action >> i & 1]
                lines.append(f"You re-roll {dice_text(out)} -> {dice_text(g.dice)}")
            return lines
        row = self.rules.rows[action - N_REROLL_ACTIONS]
        rolls = " -> ".join("".join(map(str, r)) for r in g.history[-1])
        who = _subject(self, seat)
        verb = "fill" if seat == self.human else "fills"
        lines.append(
            f"{who} {verb} {row} with {dice_text(g.history[-1][-1])}: {points:+d} "
            f"(total {g.card.total})   (rolls {rolls})"
        )
        self.seat = (seat + 1) % self.n_players
        if all(c.done for c in self.cards):
            lines += self._game_end()
        return lines

    def _game_end(self) -> list[str]:
        totals = [c.card.total for c in self.cards]
        self.results.append(totals)
        self.games_played += 1
        lines = ["", f"== game {self.games_played} over =="] + self._board(None)
        if self.n_players > 1:
            mean = sum(totals) / len(totals)
            lines.append(
                "Result (total minus the table's average): "
                + ", ".join(f"{self.labels[s]} {t - mean:+.1f}" for s, t in enumerate(totals))
            )
        if not self.done:
            self._deal()
            lines.append(f"\nGame {self.games_played + 1} of {self.n_games}.")
        return lines

    def summary(self) -> list[str]:
        if not self.results:
            return []
        means = np.mean(self.results, axis=0)
        return [
            f"Average total over {len(self.results)} game{'s' if len(self.results) > 1 else ''}: "
            + ", ".join(f"{self.labels[s]} {means[s]:.1f}" for s in range(self.n_players))
        ]


class CardPokerTable(Table):
    """Card poker: one deal, or a session of up to ``games`` deals (RULES.md 3)."""

    def __init__(
        self,
        game: str,
        rules: CardPokerRules,
        human: int,
        agents: dict[int, Agent],
        rng: np.random.Generator,
        games: int = 1,
    ) -> None:
        self.game, self.rules, self.human, self.agents = game, rules, human, agents
        self.n_players = len(agents) + 1
        self.labels = _labels(self.n_players, human, agents)
        episode = "session" if games > 1 else "deal"
        self.match = CardPokerMatch(self.n_players, rng, rules, episode, games)

    @property
    def done(self) -> bool:
        return self.match.done

    @property
    def current_seat(self) -> int:
        return self.match.current_player

    def observation(self, seat: int) -> np.ndarray:
        from envs.card_poker import observe

        m = self.match
        return observe(m.game, seat, m.deals_left, m.net[seat])

    def mask(self) -> np.ndarray:
        return self.match.game.action_mask()

    def _cards(self, g: CardPokerGame, seat: int, numbered: bool = False) -> str:
        labels = [g.deck.label(c) for c in g.hands[seat]]
        if numbered:
            labels = [f"{k + 1}:{c}" for k, c in enumerate(labels)]
        return " ".join(labels)

    def _hand(self, g: CardPokerGame, seat: int) -> str:
        return g.hand(seat).name.replace("_", " ")

    def intro(self) -> list[str]:
        r, m = self.rules, self.match
        joker = "two jokers X" if r.deck == 54 else f"{r.joker_card}* plays the joker"
        joker = joker if r.joker_card else "no joker"
        deals = f"up to {m.max_deals} deals" if m.max_deals > 1 else "1 deal"
        return [
            f"{GAME_TITLES[self.game]}, {r.deck} cards ({joker})"
            f" · {self.n_players} players: "
            + ", ".join(self.labels[s] for s in range(self.n_players))
            + f" · {deals} · stack {r.stack}, ante {r.ante}, bids {r.min_bid}-{r.max_bid}"
            + (f", draw fee {r.draw_fee}/card" if r.draw_fee else ""),
            "Each deal: ante, five cards, one exchange of 0-5 cards, then bidding: pass (fold),"
            " bid at least the last bid, or reveal (pay the last bid, everyone still in shows).",
        ]

    def view(self, full: bool = False) -> str:
        m, g = self.match, self.match.game
        deal = f"deal {m.deals_played + 1}" + (f"/{m.max_deals}" if m.max_deals > 1 else "")
        lines = [
            f"-- {deal} · pot {g.pot} · {g.phase.name.lower()} phase · "
            f"bid level {g.level or '-'} · bids {g.n_bids}/{g.rules.max_bids} --"
        ]
        for s in g.order:
            drew = "-" if g.drawn[s] < 0 else str(g.drawn[s])
            state = "in" if g.in_play[s] else "passed"
            lines.append(
                f"  {self.labels[s]:<13} stack {g.stacks[s]:>4}  net {m.net[s]:+4d}  drew {drew}  "
                f"{state:<6}  bids {g.bids_made[s]} ({g.bid_chips[s]} chips)"
            )
        lines.append(
            f"Your cards: {self._cards(g, self.human, numbered=True)}   = "
            f"{self._hand(g, self.human)}"
        )
        if any(g.deck.is_joker(c) and not g.deck.cards[c].is_joker for c in g.hands[self.human]):
            lines.append("  (a card marked * is the joker: it plays as any card)")
        lines.append(self.moves())
        return "\n".join(lines)

    def moves(self) -> str:
        g = self.match.game
        if g.phase == Phase.DRAW:
            fee = f" at {g.rules.draw_fee} chip(s) a card" if g.rules.draw_fee else ""
            return f"Moves: discard <card numbers or names>{fee} | keep   (e.g. 'discard 1 4')"
        legal = self.legal()
        bids = [self.rules.bid_amount(a) for a in legal if a >= FIRST_BID]
        parts = ["pass"]
        if REVEAL in legal:
            parts.append(f"reveal (costs {g.reveal_cost})")
        if bids:
            parts.append(f"bid {bids[0]}" + (f"..{bids[-1]}" if len(bids) > 1 else ""))
        return "Moves: " + " | ".join(parts)

    def help(self) -> str:
        from envs.rules.card_hands import hand_names

        r = self.rules
        names = hand_names(r.categories, r.swap_four_and_straight_flush)
        names = ", ".join(n.replace("_", " ") for n in names)
        if r.categories == "short":
            names = names.replace("straight suit", "straight")
        return (
            "Card poker commands:\n"
            "  discard 1 4  exchange your 1st and 4th cards (or by name: 'discard 7H QS')\n"
            "  keep         keep all five cards (no exchange)\n"
            "  bid 3        bid 3 chips (at least the last bid); each bid is paid into the pot\n"
            "  reveal       pay the last bid; everyone still in shows, the best hand wins\n"
            "  pass         fold: you are out of this deal (also: fold)\n"
            f"Hands, low to high: {names} (poker = four + joker).\n" + COMMON_HELP
        )

    def parse(self, words: list[str]) -> int:
        g = self.match.game
        verb, rest = words[0], words[1:]
        legal = self.legal()
        if g.phase == Phase.DRAW:
            if verb in ("keep", "stand", "pat") and not rest:
                return 0
            if verb not in ("discard", "exchange", "draw", "d", "change"):
                raise MoveError(f"it is the exchange now: {self.moves()[7:]}")
            chosen = self._chosen_cards(g, rest)
            action = sum(1 << i for i in chosen)
            if action not in legal:
                raise MoveError(
                    f"exchanging {len(chosen)} cards costs {len(chosen) * g.rules.draw_fee} "
                    f"chips; you have {g.stacks[self.human]}"
                )
            return action
        if verb in ("discard", "exchange", "keep", "draw"):
            raise MoveError(f"the exchange is over; now: {self.moves()[7:]}")
        if verb in ("pass", "fold", "p"):
            return PASS
        if verb in ("reveal", "show", "call"):
            if REVEAL not in legal:
                raise MoveError(f"revealing costs {g.reveal_cost}; you have {g.stacks[self.human]}")
            return REVEAL
        if verb in ("bid", "b", "raise"):
            if len(rest) != 1 or not rest[0].isdigit():
                raise MoveError(f"say how much: {self.moves()[7:]}")
            amount = int(rest[0])
            bids = [self.rules.bid_amount(a) for a in legal if a >= FIRST_BID]
            if not bids:
                raise MoveError(
                    f"no bid is possible now (all {g.rules.max_bids} bids made, or too few "
                    f"chips): reveal or pass"
                )
            if amount not in bids:
                raise MoveError(f"a bid now is {bids[0]}..{bids[-1]} chips, not {amount}")
            return self.rules.bid_action(amount)
        raise MoveError(f"unknown move {verb!r}: {self.moves()[7:]}; or help")

    def _chosen_cards(self, g: CardPokerGame, words: list[str]) -> list[int]:
        hand = list(g.hands[self.human])
        chosen: list[int] = []
        for word in words:
            if word.isdigit():
                picks = [int(ch) - 1 for ch in word]
                if any(not 0 <= p < HAND_SIZE for p in picks):
                    raise MoveError(f"cards are numbered 1-{HAND_SIZE}, got {word!r}")
            else:
                try:
                    (index,) = g.deck.indices([word.rstrip("*")])
                except ValueError as e:
                    raise MoveError(f"{e}; name cards by number 1-5 or like 7H, QS, X") from None
                if index not in hand:
                    raise MoveError(
                        f"{word.upper()} is not in your hand ({self._cards(g, self.human)})"
                    )
                picks = [hand.index(index)]
            for p in picks:
                if p in chosen:
                    raise MoveError(f"card {p + 1} is named twice")
                chosen.append(p)
        return chosen

    def describe(self, action: int) -> str:
        g = self.match.game
        if g.phase == Phase.DRAW:
            if action == 0:
                return "keep"
            out = [
                g.deck.label(c) for i, c in enumerate(g.hands[g.current_player]) if action >> i & 1
            ]
            return "discard " + " ".join(out)
        if action == PASS:
            return "pass"
        if action == REVEAL:
            return "reveal"
        return f"bid {self.rules.bid_amount(action)}"

    def step(self, action: int) -> list[str]:
        m = self.match
        g, seat = m.game, m.current_player
        who, you = _subject(self, seat), seat == self.human
        before = g.hands[seat]
        n_events = len(g.events)
        m.step(action)
        lines = []
        for e in g.events[n_events:]:
            if e.phase == Phase.DRAW:
                k = e.action.bit_count()
                fee = f", paying {e.paid}" if e.paid else ""
                if you:
                    out = [g.deck.label(c) for i, c in enumerate(before) if e.action >> i & 1]
                    now = f"{self._cards(g, seat)} = {self._hand(g, seat)}"
                    if out:
                        lines.append(f"You exchange {' '.join(out)}{fee} -> {now}")
                    else:
                        lines.append(f"You keep your five cards: {now}")
                else:
                    lines.append(f"{who} exchanges {k} card{'s' if k != 1 else ''}{fee}")
            elif e.action == PASS:
                lines.append(f"{who} {'pass' if you else 'passes'}")
            elif e.action == REVEAL:
                lines.append(f"{who} {'reveal' if you else 'reveals'}, paying {e.paid}")
            else:
                lines.append(f"{who} {'bid' if you else 'bids'} {e.paid}")
        if g.done:
            lines += self._deal_end(g)
        return lines

    def _deal_end(self, g: CardPokerGame) -> list[str]:
        sd, m = g.showdown, self.match
        lines = []
        if sd.hands:
            lines.append("Showdown:")
            for s, hand in sd.hands.items():
                lines.append(
                    f"  {self.labels[s]:<13} {self._cards(g, s)}   {hand.name.replace('_', ' ')}"
                )
        pot = sum(sd.won.values())
        if len(sd.won) > 1:
            won = ", ".join(f"{self.labels[s]} {c}" for s, c in sd.won.items())
            lines.append(f"Equal best hands split the pot of {pot}: {won}.")
        else:
            (s,) = sd.won
            verb = "take" if s == self.human else "takes"
            how = "Everyone else passed: " if not sd.hands else ""
            lines.append(
                f"{how}{_subject(self, s) if not how else self.labels[s]} {verb} the pot of "
                f"{pot}{' unseen' if how else ''}."
            )
        lines.append(
            "Net chips: " + ", ".join(f"{self.labels[s]} {c:+d}" for s, c in enumerate(m.net))
        )
        if not m.done:
            first = m.game.order[0]
            verb = "act" if first == self.human else "acts"
            lines.append(f"\nDeal {m.deals_played + 1}: {self.labels[first]} {verb} first.")
        return lines

    def summary(self) -> list[str]:
        m = self.match
        return [
            f"After {m.deals_played} deal{'s' if m.deals_played > 1 else ''}, net chips: "
            + ", ".join(f"{self.labels[s]} {c:+d}" for s, c in enumerate(m.net))
        ]


# -- the coach ---------------------------------------------------------------------------


def dice_poker_action_values(observation: np.ndarray, rules: DicePokerRules) -> dict[int, float]:
    """Each legal action's chance to win the pot, all later decisions optimal (everyone's).

    The exact solution of ``agents.optimal.dice_poker`` gives the worth of every final
    hand to the player to act (its chance to win when everyone after plays optimally);
    one step of its turn recursion then values standing and every re-roll. The best of
    these is the optimal player's value; a tie counts at the play-off's chance.
    """
    from agents.optimal.dice_poker import hand_keys, turn_shape
    from envs.dice_poker import decode_observation

    n = rules.n_dice
    f = decode_observation(observation, n)
    variant = tuple((k, getattr(rules, k)) for k in DICE_VARIANT)
    hk, shape = (
        hand_keys(DicePokerRules(n_dice=n, **dict(variant))),
        turn_shape(n, rules.lock_kept_dice),
    )
    best = hk.index_of_vector(f["best"])
    count = int(f["best_count"]) if best is not None else 0
    utility, kept_value = _dice_poker_worth(
        n,
        variant,
        int(f["round_players"]),
        int(f["position"]),
        best,
        count,
        int(f["rolls_used"]) == 1,
    )
    dice = tuple(int(d) for d in f["dice"])
    frozen = sum(1 << i for i, z in enumerate(f["frozen"]) if z)
    values = {0: float(utility[hk.key_of_final[shape.final_id[dice]]])}
    for a in range(1, rules.n_actions):
        if a & frozen == 0:
            kept = tuple(d for i, d in enumerate(dice) if not a >> i & 1)
            values[a] = float(kept_value[shape.sub_id[kept]])
    return values


@lru_cache(maxsize=1024)
def _dice_poker_worth(
    n_dice: int,
    variant: tuple,
    round_players: int,
    position: int,
    best: int | None,
    count: int,
    first_roll: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(worth of each final hand strength, worth of keeping each sub-multiset and re-rolling)."""
    from agents.optimal.dice_poker import hand_keys, solve_game, turn_shape

    sol = solve_game(round_players, n_dice, **dict(variant))
    hk, shape = hand_keys(sol.rules), turn_shape(n_dice, sol.rules.lock_kept_dice)
    utility = sol.utility(position, best, count)
    keep_and_roll = hk.t3k @ utility  # keep a sub-multiset, roll the others once, stop
    if not first_roll:
        return utility, keep_and_roll
    # a re-roll after the first roll is followed by the best choice after the second
    after2, _ = shape.choice2.best(keep_and_roll)
    if shape.lock:
        kept = np.bincount(shape.state2_k, shape.state2_p * after2, minlength=len(shape.subs))
    else:
        kept = shape.t3 @ after2
    return utility, kept


def scorecard_action_values(game: ScorecardGame, solution) -> dict[int, float]:
    """Each legal action's expected final total, every later decision optimal.

    ``solution``: ``agents.optimal.yahtzee.solve(rules)``. A fill is worth its points
    plus the solved value of the card it leaves; a re-roll is worth the solver's value
    of the dice it keeps with the rolls that remain. The card's total so far is added.
    """
    from agents.optimal._yahtzee_turn import KEEP_INDEX

    card = game.card
    values = {}
    legal = game.legal_actions()
    if any(a < N_REROLL_ACTIONS for a in legal):
        state = solution.model.state(
            [s is None for s in card.scores], card.upper_sum, card.yahtzee_scored
        )
        plan = solution.turn_plan(state)
        keep = plan.keep2 if game.rolls_used == 1 else plan.keep1
        for a in legal:
            if a < N_REROLL_ACTIONS:
                kept = tuple(d for i, d in enumerate(game.dice) if not a >> i & 1)
                values[a] = card.total + float(keep[KEEP_INDEX[kept], 0])
    for a in game.legal_row_actions():
        row = card.rows[a - N_REROLL_ACTIONS]
        new, points = card.fill(row, game.dice, game.first_roll)
        future = solution.state_value(
            [s is None for s in new.scores], new.upper_sum, new.yahtzee_scored
        )
        values[a] = card.total + points + future
    return values


@dataclass
class Advice:
    """The coach's view of one decision: every legal action's value and the optimal one."""

    values: dict[int, float]
    best: int
    described: str  # the optimal move in the person's words


class Coach:
    """Values the person's decisions with an exact player where the game has one."""

    unit = ""

    def __init__(self) -> None:
        self.decisions = self.misses = 0
        self.lost = 0.0

    def advise(self, table: Table) -> Advice | None:
        return None

    def intro(self) -> str:
        return "coach: card poker has no exact player, so there is no advice in it."

    def fmt(self, value: float) -> str:
        return f"{value:.1f}"

    def judge(self, advice: Advice, action: int, mine: str) -> str:
        """One line on the person's move ``action`` (``mine``: its words)."""
        values = advice.values
        best, yours = values[advice.best], values[action]
        self.decisions += 1
        # float noise of the solvers is far below a thousandth of a point
        cost = max(best - yours, 0.0)
        if cost < 1e-9:
            return f"coach: optimal ({self.unit} {self.fmt(yours)})"
        self.misses += 1
        self.lost += cost
        return (
            f"coach: optimal was {advice.described} ({self.unit} {self.fmt(best)}); "
            f"your {mine}: {self.fmt(yours)}, cost {self.fmt_cost(cost)}"
        )

    def fmt_cost(self, cost: float) -> str:
        return f"{cost:.2f} points"

    def report(self) -> list[str]:
        if not self.decisions:
            return []
        return [
            f"coach: {self.decisions} decisions, {self.decisions - self.misses} optimal; "
            f"total cost {self.fmt_cost(self.lost)} of {self.unit}"
        ]


class DicePokerCoach(Coach):
    unit = "win chance"

    def __init__(self, game: str, rules: DicePokerRules) -> None:
        super().__init__()
        from agents.optimal.dice_poker import DicePokerOptimal

        self.rules = rules
        self.optimal = DicePokerOptimal(game, **{k: getattr(rules, k) for k in DICE_VARIANT})

    def fmt(self, value: float) -> str:
        return percent(value)

    def fmt_cost(self, cost: float) -> str:
        return f"{100 * cost:.1f} percentage points"

    def advise(self, table: Table) -> Advice:
        obs = table.observation(table.current_seat)
        values = dice_poker_action_values(obs, self.rules)
        best = self.optimal.act(obs, table.mask())
        return Advice(values, best, table.describe(best))

    def intro(self) -> str:
        return (
            "coach: after each move, the optimal move and each move's chance to win the pot "
            "(everyone after you playing optimally)."
        )


class ScorecardCoach(Coach):
    unit = "expected final score"

    def fmt(self, value: float) -> str:
        return f"{value:.2f}"

    def __init__(self, solution) -> None:
        super().__init__()
        self.solution = solution

    def advise(self, table: Table) -> Advice:
        assert isinstance(table, ScorecardTable)
        game = table.now
        values = scorecard_action_values(game, self.solution)
        # ties: stop rather than re-roll, then the lower action (the optimal agent's order)
        best = max(values, key=lambda a: (values[a], a >= N_REROLL_ACTIONS, -a))
        return Advice(values, best, table.describe(best))

    def intro(self) -> str:
        return (
            "coach: after each move, the optimal move and each move's expected final score "
            "(optimal play from then on)."
        )


# -- setup and the main loop ---------------------------------------------------------------


class Console:
    """The program's input and output: ``input_fn()`` returns one line (EOFError at the end)."""

    def __init__(
        self, input_fn: Callable[[], str] = input, out: TextIO | None = None, echo: bool = False
    ) -> None:
        self.input_fn, self.out, self.echo = input_fn, out or sys.stdout, echo

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.input_fn()
        except EOFError:
            self.say("")
            raise Quit("End of input: leaving the game.") from None
        if self.echo:
            self.say(line)
        return line


def _opponent_specs(game: str, opponents: str, players: int | None) -> list[str]:
    specs = [] if opponents.strip().lower() in ("none", "") else opponents.split(",")
    specs = [s.strip() for s in specs]
    if players is None:
        players = DEFAULT_PLAYERS.get(game, 2) if len(specs) == 1 else len(specs) + 1
        if not specs:
            players = 1
    if len(specs) == 1:  # one spec serves every opponent seat (none when alone)
        specs = specs * (players - 1)
    if players != len(specs) + 1:
        raise SetupError(
            f"--players {players} needs {players - 1} opponents, but --opponents lists "
            f"{len(specs)} ({opponents!r}); give one spec for all or one per seat"
        )
    low = 1 if game in SCORECARD_RULES else 2
    if not low <= players <= 6:
        what = "1-6 (1 = alone)" if low == 1 else "2-6"
        raise SetupError(f"{GAME_TITLES[game]} takes {what} players, got {players}")
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
    if game not in GAMES:
        raise SetupError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    if games < 1:
        raise SetupError(f"--games must be at least 1, got {games}")
    rules = dict(rules or {})
    specs = _opponent_specs(game, opponents, players)
    n = len(specs) + 1
    if seat not in range(n):
        raise SetupError(f"--seat must be 0..{n - 1} with {n} players, got {seat}")
    try:
        # the envs validate rule options and name the bad ones
        if game in SCORECARD_RULES:
            from envs.yahtzee import YahtzeeEnv

            rule_set = YahtzeeEnv(rules=SCORECARD_RULES[game], **rules).rules
        elif game == "card_poker":
            from envs.multi import card_poker_v0

            rule_set = card_poker_v0.raw_env(n_players=max(n, 2), **rules).rules
        else:
            from envs.multi import dice_poker_v0

            if "n_dice" in rules:
                raise SetupError("the number of dice comes with --game (dice_poker or dice_poker6)")
            n_dice = 5 if game == "dice_poker" else 6
            rule_set = dice_poker_v0.raw_env(n_dice=n_dice, n_players=n, **rules).rules
        others = [s for s in range(n) if s != seat]
        if game in SCORECARD_RULES and "optimal" in specs:
            _solving_note(rule_set, game, say)
        agents = {s: make_agent(spec, game, **rules) for s, spec in zip(others, specs, strict=True)}
    except (TypeError, ValueError) as e:
        raise SetupError(str(e)) from None
    rng = np.random.default_rng(seed)
    for s in others:  # seeded from the table's generator, as the envs do
        agents[s].seed(int(rng.integers(2**63)))
    cls = {"card_poker": CardPokerTable}.get(
        game, ScorecardTable if game in SCORECARD_RULES else DicePokerTable
    )
    return cls(game, rule_set, seat, agents, rng, games)


def _solving_note(rules: ScorecardRules, game: str, say: Callable[..., None] | None) -> None:
    from agents.optimal.yahtzee import cache_path

    if say is not None and not cache_path(rules).exists():
        say(
            f"Solving {GAME_TITLES[game]} exactly for the optimal player (the first time only; "
            "the classic game takes about a minute)..."
        )


def build_coach(table: Table, say: Callable[..., None]) -> Coach:
    if isinstance(table, DicePokerTable):
        return DicePokerCoach(table.game, table.rules)
    if isinstance(table, ScorecardTable):
        from agents.optimal.yahtzee import solve

        _solving_note(table.rules, table.game, say)
        return ScorecardCoach(solve(table.rules))
    return Coach()


def human_turn(table: Table, console: Console, coach: Coach | None) -> None:
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
        if words[0] in ("moves", "legal", "m"):
            console.say(table.moves())
            continue
        if words[0] in ("show", "table", "board"):
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
    console.say(*table.step(action))


def run(table: Table, console: Console, coach: Coach | None = None) -> None:
    """Play the table to its end: agents move by themselves, the person types."""
    while not table.done:
        seat = table.current_seat
        if seat == table.human:
            human_turn(table, console, coach)
        else:
            agent = table.agents[seat]
            action = agent.act(table.observation(seat), table.mask())
            console.say(*table.step(int(action)))
    console.say("", *table.summary())
    if coach is not None:
        console.say(*coach.report())


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="play.py",
        description="Play a game of dicepoker-gym in the terminal against agents.",
        epilog="Example: python train/play.py --game yahtzee --opponents none --coach",
    )
    p.add_argument("--game", default="dice_poker", choices=GAMES)
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
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option of the game's env, e.g. --rule ante=2 --rule lock_kept_dice=false",
    )
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
            rules = parse_rules(args.rule)
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
        run(table, console, coach)
    except Quit as q:
        console.say(str(q))
    except KeyboardInterrupt:
        console.say("", "Interrupted: leaving the game.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
