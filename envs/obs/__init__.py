"""What a seat sees, as numbers: one :class:`Layout` per game (named slices with
bounds -> ``encode``, ``decode``, ``box``), and each game's ``observe`` that reads
a rules-layer game into it.

Below the agents and above the rules: imports ``envs.rules`` and numpy only
(``Layout.box`` imports ``gymnasium.spaces`` when it is called).
"""

from envs.obs.layout import Field, Layout

__all__ = ["Field", "Layout"]
