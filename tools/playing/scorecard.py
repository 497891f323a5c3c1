"""The scorecard table of ``tools/play.py``: russian and classic (docs/rules.md sections 4, 5)."""

from __future__ import annotations

import numpy as np

from envs import games as registry
from envs.obs.yahtzee import observe
from envs.rules.scorecard import (
    MAX_ROLLS,
    N_REROLL_ACTIONS,
    UPPER_ROWS,
    ScorecardGame,
    ScorecardRules,
)
from envs.rules.scorecard_match import ScorecardMatch
from tools.playing.base import (
    COMMON_HELP,
    MoveError,
    Table,
    dice_text,
    read_faces,
    reroll_text,
    subject,
    take,
)


class ScorecardTable(Table):
    def frame(self) -> np.ndarray:
        from envs.render import draw

        seat = self.match.current_player
        return draw(self.match.games, self.labels, seat=0 if seat is None else seat, last=self.last)

    """The scorecard games: every player fills their own card, whole turns in seat order."""

    rules: ScorecardRules

    def start(self, rng: np.random.Generator, games: int) -> None:
        self.rng = rng
        self.n_games = games
        self.games_played = 0
        self.results: list[list[int]] = []
        self._deal()

    def _deal(self) -> None:
        # seat order and the settlement are the rules layer's (envs.rules.scorecard_match)
        self.match = ScorecardMatch(self.n_players, self.rng, self.rules)

    @property
    def cards(self) -> list[ScorecardGame]:
        return self.match.games

    @property
    def seat(self) -> int:
        return self.match.current_player

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
            f"{registry.get(self.game).title} ({opts}) · players: {who} · "
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
        points = self.match.step(action)
        lines = []
        if action < N_REROLL_ACTIONS:
            if seat == self.human:
                out = [d for i, d in enumerate(before) if action >> i & 1]
                lines.append(f"You re-roll {dice_text(out)} -> {dice_text(g.dice)}")
            return lines
        row = self.rules.rows[action - N_REROLL_ACTIONS]
        rolls = " -> ".join("".join(map(str, r)) for r in g.history[-1])
        who = subject(self, seat)
        verb = "fill" if seat == self.human else "fills"
        lines.append(
            f"{who} {verb} {row} with {dice_text(g.history[-1][-1])}: {points:+d} "
            f"(total {g.card.total})   (rolls {rolls})"
        )
        if self.match.done:
            lines += self._game_end()
        return lines

    def _game_end(self) -> list[str]:
        totals = self.match.totals()
        self.results.append(totals)
        self.games_played += 1
        lines = ["", f"== game {self.games_played} over =="] + self._board(None)
        if self.n_players > 1:
            settled = self.match.settlements()
            lines.append(
                "Result (total minus the table's average): "
                + ", ".join(f"{self.labels[s]} {v:+.1f}" for s, v in enumerate(settled))
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
