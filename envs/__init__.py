"""dicepoker-gym environments. ``import envs`` registers every Gymnasium id.

The ids, their entry points and fixed keywords come from the game registry
(:mod:`envs.games`); :func:`register_gym_ids` registers any game added later.
"""

import functools

from gymnasium.envs.registration import register, registry


def _make_vec(gym_id: str, num_envs: int = 1, **options):
    """``gym.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``: the batched
    engine of the game behind Gymnasium's vector API (:mod:`envs.vector`)."""
    from envs.vector import BatchedVectorEnv

    return BatchedVectorEnv(gym_id, num_envs, **options)


def register_gym_ids() -> None:
    """Register the Gymnasium id of every game in :mod:`envs.games` not registered yet."""
    from envs import games

    for name in games.names():
        game = games.get(name)
        if game.gym_id not in registry:
            register(
                id=game.gym_id,
                entry_point=game.gym_entry_point,
                vector_entry_point=(
                    functools.partial(_make_vec, game.gym_id) if game.batched_engine else None
                ),
                kwargs=dict(game.gym_kwargs),
            )


register_gym_ids()
