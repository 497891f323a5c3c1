"""dicepoker-gym environments. ``import envs`` registers every Gymnasium id.

The ids, their entry points and fixed keywords come from the game registry
(:mod:`envs.games`); :func:`register_gym_ids` registers any game added later.
"""

import functools

from gymnasium.envs.registration import load_env_creator, register, registry

# The envs take opponents as Agents or batched policies only. The front doors registered
# here (gym.make, gym.make_vec) and the RLlib creator (envs.rllib) resolve agent specs
# ("heuristic", "ppo:PATH") with this function of the agents layer, one floor up, named as
# a string and imported only when called, as Gymnasium's own entry points are: no module of
# envs imports agents.
SEAT_OPTIONS = "agents.tables:seat_options"


def seat_options(gym_id: str, options: dict, batched: bool = False) -> dict:
    """``options`` with the opponents' agent specs as Agents (:data:`SEAT_OPTIONS`)."""
    return load_env_creator(SEAT_OPTIONS)(gym_id, options, batched)


def _make_vec(gym_id: str, num_envs: int = 1, **options):
    """``gym.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``: the batched
    engine of the game behind Gymnasium's vector API (:mod:`envs.vector`)."""
    from envs.vector import BatchedVectorEnv

    return BatchedVectorEnv(gym_id, num_envs, **seat_options(gym_id, options, batched=True))


class _IdEntryPoint:
    """``gym.make(id)``'s creator: the game's env class (``metadata`` is the class's, so
    Gymnasium's render-mode handling is unchanged), refusing a keyword that contradicts the
    id (``gym.make("PokerNaKostyah-v0", rules="classic")``), as ``gym.make_vec`` does, with the
    opponents' agent specs resolved one floor up (:data:`SEAT_OPTIONS`)."""

    def __init__(self, gym_id: str) -> None:
        self.gym_id = gym_id

    def _creator(self):
        from envs import games

        game = games.by_gym_id(self.gym_id)
        entry = game.gym_entry_point
        return game, (load_env_creator(entry) if isinstance(entry, str) else entry)

    @property
    def metadata(self) -> dict:
        return getattr(self._creator()[1], "metadata", {})

    def __call__(self, **kwargs):
        from envs import games

        game, creator = self._creator()
        games.check_id_kwargs(game, kwargs, self.gym_id)
        return creator(**seat_options(self.gym_id, kwargs))

    def __repr__(self) -> str:
        return f"envs entry point of {self.gym_id}"


def register_gym_ids() -> None:
    """Register the Gymnasium id of every game in :mod:`envs.games` not registered yet."""
    from envs import games

    for name in games.names():
        game = games.get(name)
        for gym_id in (game.gym_id, *game.gym_aliases):  # an alias plays the same env
            if gym_id not in registry:
                register(
                    id=gym_id,
                    entry_point=_IdEntryPoint(gym_id),
                    vector_entry_point=(
                        functools.partial(_make_vec, gym_id) if game.batched_engine else None
                    ),
                    kwargs=dict(game.gym_kwargs),
                )


register_gym_ids()
