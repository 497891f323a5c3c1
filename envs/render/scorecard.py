"""The scorecard games ("Покер на костях", classic Yahtzee) as a picture: the dice of the
player to act with the roll number, and the score sheet of every player, where the open
rows of the player to act show what filling them now would score.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs import games as registry
from envs.render.canvas import FELT_DARK, FELT_LIGHT, GOLD, INK, MUTED, Frame, draw_dice, nice
from envs.rules.scorecard import (
    MAX_ROLLS,
    N_REROLL_ACTIONS,
    UPPER_ROWS,
    ScorecardGame,
    ScorecardRules,
)

PANEL, NAMES, COLUMN = 288, 150, 84
TOP, HEAD, LINE = 48, 28, 24
DIE = 46


def _totals_lines(rules: ScorecardRules) -> list[str]:
    upper = "stage 1 sum" if rules.rules == "russian" else "upper sum"
    extra = ["Yahtzee bonus"] if rules.rules == "classic" else []
    return [upper, "bonus", *extra, "total"]


def _frame(rules: ScorecardRules, n_players: int) -> Frame:
    rows = len(rules.rows) + len(_totals_lines(rules))
    return Frame(PANEL + NAMES + COLUMN * n_players + 16, TOP + HEAD + LINE * rows + 20)


def size(rules: ScorecardRules, n_players: int = 1) -> tuple[int, int]:
    """(height, width) of every frame of ``rules`` with ``n_players`` cards."""
    f = _frame(rules, n_players)
    return f.height, f.width


def describe_last(
    games: Sequence[ScorecardGame], labels: dict[int, str], last: tuple[int, int] | None
) -> str:
    """``last`` = (seat, action) of the action just played, in words."""
    if last is None:
        return "game start"
    seat, action = last
    game = games[seat]
    if action < N_REROLL_ACTIONS:
        return f"{labels[seat]} re-rolled {int(action).bit_count()} dice"
    row = game.rules.rows[action - N_REROLL_ACTIONS]
    return f"{labels[seat]} filled {nice(row)}: {game.card.score_of(row)}"


def draw(
    games: Sequence[ScorecardGame],
    seat: int,
    labels: dict[int, str],
    last: tuple[int, int] | None = None,
) -> np.ndarray:
    """Every player's card (``games`` in seat order), ``seat`` to act; ``last`` is the
    (seat, action) just played (None at the start), for the words under the dice and the
    row it filled, which is framed."""
    rules = games[0].rules
    n = len(games)
    f = _frame(rules, n)
    done = all(g.done for g in games)
    game = games[seat]
    card = game.card
    # title
    f.band(0, TOP)
    f.text((14, 12), registry.by_fixed("rules", rules.rules).short_title, 19, bold=True)
    turn = len(card.rows) - card.turns_left + (0 if game.done else 1)
    f.text(
        (f.width - 14, 15),
        f"turn {turn}/{len(card.rows)}" + (f" · {labels[seat]}" if n > 1 and not done else ""),
        15,
        GOLD,
        bold=True,
        anchor="ra",
    )
    # the dice panel
    f.band(TOP, f.height, FELT_DARK, x1=PANEL)
    y = TOP + 18
    if done:
        f.text((16, y), "game over", 18, GOLD, bold=True)
        ranked = sorted(range(n), key=lambda s: -games[s].card.total)
        for k, s in enumerate(ranked):
            f.text((16, y + 34 + 24 * k), f"{labels[s]}: {games[s].card.total}", 16, INK)
        y += 34 + 24 * n + 10
    else:
        f.text((16, y), f"{labels[seat]} to act", 18, GOLD, bold=True, max_width=PANEL - 24)
        draw_dice(f, (16, y + 34), game.dice, DIE, gap=8)
        left = MAX_ROLLS - game.rolls_used
        f.text((16, y + 34 + DIE + 14), f"roll {game.rolls_used}/{MAX_ROLLS}", 16, INK, bold=True)
        f.text(
            (16, y + 34 + DIE + 38),
            f"{left} re-roll{'s' if left != 1 else ''} left" if left else "must fill a row now",
            13,
            MUTED,
        )
        if rules.rules == "russian" and game.first_roll:
            f.text((16, y + 34 + DIE + 58), "first roll: stage-2 rows score double", 13, MUTED)
        options = game.fill_options()
        if options:
            best = max(options, key=options.get)
            f.text((16, y + 34 + DIE + 84), "best row now:", 13, MUTED)
            f.text((16, y + 34 + DIE + 102), f"{nice(best)} +{options[best]}", 16, GOLD, bold=True)
        y += 34 + DIE + 136
    f.text((16, y), "last:", 13, MUTED)
    f.text((16, y + 18), describe_last(games, labels, last), 14, INK, max_width=PANEL - 24)
    # the sheet
    x0 = PANEL + 10
    y0 = TOP + 6
    for s in range(n):
        cx = x0 + NAMES + COLUMN * s + COLUMN // 2
        if s == seat and not done:
            f.band(y0, f.height - 8, FELT_LIGHT, x0=cx - COLUMN // 2 + 2, x1=cx + COLUMN // 2 - 2)
        name = labels[s] if n > 1 else "score"
        f.text(
            (cx, y0 + 6),
            name,
            13,
            GOLD if s == seat else INK,
            bold=True,
            anchor="ma",
            max_width=COLUMN - 6,
        )
    options = {} if done else game.fill_options()
    best = max(options.values()) if options else None
    filled = None
    if last is not None and last[1] >= N_REROLL_ACTIONS:
        filled = (last[0], rules.rows[last[1] - N_REROLL_ACTIONS])
    y = y0 + HEAD
    for k, row in enumerate(rules.rows):
        if k == len(UPPER_ROWS):
            f.draw.line((x0, y, f.width - 10, y), fill=MUTED, width=1)
        f.text((x0 + 4, y + 4), nice(row), 14, INK)
        for s, g in enumerate(games):
            cx = x0 + NAMES + COLUMN * s + COLUMN // 2
            score = g.card.score_of(row)
            if score is not None:
                if filled == (s, row):
                    f.draw.rectangle((cx - 26, y + 2, cx + 26, y + LINE - 2), outline=GOLD, width=2)
                f.text((cx, y + 4), str(score), 14, INK, bold=True, anchor="ma")
            elif s == seat and not done:
                if row in options:
                    v = options[row]
                    top = v == best
                    f.text(
                        (cx, y + 4),
                        f"+{v}" if v >= 0 else str(v),
                        14,
                        GOLD if top else (214, 200, 150),
                        bold=top,
                        anchor="ma",
                    )
                else:
                    f.text((cx, y + 4), "–", 14, MUTED, anchor="ma")
        y += LINE
    f.draw.line((x0, y, f.width - 10, y), fill=MUTED, width=1)
    for label in _totals_lines(rules):
        f.text(
            (x0 + 4, y + 4), label, 14, GOLD if label == "total" else MUTED, bold=label == "total"
        )
        for s, g in enumerate(games):
            c = g.card
            value = {"bonus": c.bonus, "Yahtzee bonus": c.yahtzee_bonus, "total": c.total}.get(
                label, c.upper_sum
            )
            cx = x0 + NAMES + COLUMN * s + COLUMN // 2
            f.text(
                (cx, y + 4),
                str(value),
                14,
                GOLD if label == "total" else INK,
                bold=label == "total",
                anchor="ma",
            )
        y += LINE
    return f.array()
