"""Imported only by a benchmark run as a file (``python benchmarks/x.py``, where Python puts
``benchmarks/`` first on ``sys.path``): runs ``train/_bootstrap.py``, the one place that puts
this checkout's packages first."""

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parent.parent / "train" / "_bootstrap.py"))
