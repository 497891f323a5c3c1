"""Card poker as a picture: each seat's cards (face down unless the viewer may see them),
stack, draw, bids and status, the pot and the bid level, whose turn it is, the last actions.
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
    card,
    card_back,
    nice,
)
from envs.rules.card_poker import HAND_SIZE, CardPokerGame, CardPokerMatch, Phase

WIDTH = 816
HEADER, ROW, FOOTER = 48, 84, 58
CARD_W, CARD_H, CARD_GAP = 46, 66, 6
LEFT = 200


def size(n_players: int) -> tuple[int, int]:
    """(height, width) of every frame of a table of ``n_players``."""
    f = Frame(WIDTH, HEADER + ROW * n_players + FOOTER)
    return f.height, f.width


def _card_image(game: CardPokerGame, index: int):
    c = game.deck.cards[index]
    return card(c.rank, c.suit, game.deck.is_joker(index), CARD_W, CARD_H)


def draw(match: CardPokerMatch, labels: dict[int, str], viewer: int | None) -> np.ndarray:
    """The deal of ``match`` as ``viewer`` sees it: their own cards and any shown at the
    showdown (``viewer=None``: every card; ``-1``: only shown cards)."""
    game = match.game
    rules = game.rules
    n = match.n_players
    f = Frame(WIDTH, HEADER + ROW * n + FOOTER)
    shown = game.showdown.hands if game.showdown else {}
    # header
    f.band(0, HEADER)
    if rules.deck == 54:
        deck = f"{game.deck.size} cards" + (" with two jokers" if game.deck.n_jokers else "")
    else:
        deck = "36 cards" + (f", joker {rules.joker_card}" if rules.joker_card else "")
    f.text((14, 8), f"{registry.get('card_poker').short_title} · {deck}", 17, bold=True)
    deal_no = match.deals_played + (0 if game.done else 1)
    f.text((14, 29), f"deal {max(deal_no, 1)}/{match.max_deals} · {nice_phase(game)}", 12, MUTED)
    pot = game.pot if not game.done else sum(game.showdown.won.values())
    f.text(
        (f.width - 14, 8),
        f"pot {pot} · bid {game.level} · bids {game.n_bids}/{rules.max_bids}",
        16,
        GOLD,
        bold=True,
        anchor="ra",
    )
    f.text(
        (f.width - 14, 29),
        f"reveal costs {game.reveal_cost} · bids {rules.min_bid}-{rules.max_bid}",
        12,
        MUTED,
        anchor="ra",
    )
    current = game.current_player
    for seat in range(n):
        y = HEADER + ROW * seat
        won = game.showdown.won.get(seat, 0) if game.showdown else 0
        if seat == current:
            f.band(y, y + ROW, FELT_LIGHT)
            f.band(y, y + ROW, GOLD, x1=6)
        elif won:
            f.band(y, y + ROW, (92, 84, 40))
        in_play = game.in_play[seat]
        colour = INK if in_play else MUTED
        first = " · first" if seat == game.first else ""
        f.text((16, y + 10), labels[seat], 16, colour, bold=True, max_width=LEFT - 24)
        f.text((16, y + 33), f"seat {seat} · stack {game.stacks[seat]}{first}", 12, MUTED)
        drew = "not drawn yet" if game.drawn[seat] < 0 else f"drew {game.drawn[seat]}"
        status = f"{drew} · bids {game.bids_made[seat]} ({game.bid_chips[seat]} chips)"
        f.text((16, y + 52), status if in_play else f"{drew} · passed", 12, MUTED)
        visible = viewer is None or seat == viewer or seat in shown
        x = LEFT
        for index in game.hands[seat]:
            image = _card_image(game, index) if visible else card_back(CARD_W, CARD_H)
            f.paste(image, (x, y + (ROW - CARD_H) // 2))
            x += CARD_W + CARD_GAP
        x += 8
        if visible:
            f.text((x, y + 20), nice(game.hand(seat).name), 15, colour, bold=True, max_width=170)
            if seat in shown:
                f.text((x, y + 44), "shown", 12, MUTED)
        if won:
            unseen = "" if shown else " unseen"
            f.text((f.width - 12, y + 30), f"wins {won}{unseen}", 15, GOLD, bold=True, anchor="ra")
        elif seat == current:
            f.text((f.width - 12, y + 30), "to act", 15, GOLD, bold=True, anchor="ra")
    # footer: the last actions of this deal (or how the last deal ended)
    y = HEADER + ROW * n
    f.band(y, f.height, FELT_DARK)
    lines = last_actions(match, labels, 2 * n)
    for k, line in enumerate(lines[-2:]):
        f.text((14, y + 8 + 22 * k), line, 14, INK, max_width=f.width - 28)
    return f.array()


def nice_phase(game: CardPokerGame) -> str:
    return {Phase.DRAW: "draw", Phase.BET: "betting", Phase.OVER: "deal over"}[game.phase]


def _outcome(game: CardPokerGame, labels: dict[int, str]) -> str:
    sd = game.showdown
    won = ", ".join(f"{labels[s]} ({c} chips)" for s, c in sd.won.items())
    if not sd.hands:
        return f"the others passed: the pot goes unseen to {won}"
    best = sd.hands[sd.winners[0]]
    return f"showdown: the pot goes to {won} with {nice(best.name)}"


def last_actions(match: CardPokerMatch, labels: dict[int, str], count: int) -> list[str]:
    """Up to two lines: the last ``count`` actions of this deal and how it ended."""
    game = match.game
    if not game.events:
        if match.previous is not None:
            return ["last deal: " + _outcome(match.previous, labels), "new deal: cards dealt"]
        return [f"cards dealt: {HAND_SIZE} each, {labels[game.order[0]]} draws first"]
    events = game.events[-count:]
    text = "last: " + "; ".join(f"{labels[e.seat]} {_event_text(e)}" for e in events)
    lines = [text]
    if game.showdown:
        lines.append(_outcome(game, labels))
    return lines


def _event_text(event) -> str:
    if event.phase == Phase.DRAW and event.paid:
        return f"{event.text} (fee {event.paid})"
    return event.text
