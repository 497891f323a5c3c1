"""Moved to :mod:`train.common.config`; this name is kept as an alias of that module."""

import sys

from train.common import config

sys.modules[__name__] = config
