"""Prison dice poker as a picture: every seat's rolls this round, the dice of the player
rolling (held dice marked), the pot, the chips and the last action.

All dice in this game are rolled in the open, so every viewer sees the same table.
"""

from __future__ import annotations

import numpy as np

from envs import games as registry
from envs.render.canvas import (
    FELT_DARK,
    FELT_LIGHT,
    GOLD,
    INK,
    MUTED,
    Frame,
    draw_dice,
    nice,
)
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame, DicePokerMatch, Turn

HEADER, ROW, PANEL, FOOTER = 44, 64, 112, 34
SMALL, BIG = 22, 56


LEFT, GROUP_GAP, RIGHT = 176, 14, 236


def _group(n_dice: int) -> int:
    """Width of one roll's small dice."""
    return (SMALL + 3) * n_dice + GROUP_GAP


def _frame(n_players: int, n_dice: int) -> Frame:
    return Frame(
        LEFT + MAX_ROLLS * _group(n_dice) + RIGHT, HEADER + ROW * n_players + PANEL + FOOTER
    )


def size(n_players: int, n_dice: int = 5) -> tuple[int, int]:
    """(height, width) of every frame of a table of ``n_players`` with ``n_dice`` dice."""
    f = _frame(n_players, n_dice)
    return f.height, f.width


def _hand_text(turn: Turn) -> str:
    return f"{nice(turn.hand.name)} ({turn.hand.points})" if turn.hand else ""


def _current_index(game: DicePokerGame) -> int:
    """Index of the current turn in the last round (its length once the game is over)."""
    return len(game.rounds[-1]) if game.done else len(game.rounds[-1]) - 1 - game.players_after


def last_action(game: DicePokerGame, labels: dict[int, str]) -> str:
    """The last thing that happened, read from the game's record of rolls."""
    turns = game.rounds[-1]
    k = _current_index(game)
    if not game.done and len(turns[k].rolls) > 1:
        t = turns[k]
        return f"{labels[t.seat]} re-rolled: roll {len(t.rolls)}/{MAX_ROLLS}"
    if k > 0:
        prev = turns[k - 1]
    elif game.playoff > 0:
        prev = game.rounds[-2][-1]
    else:
        return f"{labels[turns[0].seat]} rolls first"
    how = (
        "took the third roll"
        if len(prev.rolls) == MAX_ROLLS
        else f"stood on roll {len(prev.rolls)}"
    )
    text = f"{labels[prev.seat]} {how}: {_hand_text(prev)}"
    if k == 0 and not game.done:
        text += " — tie: play-off of " + ", ".join(labels[s] for s in game.round_order)
    return text


def draw(match: DicePokerMatch, labels: dict[int, str]) -> np.ndarray:
    """The table of ``match`` as an H×W×3 uint8 frame (``labels``: seat -> name)."""
    game = match.game
    n = match.n_players
    n_dice = game.rules.n_dice
    f = _frame(n, n_dice)
    # header
    f.band(0, HEADER)
    game_no = min(match.games_played + (0 if game.done else 1), match.n_games)
    title = registry.by_fixed("n_dice", n_dice).short_title
    f.text((14, 12), f"{title} · {n_dice} dice", 18, bold=True)
    stage = "main round" if game.playoff == 0 else f"play-off {game.playoff}"
    f.text(
        (f.width - 14, 14),
        f"game {max(game_no, 1)}/{match.n_games} · {stage} · pot {game.pot}",
        15,
        GOLD,
        bold=True,
        anchor="ra",
    )
    # one row per seat: the turn of this round, or the seat's latest round, greyed
    latest: dict[int, Turn] = {}
    for rnd in game.rounds:
        for t in rnd:
            latest[t.seat] = t
    in_round = set(game.round_order)
    current = game.current_player
    group = _group(n_dice)
    for seat in range(n):
        y = HEADER + ROW * seat
        turn = latest.get(seat)
        active = seat in in_round
        if seat == current:
            f.band(y, y + ROW, FELT_LIGHT)
            f.band(y, y + ROW, GOLD, x1=6)
        elif seat == game.winner:
            f.band(y, y + ROW, (92, 84, 40))
        colour = INK if active else MUTED
        f.text((16, y + 10), labels[seat], 16, colour, bold=True, max_width=150)
        f.text((16, y + 34), f"seat {seat} · chips {match.chips[seat]:+d}", 13, MUTED)
        x = LEFT
        rolls = turn.rolls if turn else []
        if not rolls:
            f.text((x, y + 22), "waiting" if active else "not in this play-off", 14, MUTED)
        for j, dice in enumerate(rolls):
            f.text((x + j * group, y + 6), f"roll {j + 1}", 11, MUTED)
            draw_dice(f, (x + j * group, y + 24), dice, SMALL, gap=3)
        hand_x = x + 3 * group
        if turn and turn.hand:
            f.text((hand_x, y + 12), nice(turn.hand.name), 15, colour, bold=True, max_width=130)
            f.text((hand_x, y + 34), f"{turn.hand.points} points", 13, MUTED)
        if seat == game.winner:
            f.text((f.width - 12, y + 22), f"wins {game.pot}", 15, GOLD, bold=True, anchor="ra")
        elif seat == current:
            f.text((f.width - 12, y + 22), "to roll", 15, GOLD, bold=True, anchor="ra")
    # the panel: the dice of the player rolling, or the winner's
    y = HEADER + ROW * n
    f.band(y, y + PANEL, FELT_DARK)
    if game.done:
        win = latest[game.winner]
        text = f"{labels[game.winner]} wins the pot of {game.pot}"
        dice, held = win.rolls[-1], None
        sub = f"with {_hand_text(win)}"
    else:
        text = f"{labels[current]} to roll · roll {game.rolls_used}/{MAX_ROLLS}"
        dice, held = game.dice, game.frozen
        hand = game.rules.rank(game.dice)
        sub = f"now: {nice(hand.name)} ({hand.points})"
        if any(held):
            sub += " · blue dice are held (may not be re-rolled)"
    end = draw_dice(f, (16, y + (PANEL - BIG) // 2), dice, BIG, held, gap=10)
    f.text((end + 14, y + 28), text, 18, GOLD if game.done else INK, bold=True)
    f.text((end + 14, y + 58), sub, 14, MUTED, max_width=f.width - end - 30)
    # footer: the last action
    y += PANEL
    f.text((14, y + 9), "last: " + last_action(game, labels), 14, INK, max_width=f.width - 28)
    return f.array()
