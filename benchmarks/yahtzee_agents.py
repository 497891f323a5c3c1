"""Moved to benchmarks/scorecard_agents.py; this path (the module benchmarks.yahtzee_agents
and the command ``python benchmarks/yahtzee_agents.py``) is kept as an alias until the next
version."""

if not __package__:  # run as a file: this checkout's packages first
    import _bootstrap  # noqa: F401

import sys

from benchmarks import scorecard_agents

if __name__ == "__main__":
    scorecard_agents.main()
else:
    sys.modules[__name__] = scorecard_agents
