"""dicepoker-gym environments. ``import envs`` registers every Gymnasium id.

The ids, their entry points and fixed keywords come from the game registry
(:mod:`envs.games`); :func:`register_gym_ids` registers any game added later.
"""

from gymnasium.envs.registration import register, registry


def register_gym_ids() -> None:
    """Register the Gymnasium id of every game in :mod:`envs.games` not registered yet."""
    from envs import games

    for name in games.names():
        game = games.get(name)
        if game.gym_id not in registry:
            register(id=game.gym_id, entry_point=game.gym_entry_point, kwargs=dict(game.gym_kwargs))


register_gym_ids()
