"""Moved to tools/curves.py; this path (the module train.curves and the command
``python train/curves.py``) is kept as an alias until the next version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from tools import curves

if __name__ == "__main__":
    curves.cli()
else:
    sys.modules[__name__] = curves
