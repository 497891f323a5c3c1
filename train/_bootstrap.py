"""Imported only by a file run as a script (``python train/ppo.py``): Python then puts
``train/`` itself first on ``sys.path``, so this puts the checkout it belongs to before it
(its ``envs``, ``agents``, ``train`` and ``tools``, whatever else is installed)."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if sys.path[:1] != [ROOT]:
    sys.path.insert(0, ROOT)
