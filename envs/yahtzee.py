"""The old name of :mod:`envs.scorecard` (the scorecard games' Gymnasium env), kept for code
that imports it: the same module object."""

import sys

from envs import scorecard

sys.modules[__name__] = scorecard
