"""Moved to tools/playing/; ``train.playing`` and its modules are kept as aliases of those
until the next version."""

import importlib
import sys

import tools.playing

for _name in ("base", "card_poker", "coach", "console", "dice_poker", "scorecard"):
    sys.modules[f"{__name__}.{_name}"] = importlib.import_module(f"tools.playing.{_name}")
sys.modules[__name__] = tools.playing
