"""Pictures of the tables: ``render_mode="rgb_array"`` of every env draws with these.

Each function takes rules-layer state (``envs.rules``) and returns an H×W×3 ``uint8``
frame whose size depends only on the game, its rules and the number of players, so it
stays the same through an episode; the same state always gives the same pixels.

- :func:`draw_dice_poker` (``DicePokerMatch``), :func:`draw_card_poker` (``CardPokerMatch``
  and the seat whose cards may be seen), :func:`draw_scorecard` (every player's
  ``ScorecardGame``, the seat to act and the last action).
- :mod:`envs.render.record` writes frames to a GIF or MP4 and plays recorded games.

Drawn with Pillow in DejaVu Sans (the fonts matplotlib ships); no display needed.
"""

from envs.render.card_poker import draw as draw_card_poker
from envs.render.dice_poker import draw as draw_dice_poker
from envs.render.scorecard import draw as draw_scorecard

__all__ = ["draw_card_poker", "draw_dice_poker", "draw_scorecard"]
