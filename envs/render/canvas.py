"""What every table picture shares: fonts, colours, dice faces, cards, and the frame itself.

Fonts are the DejaVu faces that matplotlib (a dependency of the project) ships in its
package data, found without importing matplotlib, so a bare machine draws the same
pixels as a developer's: DejaVu covers the Cyrillic titles and the suit symbols.
Dice and card images are drawn once per size and pasted, so a frame costs a few
milliseconds.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FELT = (30, 91, 58)
FELT_DARK = (22, 72, 45)
FELT_LIGHT = (44, 116, 76)
INK = (244, 241, 232)
MUTED = (160, 190, 170)
GOLD = (242, 193, 78)
RED = (200, 40, 40)
BLACK = (26, 26, 26)
HELD = (47, 111, 214)
HELD_FILL = (212, 228, 255)
IVORY = (251, 250, 245)
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")  # spades hearts diamonds clubs
BLOCK = 16  # frame sides are multiples of this, which video encoders want


def _font_dir() -> Path:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("rgb_array rendering needs matplotlib's DejaVu fonts; pip install it")
    return Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


FONT_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (``bold``: DejaVu Sans Bold) at ``size`` pixels."""
    return ImageFont.truetype(str(_font_dir() / FONT_FILES["bold" if bold else "regular"]), size)


def round_up(x: int) -> int:
    return -(-x // BLOCK) * BLOCK


class Frame:
    """A picture being drawn: ``draw`` (PIL ImageDraw) and helpers; :meth:`array` ends it."""

    def __init__(self, width: int, height: int) -> None:
        self.size = (round_up(width), round_up(height))
        self.image = Image.new("RGB", self.size, FELT)
        self.draw = ImageDraw.Draw(self.image)

    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 14,
        fill: tuple[int, int, int] = INK,
        bold: bool = False,
        anchor: str = "la",
        max_width: int | None = None,
    ) -> int:
        """Draw ``text`` (cut with an ellipsis to ``max_width`` pixels); returns its width."""
        f = font(size, bold)
        if max_width is not None and f.getlength(text) > max_width:
            while text and f.getlength(text + "…") > max_width:
                text = text[:-1]
            text += "…"
        self.draw.text(xy, text, font=f, fill=fill, anchor=anchor)
        return int(f.getlength(text))

    def band(self, y0: int, y1: int, fill=FELT_DARK, x0: int = 0, x1: int | None = None) -> None:
        self.draw.rectangle((x0, y0, (self.width if x1 is None else x1) - 1, y1 - 1), fill=fill)

    def paste(self, image: Image.Image, xy: tuple[int, int]) -> None:
        self.image.paste(image, (int(xy[0]), int(xy[1])))

    def array(self) -> np.ndarray:
        """The frame as an H×W×3 uint8 array."""
        return np.asarray(self.image, dtype=np.uint8).copy()


# -- dice -----------------------------------------------------------------------------------

_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


@cache
def die(face: int, size: int, held: bool = False) -> Image.Image:
    """A die showing ``face`` (1-6); ``held``: tinted blue with a thick blue edge."""
    if face not in _PIPS:
        raise ValueError(f"a die shows 1-6, got {face!r}")
    image = Image.new("RGB", (size, size), FELT)
    d = ImageDraw.Draw(image)
    edge = max(2, size // 12) if held else max(1, size // 24)
    d.rounded_rectangle(
        (0, 0, size - 1, size - 1),
        radius=size // 6,
        fill=HELD_FILL if held else IVORY,
        outline=HELD if held else (70, 70, 70),
        width=edge,
    )
    r = max(1.5, size * 0.085)
    for px, py in _PIPS[face]:
        cx, cy = px * (size - 1), py * (size - 1)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=RED if face == 1 else BLACK)
    return image


def draw_dice(
    frame: Frame,
    xy: tuple[int, int],
    dice,
    size: int,
    held=None,
    gap: int | None = None,
) -> int:
    """Dice in a row from ``xy``; returns the x after the last die."""
    gap = max(2, size // 7) if gap is None else gap
    x, y = xy
    for i, face in enumerate(dice):
        frame.paste(die(int(face), size, bool(held[i]) if held is not None else False), (x, y))
        x += size + gap
    return x


# -- cards ----------------------------------------------------------------------------------

RANK_NAMES = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}


@cache
def card(rank: int, suit: int, joker: bool, width: int, height: int) -> Image.Image:
    """A card face: rank and suit in red or black; ``rank == 0`` is the printed joker.

    ``joker`` marks a natural card that plays the joker (the 36-card deck's 6S): a
    gold edge and a star.
    """
    image = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(image)
    radius = width // 8
    if rank == 0:  # the printed joker: its own colours, so it is never taken for a suit card
        d.rounded_rectangle(
            (0, 0, width - 1, height - 1), radius, fill=(92, 36, 128), outline=GOLD, width=3
        )
        d.text((width / 2, height * 0.42), "★", font=font(width // 2, True), fill=GOLD, anchor="mm")
        d.text(
            (width / 2, height * 0.8), "JOKER", font=font(width // 5, True), fill=INK, anchor="mm"
        )
        return image
    colour = RED if suit in (1, 2) else BLACK
    d.rounded_rectangle(
        (0, 0, width - 1, height - 1),
        radius,
        fill=IVORY,
        outline=GOLD if joker else (90, 90, 90),
        width=3 if joker else 1,
    )
    label = RANK_NAMES.get(rank, str(rank))
    d.text((4, 2), label, font=font(width * 2 // 5, True), fill=colour, anchor="la")
    d.text(
        (width / 2, height * 0.62),
        SUIT_SYMBOLS[suit],
        font=font(width * 3 // 5),
        fill=colour,
        anchor="mm",
    )
    if joker:
        d.text((width - 4, 3), "★", font=font(width // 3, True), fill=(200, 140, 0), anchor="ra")
    return image


@cache
def card_back(width: int, height: int) -> Image.Image:
    image = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(image)
    d.rounded_rectangle(
        (0, 0, width - 1, height - 1), width // 8, fill=(39, 64, 139), outline=IVORY, width=2
    )
    for k in range(-height, width, 7):
        d.line((k, height - 5, k + height, 4), fill=(60, 92, 180), width=1)
    d.rounded_rectangle((4, 4, width - 5, height - 5), width // 10, outline=IVORY, width=1)
    return image


def nice(name: str) -> str:
    """``"full_house"`` -> ``"full house"``."""
    return name.replace("_", " ")
