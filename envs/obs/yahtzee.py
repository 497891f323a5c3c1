"""The old name of :mod:`envs.obs.scorecard` (the scorecard family's observation layout),
kept for code that imports it: the same module object."""

import sys

from envs.obs import scorecard

sys.modules[__name__] = scorecard
