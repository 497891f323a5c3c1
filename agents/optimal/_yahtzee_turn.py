"""Moved to ``agents.optimal._scorecard_turn``: an alias until the next version."""

import sys

import agents.optimal._scorecard_turn

sys.modules[__name__] = agents.optimal._scorecard_turn
