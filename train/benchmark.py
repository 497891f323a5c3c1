"""Moved to tools/benchmark.py; this path (the module train.benchmark and the command
``python train/benchmark.py``) is kept as an alias until the next version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from tools import benchmark

if __name__ == "__main__":
    benchmark.cli()
else:
    sys.modules[__name__] = benchmark
