"""Moved to ``agents.optimal.scorecard``: an alias until the next version."""

import sys

import agents.optimal.scorecard

sys.modules[__name__] = agents.optimal.scorecard
