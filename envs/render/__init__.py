"""Pictures of the tables: ``render_mode="rgb_array"`` of every env draws with these.

Each function takes rules-layer state (``envs.rules``) and returns an H×W×3 ``uint8``
frame whose size depends only on the game, its rules and the number of players, so it
stays the same through an episode; the same state always gives the same pixels.

- :func:`draw_dice_poker` (``DicePokerMatch``), :func:`draw_card_poker` (``CardPokerMatch``
  and the seat whose cards may be seen), :func:`draw_scorecard` (every player's
  ``ScorecardGame``, the seat to act and the last action); :func:`draw` picks one by
  the state's type. ``size`` in each module gives the frame size in advance.
- :mod:`envs.render.text`: the text tables of ``render_mode="ansi"``.
- :mod:`envs.render.record` writes frames to a GIF or MP4 and plays recorded games.

Drawn with Pillow in DejaVu Sans (the fonts matplotlib ships); no display needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.rules.card_poker import CardPokerMatch
from envs.rules.dice_poker import DicePokerMatch
from envs.rules.scorecard import ScorecardGame

# The frames are drawn with Pillow, loaded only when one is asked for: the text tables
# (envs.render.text) are imported by every env, Pillow by none until it draws.
_DRAWERS = {
    "draw_card_poker": "envs.render.card_poker",
    "draw_dice_poker": "envs.render.dice_poker",
    "draw_scorecard": "envs.render.scorecard",
}


def __getattr__(name: str):
    if name in _DRAWERS:
        from importlib import import_module

        return import_module(_DRAWERS[name]).draw
    raise AttributeError(f"module 'envs.render' has no attribute {name!r}")


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
        return __getattr__("draw_dice_poker")(state, labels)
    if isinstance(state, CardPokerMatch):
        return __getattr__("draw_card_poker")(state, labels, viewer)
    games = list(state)
    if not games or not all(isinstance(g, ScorecardGame) for g in games):
        raise ValueError(
            "draw takes a DicePokerMatch, a CardPokerMatch or a list of ScorecardGame, "
            f"got {type(state).__name__}"
        )
    return __getattr__("draw_scorecard")(games, seat, labels, last)


__all__ = ["draw", "draw_card_poker", "draw_dice_poker", "draw_scorecard"]
