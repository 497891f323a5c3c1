"""Moved to ``agents.optimal._scorecard_tables``: an alias until the next version."""

import sys

import agents.optimal._scorecard_tables

sys.modules[__name__] = agents.optimal._scorecard_tables
