"""What the single-agent envs share: text rendering, and one learner at a table of Agents."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Protocol

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs import games
from envs.rules.dice import draw_below
from envs.spaces import LegalDiscrete, to_action


def draw_seed(rng: np.random.Generator) -> int:
    """``int(rng.integers(2**63))``: the same number, drawn the same way, at a fraction of
    the cost. NumPy draws that bound by Lemire's method on one ``next_uint64``, whose
    rejection threshold ``2**64 mod 2**63`` is 0, so the number is the draw's top 63 bits
    (tests/envs/test_table.py holds it to ``rng.integers`` on several bit generators). A
    generator without the ctypes interface is asked directly."""
    try:
        c = rng.bit_generator.ctypes
    except AttributeError:
        return int(rng.integers(2**63))
    return c.next_uint64(c.state) >> 1


class Seated(Protocol):
    """What sits in an opponent's seat: an ``agents.Agent`` (the envs do not import the
    agents layer; :mod:`agents.tables` turns agent specs into Agents)."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def seed(self, seed: int | None = None) -> None: ...


def _acts(agent: object) -> bool:
    """Whether ``agent`` can sit at a table (a :class:`Seated`: ``act`` and ``seed``)."""
    return not isinstance(agent, type) and all(
        callable(getattr(agent, m, None)) for m in ("act", "seed")
    )


class TextRenderEnv(gym.Env):
    """``render_mode="ansi"`` returns :meth:`render_text`; ``"human"`` prints it;
    ``"rgb_array"`` returns :meth:`render_rgb`, a picture drawn by :mod:`envs.render`.

    Also what every single-agent env shares about actions: a
    :class:`~envs.spaces.LegalDiscrete` space (:meth:`_legal_space`), rebuilt
    for a copied or unpickled env so that it samples from the copy's state.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    @abstractmethod
    def action_masks(self) -> np.ndarray:
        """Legal actions now (all False before reset and once the episode is over)."""

    @abstractmethod
    def _opening_mask(self) -> np.ndarray:
        """Actions legal at the first decision of every episode."""

    # -- illegal actions (games.IllegalActions): set up from the env's options ---------------
    illegal = games.IllegalActions()
    _ended = False  # the episode ended on an illegal action (terminated or truncated)
    _illegal_run = 0  # illegal actions in a row (illegal_action="penalize")

    def _setup_illegal(self, options: dict) -> None:
        """Take ``illegal_action``, ``illegal_penalty`` and ``max_illegal_steps`` out of
        ``options`` (the env's keyword arguments), checked."""
        self.illegal = games.pop_illegal(options)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._ended = False
        self._illegal_run = 0

    def _is_illegal(self, action: int) -> bool:
        """True when ``action`` is illegal now and the env does not raise on it (the rules
        raise otherwise, naming the legal actions)."""
        if self.illegal.raises:
            return False
        mask = self.action_masks()
        return not (0 <= action < len(mask) and mask[action])

    def _illegal_outcome(self) -> tuple[float, bool, bool]:
        """``(penalty, terminated, truncated)`` of an illegal action, counted."""
        self._illegal_run += 1
        if self.illegal.mode == "terminate":
            self._ended = True
            return self.illegal.penalty, True, False
        self._ended = self._illegal_run >= self.illegal.max_steps
        return self.illegal.penalty, False, self._ended

    def _sample_mask(self) -> np.ndarray:
        """What ``action_space.sample()`` draws from while the episode runs."""
        return self.action_masks()

    def _legal_space(self, n: int) -> LegalDiscrete:
        return LegalDiscrete(n, self._sample_mask, self._opening_mask)

    def _action(self, action: object) -> int:
        """``action`` as an int (see :func:`envs.spaces.to_action`), or the ValueError."""
        return to_action(action, lambda: np.flatnonzero(self.action_masks()))

    def __setstate__(self, state: dict) -> None:
        # copy.deepcopy and pickle: the LegalDiscrete came back as a plain Discrete
        # without its env (see LegalDiscrete.__reduce__); bind a new one to this copy.
        self.__dict__.update(state)
        space = self.__dict__.get("action_space")
        if type(space) is spaces.Discrete:
            fresh = self._legal_space(int(space.n))
            fresh._np_random = space._np_random
            self.action_space = fresh

    def _check_render_mode(self, render_mode: str | None) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode

    @abstractmethod
    def render_text(self) -> str:
        """The table as text."""

    @abstractmethod
    def render_rgb(self) -> np.ndarray:
        """The table as an H×W×3 uint8 frame, one size for the whole episode."""

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text


class TableEnv(TextRenderEnv):
    """One learning player among opponents that are Agents.

    A subclass calls :meth:`_setup_table` in ``__init__``, and in ``reset``
    :meth:`_seat_players` before it builds ``self.match`` (a rules-layer match
    with ``game``, ``done`` and ``step(action) -> payoffs``), then
    :meth:`_advance`. It provides :meth:`_observe` and :meth:`_info`, and may give an
    opponent a shortcut past the observation (:meth:`_game_policy`).
    """

    match = None
    _direct: dict = {}  # seat -> policy(game) -> action, for the opponents that have one

    def _setup_table(
        self,
        game: str,
        n_players: int,
        opponents: Seated | Sequence[Seated],
        agent_seat: int | str,
    ) -> None:
        low, high = games.get(game).players
        n_players = games.check_whole("n_players", n_players, max(low, 2), high)
        agent_seat = games.check_seat("agent_seat", agent_seat, n_players, "random")
        if isinstance(opponents, list | tuple):
            seated = list(opponents)
        else:
            seated = [opponents] * (n_players - 1)
        bad = [o for o in seated if not _acts(o)]
        if bad:
            raise ValueError(
                f"opponents must be an Agent or a list of {n_players - 1} Agents, got {bad[0]!r}; "
                f"agent specs such as 'heuristic' are resolved by gym.make(id, opponents=...) "
                f"or agents.make_env"
            )
        if len(seated) != n_players - 1:
            raise ValueError(
                f"opponents lists {len(seated)} agents but {n_players} players need {n_players - 1}"
            )
        self.n_players = n_players
        self.agent_seat_option = agent_seat
        self._opponents = seated
        self._policies = [self._game_policy(o) for o in seated]

    def _game_policy(self, agent: Seated):
        """``policy(game) -> action``: what ``agent.act`` would answer to the current
        player's observation and mask, read from the rules-layer game instead (no
        observation encoded); None (the default) where it acts on the observation."""
        return None

    def _seat_players(self, rng: np.random.Generator) -> None:
        """Seed the opponents from the env's generator and seat everyone."""
        for agent in self._opponents:
            agent.seed(draw_seed(rng))
        if self.agent_seat_option == "random":
            self.agent_seat = draw_below(rng, self.n_players)
        else:
            self.agent_seat = self.agent_seat_option
        others = [s for s in range(self.n_players) if s != self.agent_seat]
        self._seated = dict(zip(others, self._opponents, strict=True))
        self._direct = {s: p for s, p in zip(others, self._policies, strict=True) if p is not None}

    def _labels(self) -> dict[int, str]:
        labels = {s: a.name for s, a in self._seated.items()}
        labels[self.agent_seat] = "you"
        return labels

    @abstractmethod
    def _observe(self, seat: int) -> np.ndarray:
        """What ``seat`` sees now."""

    @abstractmethod
    def _info(self) -> dict:
        """The learner's info dict (with ``action_mask``)."""

    def step(self, action):
        if self.match is None:
            raise RuntimeError("call reset() before step()")
        if self.match.done or self._ended:
            raise RuntimeError("the episode is over; call reset()")
        action = self._action(action)
        if self._is_illegal(action):
            return self._illegal_step()
        self._illegal_run = 0
        reward = self.match.step(action).get(self.agent_seat, 0) + self._advance()
        if self.render_mode == "human":
            print(self.render_text())
        return self._observe(self.agent_seat), float(reward), self.match.done, False, self._info()

    def _illegal_step(self):
        """An illegal action under ``illegal_action="terminate"`` (the learner forfeits its
        stake in the game in play, :meth:`GameSeries.forfeit`, and pays the penalty) or
        ``"penalize"`` (nothing moves; the penalty is paid)."""
        penalty, terminated, truncated = self._illegal_outcome()
        reward = penalty
        if terminated:
            reward += self.match.forfeit(self.agent_seat)[self.agent_seat]
        info = {**self._info(), "illegal_action": True}
        return self._observe(self.agent_seat), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions now (all False once the episode is over)."""
        if self.match is None or self.match.done or self._ended:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.match.game.action_mask()

    def _advance(self) -> int:
        """Let opponents play until the learning player must act or the episode ends."""
        reward = 0
        m = self.match
        me = self.agent_seat
        direct = self._direct
        while not m.done and m.game.current_player != me:
            seat = m.game.current_player
            policy = direct.get(seat)
            if policy is not None:
                action = policy(m.game)
            else:
                action = self._seated[seat].act(self._observe(seat), m.game.action_mask())
            reward += m.step(action).get(me, 0)
        return reward
