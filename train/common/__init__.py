"""The one run protocol every trainer of ``train/`` follows.

- :mod:`train.common.config`: the YAML reader into checked dataclasses (one
  :class:`~train.common.config.ConfigError` line naming the key, the value and what is
  allowed), the ``trainer:`` a config names, the shared command line (``--config``,
  ``--total-*``, ``--seed``, ``--out``, ``--run``, ``--resume``, ``--no-progress``) and exit
  status 2 for bad input (:func:`~train.common.config.command_line`), ``metrics.csv``.
- :mod:`train.common.rundir`: the run folder ``{game}__{config}__{seed}`` (numbered ``_2``,
  ``_3``... when taken, never over a file git tracks, ``--resume`` the newest), checkpoints
  and the metrics rows each knows (kill safety).
- :mod:`train.common.progress`: one line per evaluation, with the time left, to stdout and
  ``progress.log``.
- :mod:`train.common.results`: evaluation seeds, the 95% CI, ``final.json``.
- :mod:`train.common.sb3`: the schema of a ``ppo:`` config, MaskablePPO built once, the
  vectorised envs, the self-play pool, checkpoints, evaluation of SB3 models.
"""
