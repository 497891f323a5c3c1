"""Moved to tools/play.py; this path (the module train.play and the command
``python train/play.py``) is kept as an alias until the next version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from tools import play

if __name__ == "__main__":
    play.cli()
else:
    sys.modules[__name__] = play
