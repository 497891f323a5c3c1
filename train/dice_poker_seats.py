"""Moved to tools/dice_poker_seats.py; this path (the module train.dice_poker_seats and the command
``python train/dice_poker_seats.py``) is kept as an alias until the next version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from tools import dice_poker_seats

if __name__ == "__main__":
    dice_poker_seats.cli()
else:
    sys.modules[__name__] = dice_poker_seats
