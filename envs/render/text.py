"""The text tables of ``render_mode="ansi"`` (and ``"human"``): every single-agent and
AEC env renders its rules-layer state with these (plain strings, no Pillow).

- :func:`render_dice_poker` (a ``DicePokerGame``: every round's rolls and hands),
- :func:`render_card_poker` (a ``CardPokerGame`` as ``viewer`` sees it),
- :func:`render_scorecard` (a ``ScorecardGame``: dice, rolls left and the card).

The old names ``envs.dice_poker.render_game``, ``envs.card_poker.render_game`` and
``envs.scorecard.render_card`` are these functions.
"""

from __future__ import annotations

from envs.rules.card_poker import HAND_SIZE, CardPokerGame
from envs.rules.dice_poker import MAX_ROLLS, DicePokerGame
from envs.rules.scorecard import N_REROLL_ACTIONS, ScorecardGame


def render_dice_poker(game: DicePokerGame, labels: dict[int, str]) -> str:
    """A text table of every round: each player's rolls and hand."""
    lines = []
    for k, rnd in enumerate(game.rounds):
        title = "main round" if k == 0 else f"play-off {k}"
        lines.append(f"-- {title} (pot {game.pot}) --")
        for t in rnd:
            rolls = "  ".join("".join(map(str, r)) for r in t.rolls)
            hand = f"{t.hand.name} ({t.hand.points})" if t.hand else "rolling..."
            mark = " <- winner" if k == game.playoff and t.seat == game.winner else ""
            lines.append(f"  seat {t.seat} {labels[t.seat]:<10} {rolls:<22} {hand}{mark}")
    if not game.done:
        frozen = "".join("*" if f else "." for f in game.frozen)
        lines.append(
            f"seat {game.current_player} to act: dice {list(game.dice)} frozen {frozen} "
            f"roll {game.rolls_used}/{MAX_ROLLS}"
        )
    return "\n".join(lines)


def render_card_poker(game: CardPokerGame, labels: dict[int, str], viewer: int | None) -> str:
    """A text table of one deal; only ``viewer``'s cards show before a showdown."""
    deck = game.deck
    shown = game.showdown.hands if game.showdown else {}
    lines = [
        f"pot {game.pot}  bid {game.level}  bids {game.n_bids}/{game.rules.max_bids}  "
        f"phase {game.phase.name.lower()}"
    ]
    for seat in game.order:
        if seat == viewer or seat in shown or viewer is None:
            cards = " ".join(f"{deck.label(c):<3}" for c in game.hands[seat])
            hand = game.hand(seat).name
        else:
            cards, hand = " ".join(["?? "] * HAND_SIZE), ""
        drew = "-" if game.drawn[seat] < 0 else str(game.drawn[seat])
        status = "in " if game.in_play[seat] else "out"
        mark = ""
        if game.showdown and seat in game.showdown.won:
            mark = f" <- wins {game.showdown.won[seat]}" + ("" if shown else " unseen")
        elif seat == game.current_player:
            mark = " <- to act"
        lines.append(
            f"  seat {seat} {labels.get(seat, ''):<10} stack {game.stacks[seat]:>4}  drew {drew}  "
            f"{status} bids {game.bids_made[seat]} ({game.bid_chips[seat]:>2})  "
            f"{cards} {hand}{mark}"
        )
    if game.events:
        log = "; ".join(f"{e.seat}: {e.text}" for e in game.events[-2 * game.n_players :])
        lines.append(f"  last actions: {log}")
    return "\n".join(lines)


def render_scorecard(game: ScorecardGame, title: str = "") -> str:
    """The dice, rolls left and the card as a text table."""
    card = game.card
    lines = [title] if title else []
    if game.done:
        lines.append(f"game over: total {card.total}")
    else:
        lines.append(
            f"dice {' '.join(map(str, game.dice))}   roll {game.rolls_used}/{MAX_ROLLS}, "
            f"{game.rolls_left} left"
        )
    options = game.fill_options()
    lines.append(f"  {'row':<16}{'score':>6}   {'now':>5}")
    for k, (row, score) in enumerate(zip(card.rows, card.scores, strict=True)):
        if card.rules.rules == "russian" and k == 6:
            lines.append(f"  {'stage-1 sum':<16}{card.upper_sum:>6}")
            lines.append(f"  {'bonus':<16}{card.bonus:>6}")
        now = f"{options[row]:>5}" if row in options else ""
        shown = "" if score is None else f"{score:>6}"
        lines.append(f"  {N_REROLL_ACTIONS + k:>2} {row:<13}{shown:>6}   {now}")
    if card.rules.rules == "classic":
        lines.append(f"  {'upper sum':<16}{card.upper_sum:>6}")
        lines.append(f"  {'upper bonus':<16}{card.bonus:>6}")
        lines.append(f"  {'yahtzee bonus':<16}{card.yahtzee_bonus:>6}")
    lines.append(f"  {'total':<16}{card.total:>6}")
    return "\n".join(lines)


__all__ = ["render_card_poker", "render_dice_poker", "render_scorecard"]
