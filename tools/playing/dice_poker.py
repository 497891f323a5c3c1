"""The prison dice poker table of ``tools/play.py`` (docs/rules.md sections 1 and 2)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from envs import games as registry
from envs.obs.dice_poker import observe
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame, DicePokerMatch, DicePokerRules
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


class DicePokerTable(Table):
    def frame(self) -> np.ndarray:
        from envs.render import draw

        return draw(self.match, self.labels)

    """Prison dice poker: ``games`` games at one table, chips carried over (docs/rules.md
    sections 1 and 2)."""

    rules: DicePokerRules

    def start(self, rng: np.random.Generator, games: int) -> None:
        self.match = DicePokerMatch(self.n_players, rng, self.rules, n_games=games)

    # -- state -----------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.match.done

    @property
    def current_seat(self) -> int:
        return self.match.game.current_player

    def observation(self, seat: int) -> np.ndarray:
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
            f"{registry.get(self.game).title} · {self.n_players} players: "
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
                f"{subject(self, seat)} {'finish' if seat == self.human else 'finishes'} with "
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
                f"{subject(self, g.winner)} {'win' if g.winner == self.human else 'wins'} "
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
