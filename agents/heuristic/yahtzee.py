"""Moved to ``agents.heuristic.scorecard``: an alias until the next version."""

import sys

import agents.heuristic.scorecard

sys.modules[__name__] = agents.heuristic.scorecard
