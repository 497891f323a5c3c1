"""Batched engines: N games at once in numpy (state arrays with a leading batch axis).

The engine cores sit below the agents and wrappers; ``envs.vector`` puts them behind
Gymnasium's vector API and SB3's ``VecEnv``.
"""
