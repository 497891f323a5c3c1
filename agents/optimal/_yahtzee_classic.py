"""Moved to ``agents.optimal._scorecard_classic``: an alias until the next version."""

import sys

import agents.optimal._scorecard_classic

sys.modules[__name__] = agents.optimal._scorecard_classic
