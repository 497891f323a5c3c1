"""Moved to tools/seeds.py; this path (the module train.seeds and the command
``python train/seeds.py``) is kept as an alias until the next version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from tools import seeds

if __name__ == "__main__":
    seeds.cli()
else:
    sys.modules[__name__] = seeds
