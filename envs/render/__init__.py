"""Pictures of the tables: ``render_mode="rgb_array"`` of every env draws with these.

Each function takes rules-layer state (``envs.rules``) and returns an H×W×3 ``uint8``
frame whose size depends only on the game, its rules and the number of players, so it
stays the same through an episode; the same state always gives the same pixels.

- :func:`draw_dice_poker` (``DicePokerMatch``), :func:`draw_card_poker` (``CardPokerMatch``
  and the seat whose cards may be seen), :func:`draw_scorecard` (every player's
  ``ScorecardGame``, the seat to act and the last action); :func:`draw` picks one by
  the state's type. ``size`` in each module gives the frame size in advance.
- :mod:`envs.render.record` writes frames to a GIF or MP4 and plays recorded games.

Drawn with Pillow in DejaVu Sans (the fonts matplotlib ships); no display needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.render.card_poker import draw as draw_card_poker
from envs.render.dice_poker import draw as draw_dice_poker
from envs.render.scorecard import draw as draw_scorecard
from envs.rules.card_poker import CardPokerMatch
from envs.rules.dice_poker import DicePokerMatch
from envs.rules.scorecard import ScorecardGame


def draw(
    state: DicePokerMatch | CardPokerMatch | Sequence[ScorecardGame],
    labels: dict[int, str],
    *,
    viewer: int | None = None,
    seat: int = 0,
    last: tuple[int, int] | None = None,
) -> np.ndarray:
    """A frame of any table: ``viewer`` is the seat whose cards show (card poker; None:
    all), ``seat`` the player to act and ``last`` the (seat, action) just played (scorecard
    games, given every player's ``ScorecardGame`` in seat order)."""
    if isinstance(state, DicePokerMatch):
        return draw_dice_poker(state, labels)
    if isinstance(state, CardPokerMatch):
        return draw_card_poker(state, labels, viewer)
    games = list(state)
    if not games or not all(isinstance(g, ScorecardGame) for g in games):
        raise ValueError(
            "draw takes a DicePokerMatch, a CardPokerMatch or a list of ScorecardGame, "
            f"got {type(state).__name__}"
        )
    return draw_scorecard(games, seat, labels, last)


__all__ = ["draw", "draw_card_poker", "draw_dice_poker", "draw_scorecard"]
