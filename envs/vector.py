"""Batched engines behind Gymnasium's vector API and SB3's ``VecEnv``.

``gym.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point", **options)``
returns a :class:`BatchedVectorEnv`: one numpy engine steps all N games per call (no
per-env Python work). Autoreset is ``SAME_STEP``: when a game ends, ``step`` returns the
first observation of the next game in its place, with the last observation of the
finished one in ``infos["final_obs"]`` (an object array, ``None`` elsewhere; the mask
``infos["_final_obs"]``), its last info in ``infos["final_info"]`` (``_final_info``; its
``action_mask``, all False) and its return in ``infos["episode_return"]``.
``infos["action_mask"]`` (and :meth:`action_masks`) is the ``(N, A)`` bool mask. ``reset``
is the engine's own ``reset`` after the seeding: the opponents move once, up to the
learner's first decision at every game, and draw nothing more than the engine would.
``reset(seed=...)`` takes what Gymnasium's vector envs take (None, an int, or a list of
``num_envs`` ints >= 0 or Nones; anything else, a list of another length or ``True`` is one
``ValueError``). An int seeds the engine's one Generator, which draws every game (the same
int, the same games; the fast path). A list seeds game ``i`` with ``seed[i]``, as Gymnasium
seeds sub-env ``i``: each game then draws its dice, cards and seats, and its opponents their
random choices, from its own Generator (:mod:`envs.batched.draws`), so game ``i``'s episodes
depend only on ``seed[i]`` and its own actions, not on the other games or ``num_envs``.
A ``None`` in the list leaves that game's stream as it is (a fresh unseeded one if the games
had no streams of their own yet); a list of Nones leaves everything as it is; an int seed
returns to the one Generator. On that path every opponent is seeded with 0, whatever the
list: what it draws outside a game's step (the card bluffer's card keys) is the same for
every list. The per-game draws cost speed (:func:`seed_engine`). The engines draw no
frames: ``render_mode`` must be None (``vectorization_mode="sync"`` renders each game).

:class:`BatchedVecEnv` is the same engine as an SB3 ``VecEnv`` that sb3-contrib's
``MaskablePPO`` takes directly: ``env_method("action_masks")`` returns the ``(N, A)``
array, finished games reset in the same step with ``terminal_observation`` and an
``episode`` record (``r``, ``l``, ``t``, as SB3's ``Monitor`` writes) in their info.

Both take ``illegal_action`` (``"raise"``, the default: one illegal action raises and no
game moves; ``"terminate"``; ``"penalize"``), ``illegal_penalty`` and ``max_illegal_steps``
as the scalar envs do (:class:`envs.games.IllegalActions`): the games with an illegal action
do not move, the others step; ``infos["illegal_action"]`` (and ``"_illegal_action"``) marks
them, per game ``info["illegal_action"]`` in the SB3 ``VecEnv``, where a truncated game also
has ``TimeLimit.truncated``. The engines themselves do not take these options.

An engine is any object with ``n``, ``n_actions``, ``layout`` (its observation layout),
``reset(which=None)``, ``step(actions) -> rewards``, ``done``, ``observe()`` and
``action_masks()`` (``envs.batched``); :func:`make_engine` builds the one of a registered
id. An engine class lists the table options it takes, with their defaults, in
``table_options`` (e.g. the poker tables' ``n_players``, ``opponents``, ``agent_seat``);
opponents are Agents (played through their ``act_batch``) or callables on a batch of
(observations, masks). Opponents given by name ("heuristic", "random", "ppo:PATH") are
resolved one floor up: ``gym.make_vec`` does it through the entry point ``import envs``
registers, and :mod:`agents.tables` has :func:`make_engine`, :class:`BatchedVecEnv` and
:func:`play_games` that take names. An engine with ``seed(seed)`` is re-seeded through it
(its opponents too).
"""

from __future__ import annotations

import time
import warnings
from importlib import import_module
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from stable_baselines3.common.vec_env import VecEnv

from envs import games
from envs.batched.draws import GameDraws
from envs.spaces import LegalDiscrete

BATCHED_IDS = tuple(
    games.get(name).gym_id for name in games.names() if games.get(name).batched_engine
)
_BATCH_TABLE = ("reward_scale", "render_mode")  # table options a batched engine takes


def make_engine(env_id: str, num_envs: int, seed: int | None = None, **options):
    """``(engine, single observation space, reward_scale)`` of a registered id."""
    game = games.by_gym_id(env_id)
    if not game.batched_engine:
        ids = [games.get(n).gym_id for n in games.names() if games.get(n).batched_engine]
        raise ValueError(f"no batched engine for {env_id!r}; batched ids: {ids}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    games.check_id_kwargs(game, options, env_id)  # e.g. rules="classic" under PokerNaKostyah-v0
    options = {k: v for k, v in options.items() if k not in game.gym_kwargs}
    rule_options, table = game.split_options(options)
    module, cls = game.batched_engine.split(":")
    engine_cls = getattr(import_module(module), cls)
    takes = dict(getattr(engine_cls, "table_options", {}))  # its own table options, defaults
    wrong = sorted(set(table) - set(_BATCH_TABLE) - set(takes))
    if wrong:
        raise TypeError(
            f"option(s) {wrong} do not apply to the batched {env_id}; it takes the rule "
            f"options {list(game.rule_options)} and {[*_BATCH_TABLE, *takes]}"
        )
    if table.get("render_mode") is not None:
        raise ValueError(
            f"the batched {env_id} draws no frames: render_mode must be None, got "
            f"{table['render_mode']!r} (gym.make_vec(..., vectorization_mode='sync') renders)"
        )
    reward_scale = games.check_positive("reward_scale", table.get("reward_scale", 1.0))
    rules = game.make_rules(**rule_options)
    kwargs = {k: table[k] for k in takes if k in table}
    if "opponents" in takes:
        kwargs["opponents"] = _opponents(kwargs.get("opponents"))
    engine = engine_cls(int(num_envs), rules, seed=seed, **kwargs)
    return engine, engine.layout.box(), float(reward_scale)


def _opponents(spec: Any) -> Any:
    """The opponents as they sit: an Agent or any callable on a batch of (observations,
    masks), or a list of them. Agent specs are resolved one floor up (``gym.make_vec``,
    :mod:`agents.tables`)."""
    for s in spec if isinstance(spec, list | tuple) else [spec]:
        if isinstance(s, str):
            raise ValueError(
                f"the opponent {s!r} is an agent name: gym.make_vec and agents.tables "
                f"(make_engine, BatchedVecEnv, play_games) resolve names; envs.vector takes "
                f"Agents or callables on a batch of (observations, masks)"
            )
        if not (callable(s) or callable(getattr(s, "act_batch", None))):
            raise ValueError(
                f"an opponent is an agent name (e.g. 'heuristic'), an Agent or a callable on a "
                f"batch of (observations, masks), got {s!r}"
            )
    return spec


def reseed(engine: Any, seed: int) -> None:
    """A fresh Generator from ``seed`` for the engine (and its opponents, where it has any)."""
    if callable(getattr(engine, "seed", None)):
        engine.seed(seed)
    else:
        engine.rng = np.random.default_rng(seed)


class IllegalSteps:
    """``illegal_action`` on a batched engine (:class:`envs.games.IllegalActions`).

    ``"raise"``: the engine's own check (one illegal action raises, no game moves).
    ``"terminate"``: the games with an illegal action do not move and end at once, paid the
    penalty minus the learner's stake in the game in play (``engine.stakes()``, the
    betting tables; as the scalar envs' forfeit); the others step. ``"penalize"``: those
    games do not move and are paid the penalty; ``max_illegal_steps`` in a row truncate one.
    Rewards are in the engine's units (chips, points), before ``reward_scale``.
    """

    def __init__(self, illegal: games.IllegalActions, n: int) -> None:
        self.illegal = illegal
        self.run = np.zeros(n, dtype=np.int64)  # illegal actions in a row, per game

    def step(self, engine: Any, actions: Any):
        """``(rewards, terminated, truncated, illegal)`` of one step; the games that ended
        are for the caller to reset."""
        if self.illegal.raises:
            rewards = engine.step(actions).astype(np.float64)
            none = np.zeros(engine.n, dtype=bool)
            return rewards, engine.done.copy(), none, none
        return self.settle(engine, *self.judge(engine, actions))

    def judge(self, engine: Any, actions: Any, live: np.ndarray | None = None):
        """``(actions, illegal)``: the actions as int64 (0 where out of range) and which of
        the games ``live`` (default all) play an illegal one; nothing moves. Actions that
        are not one integer per game are a ``ValueError`` in every mode."""
        a = np.asarray(actions)
        if a.shape != (engine.n,) or not np.issubdtype(a.dtype, np.integer) or a.dtype == bool:
            raise ValueError(
                f"actions must be an integer array of shape ({engine.n},), got {a.dtype} {a.shape}"
            )
        a = a.astype(np.int64)
        inside = (a >= 0) & (a < engine.n_actions)
        at = np.where(inside, a, 0)
        illegal = ~(inside & engine.action_masks()[np.arange(engine.n), at])
        return at, illegal if live is None else illegal & live

    def settle(
        self, engine: Any, at: np.ndarray, illegal: np.ndarray, live: np.ndarray | None = None
    ):
        """:meth:`step` after :meth:`judge`: the legal moves of the games ``live`` (default
        all) are played, the illegal ones paid and ended as the mode says."""
        moving = ~illegal if live is None else live & ~illegal
        stakes = engine.stakes() if illegal.any() and hasattr(engine, "stakes") else 0
        if live is None or moving.any():
            rewards = engine.step_some(at, moving).astype(np.float64)
        else:
            rewards = np.zeros(engine.n)
        self.run = np.where(illegal, self.run + 1, 0)
        truncated = np.zeros(engine.n, dtype=bool)
        terminated = engine.done.copy()
        if live is not None:
            rewards, terminated = np.where(live, rewards, 0.0), terminated & live
        if self.illegal.mode == "terminate":
            rewards -= np.where(illegal, stakes, 0)
            terminated |= illegal
        else:
            truncated = illegal & (self.run >= self.illegal.max_steps)
        rewards[illegal] += self.illegal.penalty
        self.run[terminated | truncated] = 0
        return rewards, terminated, truncated, illegal


def _whole(s: Any) -> bool:
    return isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 0


def batch_seed(seed: Any, n: int) -> int | list[int | None] | None:
    """A vector env's ``reset(seed=...)`` checked: None (leave the draws as they are), one
    int (the engine's Generator) or a list of ``n`` ints or Nones, not all None (game ``i``
    from ``seed[i]``); one ``ValueError`` naming the bad value otherwise (module docstring)."""
    if seed is None:
        return None
    if _whole(seed):
        return int(seed)
    if isinstance(seed, list | tuple | np.ndarray):
        seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"seed lists {len(seeds)} seeds for {n} games; give {n}, or one int")
        bad = [s for s in seeds if s is not None and not _whole(s)]
        if not bad:
            if all(s is None for s in seeds):
                return None
            return [s if s is None else int(s) for s in seeds]
        raise ValueError(
            f"seed must be None, a whole number >= 0 or a list of {n} of them (or None), "
            f"got {seed!r} (e.g. {bad[0]!r})"
        )
    raise ValueError(
        f"seed must be None, a whole number >= 0 or a list of {n} of them, got {seed!r}"
    )


def seed_engine(engine: Any, seed: Any) -> None:
    """``reset(seed=...)`` of a vector env on its engine (module docstring), checked first
    (:func:`batch_seed`; nothing changes on a bad seed).

    A list gives each game its own stream (``engine.draws``), read as a buffer of uniforms
    per game; it costs speed. ``python benchmarks/per_game_seeds.py --repeats 3`` (random
    legal actions, N = 1,024, CPU time, a shared machine at load 9-10) measured the list
    against an int seed at 0.86x on ``YahtzeeClassic-v0`` (226k against 261k steps/s),
    0.86x on ``DicePoker-v0`` (67k against 78k) and 0.97x on ``CardPoker-v0`` (5.5k
    against 5.7k).
    """
    n = engine.n
    seed = batch_seed(seed, n)
    if seed is None:
        return
    if isinstance(seed, int):
        if getattr(engine, "draws", None) is not None:
            engine.draws = None
        reseed(engine, seed)
        return
    if not hasattr(engine, "draws"):
        raise ValueError(
            f"this engine ({type(engine).__name__}) draws from one Generator: seed it with "
            f"one int, not a list"
        )
    had = engine.draws
    reseed(engine, 0)  # the opponents' own Generators: the same for every list
    engine.draws = GameDraws(seed, getattr(engine, "draw_block", 64), keep=had)


class _Episodes:
    """Per-game running return and length; the record of the games that just ended."""

    def __init__(self, n: int) -> None:
        self.ret = np.zeros(n)
        self.len = np.zeros(n, dtype=np.int64)
        self.start = time.perf_counter()

    def add(self, rewards: np.ndarray, done: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.ret += rewards
        self.len += 1
        out = self.ret[done].copy(), self.len[done].copy()
        self.ret[done] = 0.0
        self.len[done] = 0
        return out


class BatchedVectorEnv(VectorEnv):
    """A Gymnasium ``VectorEnv`` over one batched engine (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int = 1, **options: Any) -> None:
        illegal = games.pop_illegal(options)
        self.engine, self.single_observation_space, self.reward_scale = make_engine(
            env_id, num_envs, **options
        )
        self._illegal = IllegalSteps(illegal, self.engine.n)
        self.num_envs = self.engine.n
        self.single_action_space = LegalDiscrete(self.engine.n_actions, self._first_mask)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(gym.spaces.Discrete(self.engine.n_actions), self.num_envs)
        self.spec = None
        self._episodes = _Episodes(self.num_envs)
        self._started = False

    def _first_mask(self) -> np.ndarray:
        return self.engine.action_masks()[0]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"reset takes no options, got {options!r}")
        seed_engine(self.engine, seed)
        self.engine.reset()
        self._episodes = _Episodes(self.num_envs)
        self._illegal.run[:] = 0
        self._started = True
        return self.engine.observe(), {"action_mask": self.engine.action_masks()}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        rewards, terminated, truncated, illegal = self._illegal.step(self.engine, actions)
        rewards = rewards * self.reward_scale
        done = terminated | truncated
        infos: dict[str, Any] = {}
        if illegal.any():
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        returns, _ = self._episodes.add(rewards, done)
        if done.any():
            final = np.full(self.num_envs, None, dtype=object)
            last = self.engine.observe()
            for g in np.flatnonzero(done):
                final[g] = last[g]
            infos["final_obs"], infos["_final_obs"] = final, done.copy()
            # the info each finished game would have had: nothing legal is left there
            last_mask = np.zeros((self.num_envs, self.engine.n_actions), dtype=bool)
            infos["final_info"] = {"action_mask": last_mask, "_action_mask": done.copy()}
            infos["_final_info"] = done.copy()
            ret = np.zeros(self.num_envs)
            ret[done] = returns
            infos["episode_return"], infos["_episode_return"] = ret, done.copy()
            self.engine.reset(done)
        infos["action_mask"] = self.engine.action_masks()
        return self.engine.observe(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        return self.engine.action_masks()


class BatchedVecEnv(VecEnv):
    """An SB3 ``VecEnv`` over one batched engine (module docstring)."""

    def __init__(self, env_id: str, num_envs: int, seed: int | None = None, **options) -> None:
        illegal = games.pop_illegal(options)
        self.engine, observation_space, self.reward_scale = make_engine(
            env_id, num_envs, seed=seed, **options
        )
        self._illegal = IllegalSteps(illegal, self.engine.n)
        self.env_id = env_id
        action_space = gym.spaces.Discrete(self.engine.n_actions)
        self.render_mode = None  # VecEnv asks for it; the batched engines draw no frames
        super().__init__(self.engine.n, observation_space, action_space)
        self._actions: np.ndarray | None = None
        self._episodes = _Episodes(self.num_envs)

    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:
            reseed(self.engine, self._seeds[0])
        self._reset_seeds()
        self.engine.reset()
        self._episodes = _Episodes(self.num_envs)
        self._illegal.run[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.engine.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        rewards, terminated, truncated, illegal = self._illegal.step(self.engine, self._actions)
        rewards = (rewards * self.reward_scale).astype(np.float32)
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g in np.flatnonzero(illegal):
            infos[g]["illegal_action"] = True
        for g in np.flatnonzero(truncated):
            infos[g]["TimeLimit.truncated"] = True  # SB3 bootstraps from the last observation
        returns, lengths = self._episodes.add(rewards, done)
        if done.any():
            last = self.engine.observe()
            elapsed = round(time.perf_counter() - self._episodes.start, 6)
            for i, g in enumerate(np.flatnonzero(done)):
                infos[g]["terminal_observation"] = last[g]
                infos[g]["episode"] = {"r": float(returns[i]), "l": int(lengths[i]), "t": elapsed}
            self.engine.reset(done)
        return self.engine.observe(), rewards, done.copy(), infos

    def action_masks(self) -> np.ndarray:
        return self.engine.action_masks()

    # -- the VecEnv plumbing: one engine, so every "env" answers alike --------------------
    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        chosen = self._get_indices(indices)
        if sorted(chosen) != list(range(self.num_envs)):
            # one engine holds every game: an attribute is every game's or none's
            raise ValueError(
                f"set_attr({attr_name!r}) for the games {chosen}: one batched engine plays "
                f"all {self.num_envs} games, so an attribute is set for all of them "
                f"(indices=None) or none"
            )
        setattr(self, attr_name, value)

    def get_images(self) -> list[None]:
        """None per game, with the warning SB3's ``DummyVecEnv`` gives when its envs do not
        render ``rgb_array``: the batched engines draw no frames."""
        warnings.warn(
            f"The render mode is {self.render_mode}, but this method assumes it is "
            f"`rgb_array` to obtain images.",
            stacklevel=2,
        )
        return [None] * self.num_envs

    def env_method(self, method_name: str, *args, indices=None, **kwargs):
        if method_name == "action_masks":  # MaskablePPO stacks this: (N, A) at once
            return self.engine.action_masks()[self._get_indices(indices)]
        result = getattr(self, method_name)(*args, **kwargs)
        return [result] * len(self._get_indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _get_indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def play_games(
    act_batch, env_id: str, n_games: int, seed: int = 0, stats: dict | None = None, **options: Any
) -> np.ndarray:
    """Final returns of ``n_games`` games played side by side on the batched engine.

    ``act_batch(observations (m, D), masks (m, A)) -> actions (m,)`` is asked only for
    the games still running; what it returns must be ``m`` integer actions (a
    ``ValueError`` naming what it returned otherwise). Same seed, same games: every agent
    measured with one seed meets the same dice (as far as its own moves let the dice fall
    alike). ``illegal_action``, ``illegal_penalty`` and ``max_illegal_steps`` are those of
    the envs (:class:`IllegalSteps`, e.g. a mask-unaware model measured as it was trained):
    under ``"terminate"`` a game with an illegal action ends there, its return what it had
    plus the penalty (less its stake at a betting table); under ``"penalize"`` the game
    does not move, pays the penalty, and ends after ``max_illegal_steps`` in a row.
    ``stats`` (a dict), for the scorecard games, receives the final cards' bonuses:
    ``bonus`` (bool: the card bonus won), ``card_bonus`` and ``yahtzee_bonus`` (points).
    """
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 2:
        raise ValueError(f"n_games must be an integer >= 2, got {n_games!r}")
    steps = IllegalSteps(games.pop_illegal(options), n_games)
    engine, _, scale = make_engine(env_id, n_games, seed=seed, **options)
    engine.reset()
    totals = np.zeros(n_games)
    live = np.ones(n_games, dtype=bool)
    actions = np.zeros(n_games, dtype=np.int64)
    while live.any():
        masks = engine.action_masks()
        idx = np.flatnonzero(live)
        chosen = np.asarray(act_batch(engine.observe()[idx], masks[idx]))
        if chosen.shape != idx.shape or chosen.dtype.kind not in "iu":
            raise ValueError(
                f"act_batch returned {chosen.dtype} of shape {chosen.shape} for {len(idx)} "
                f"games; expected ({len(idx)},) integer actions"
            )
        actions[idx] = chosen
        if not live.all():  # finished games wait: any action they allow is skipped below
            actions[~live] = 0
        if steps.illegal.raises:
            totals += np.where(live, engine.step_some(actions, live), 0) * scale
            live &= ~engine.done
        else:
            rewards, terminated, truncated, _ = steps.settle(
                engine, *steps.judge(engine, actions, live), live
            )
            totals += rewards * scale
            live &= ~(terminated | truncated)
    if stats is not None and hasattr(engine, "bonus"):  # scorecard games: the final cards'
        stats["bonus"] = engine.bonus > 0  # who made the card bonus
        stats["card_bonus"] = engine.bonus.copy()  # its points (the rules paid them)
        stats["yahtzee_bonus"] = engine.yahtzee_bonus.copy()  # Yahtzee bonus points
    return totals


__all__ = [
    "BATCHED_IDS",
    "BatchedVecEnv",
    "BatchedVectorEnv",
    "IllegalSteps",
    "batch_seed",
    "make_engine",
    "play_games",
    "seed_engine",
]
