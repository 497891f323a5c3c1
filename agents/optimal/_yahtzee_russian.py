"""Moved to ``agents.optimal._scorecard_russian``: an alias until the next version."""

import sys

import agents.optimal._scorecard_russian

sys.modules[__name__] = agents.optimal._scorecard_russian
