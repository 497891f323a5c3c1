"""Prison dice poker, N tables at once in numpy (five or six dice, every rule option).

Two forms:

- :class:`BatchedDicePoker`, **multi-seat**: every seat is driven from outside. Per table
  :attr:`~BatchedDicePoker.current_player` says whose turn it is; :meth:`observe` gives
  that seat's observation (or any seat's), :meth:`action_masks` its legal actions, and
  :meth:`step` returns the chips every seat won or lost in the games that ended, an
  ``(n, n_players)`` array. One policy can play every seat of thousands of tables (self-play).
- :class:`BatchedDicePokerSingle`, **single-agent**: one learning seat per table; the other
  seats are played in batch by opponents given as batched policies (an object with
  ``act_batch(observations, masks)``, e.g. an ``agents`` Agent, or any callable on a batch of
  observations and masks). Its ``step`` returns the learner's chips, like ``DicePoker-v0``.

Everything the tables see is the scalar game's: the observation is encoded through the
env's own layout (``envs.obs.dice_poker``), hands are ranked by a table compiled from
:func:`envs.rules.dice_hands.rank_dice` over every sorted multiset (252 for five dice, 462
for six), pots are paid by :func:`envs.rules.seats.winner_takes_pot` and seats ordered by
:func:`envs.rules.seats.turn_order`. The batched code re-derives no rule.

Chance is an input, read as :mod:`envs.rules.dice_poker` reads it:

- ``step(actions, chance)``: ``(n, 2 * n_dice)`` faces; die ``i`` of table ``t`` that the
  action re-rolls comes up ``chance[t, i]``; when the step starts a turn (the next player, a
  play-off, the next game of a circle) that roll is ``chance[t, n_dice:]``.
- ``reset(which, chance, seating)``: ``chance`` ``(n, n_dice)`` is the first roll of the
  first game; ``seating`` ``(n, rounds, n_players)`` the seating roll (``first_player=
  "roll"``): round ``r`` gives seat ``s`` the face ``seating[t, r, s]``.

Without chance the engine draws it from its seeded numpy Generator (``seed``) as one roll
number per roll instead of one face per die (:class:`TurnStates`: ``u < 6**k`` is a roll of
``k`` fair dice; :meth:`BatchedDicePoker.faces_of_rolls` gives the faces it stands for):
same seed, same ``n``, same actions give the same trajectories. With ``draws`` set
(:mod:`envs.batched.draws`, ``reset(seed=[...])`` of the vector envs) each table draws its
rolls, its seating roll and its learner's seat from its own stream instead. Rows of tables
that a call does not move are not read. About 35 bytes of state per table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from envs import games
from envs.batched.draws import CoreDraws, opponent_rows
from envs.batched.opponents import HalfStepped, illegal, opponent_actions, opponent_name
from envs.obs.dice_poker import hand_vector
from envs.obs.dice_poker import layout as obs_layout
from envs.rules.dice import multisets
from envs.rules.dice_poker import MAX_ROLLS, DicePokerRules
from envs.rules.dice_poker_tables import TurnStates, turn_states  # the scalar game's too
from envs.rules.seats import turn_order, winner_takes_pot

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("dice_poker")

EPISODES = ("game", "circle")
MAX_PLAYERS = 6
_LOW_BIT = np.array([(b & -b).bit_length() - 1 for b in range(1 << MAX_PLAYERS)], dtype=np.int64)


@dataclass(frozen=True)
class HandTable:
    """Rule facts of one rule set as arrays, compiled from ``rank_dice``.

    ``index[code]``: the multiset id (its place in ``multisets(n_dice)``) of sorted dice whose
    code is ``sum((d_i - 1) * 6**(n-1-i))``; per multiset id: ``strength`` (the order of its
    hand among all hands, weakest 0; equal hands equal), ``vector`` (the observation's
    rank, points, tie-break faces) and ``counts`` (ones .. sixes). ``best_vector[k + 1]`` is
    the vector of a hand of strength ``k``, row 0 that of no hand. ``legal[f]``: the re-roll
    bit sets allowed when the dice of bit set ``f`` are frozen.
    """

    n_dice: int
    powers: np.ndarray
    index: np.ndarray
    strength: np.ndarray
    vector: np.ndarray
    counts: np.ndarray
    best_vector: np.ndarray
    legal: np.ndarray
    n_hands: int


@cache
def hand_table(rules: DicePokerRules) -> HandTable:
    """The compiled :class:`HandTable` of ``rules`` (cached; the ante plays no part)."""
    n = rules.n_dice
    sets = multisets(n)
    hands = [rules.rank(m) for m in sets]
    keys = sorted({h.key for h in hands})
    order = {k: i for i, k in enumerate(keys)}
    powers = 6 ** np.arange(n - 1, -1, -1, dtype=np.int64)
    index = np.full(6**n, -1, dtype=np.int16)
    codes = (np.array(sets, dtype=np.int64) - 1) @ powers
    index[codes] = np.arange(len(sets))
    strength = np.array([order[h.key] for h in hands], dtype=np.int16)
    vector = np.array([hand_vector(h) for h in hands], dtype=np.float32)
    best_vector = np.zeros((len(keys) + 1, 4), dtype=np.float32)
    best_vector[0] = hand_vector(None)
    best_vector[strength + 1] = vector
    counts = np.array([[m.count(f) for f in range(1, 7)] for m in sets], dtype=np.int8)
    acts = np.arange(2**n)
    legal = (acts[None, :] & acts[:, None]) == 0
    for a in (index, strength, vector, counts, best_vector, legal, powers):
        a.flags.writeable = False
    return HandTable(n, powers, index, strength, vector, counts, best_vector, legal, len(keys))


@dataclass(frozen=True)
class _StateTables:
    """Per turn state of one rule set: the observation's dice fields (``dice``, ``frozen``,
    ``face_counts``, ``hand`` through the layout, every other field 0; a last row for
    someone else's turn), the legal re-roll bit sets and the hand's strength."""

    observation: np.ndarray
    legal: np.ndarray
    strength: np.ndarray


@cache
def _state_tables(rules: DicePokerRules) -> _StateTables:
    t, s = hand_table(rules), turn_states(rules.n_dice, rules.lock_kept_dice)
    lay = obs_layout(rules.n_dice)
    k = len(s.mid)
    zero = {f.name: np.zeros((k + 1,) + (() if f.size is None else (f.size,))) for f in lay.fields}
    dice = np.zeros((k + 1, rules.n_dice))
    dice[:k] = s.dice
    frozen = np.zeros((k + 1, rules.n_dice))
    frozen[:k] = s.frozen
    counts = np.zeros((k + 1, 6))
    counts[:k] = t.counts[s.mid]
    hand = np.repeat(t.best_vector[:1], k + 1, axis=0)
    hand[:k] = t.vector[s.mid]
    observation = lay.encode(
        **{**zero, "dice": dice, "frozen": frozen, "face_counts": counts, "hand": hand}
    )
    legal = t.legal[s.fbits]
    strength = t.strength[s.mid]
    for a in (observation, legal, strength):
        a.flags.writeable = False
    return _StateTables(observation, legal, strength)


def _check_count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"the number of tables must be an integer >= 1, got {n!r}")
    return int(n)


def _check_seat(key: str, value: Any, n_players: int, word: str) -> int | str:
    if isinstance(value, str) and value == word:
        return value
    if (
        not isinstance(value, bool)
        and isinstance(value, int | np.integer)
        and 0 <= value < n_players
    ):
        return int(value)
    raise ValueError(f"{key} must be {word!r} or 0..{n_players - 1}, got {value!r}")


def _rows(which: np.ndarray | None, n: int) -> np.ndarray:
    """Indices of the tables ``which`` (bool (n,), default all)."""
    if which is None:
        return np.arange(n)
    w = np.asarray(which)
    if w.shape != (n,) or w.dtype != bool:
        raise ValueError(f"which must be a bool array of shape ({n},), got {w.dtype} {w.shape}")
    return np.flatnonzero(w)


def _faces(chance: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    c = np.asarray(chance)
    if c.shape != shape or not np.issubdtype(c.dtype, np.integer) or c.dtype == bool:
        raise ValueError(
            f"{what} must be an integer array of shape {shape} (faces 1..6), "
            f"got {c.dtype} {c.shape}"
        )
    if c.size and (c.min() < 1 or c.max() > 6):
        raise ValueError(f"{what}: faces must be 1..6, got {int(c.min())}..{int(c.max())}")
    return c.astype(np.int8)


class BatchedDicePoker:
    """``n`` tables of prison dice poker, every seat driven from outside (module docstring).

    State (leading axis = table): the dice of the player to act as one turn-state id
    (:class:`TurnStates`; the properties ``dice``, (n, n_dice) sorted int8, and ``frozen``
    bool, unfrozen before frozen on equal faces as the scalar game sorts them, read it),
    ``rolls_used``; the round: ``seats`` (n, n_players) in round order (-1
    padded), ``round_len``, ``turn`` (place of the player to act), ``best`` (strength of
    the best finished hand, -1 none), ``best_count``, ``holders`` (n, n_players) bool,
    ``playoff``; the match: ``first`` (starter of game 1), ``games_played``, ``chips``
    (n, n_players) net so far, ``done``. ``current_player`` is -1 at finished tables.
    A finished table stays finished until :meth:`reset` starts it again.
    """

    # the table options this engine takes, with the defaults of DicePokerEnv
    table_options = {"n_players": _TABLE.default_players, "first_player": "roll", "episode": "game"}

    def __init__(
        self,
        n: int,
        rules: DicePokerRules | None = None,
        seed: int | np.random.Generator | None = None,
        *,
        n_players: int = _TABLE.default_players,
        first_player: int | str = "roll",
        episode: str = "game",
    ) -> None:
        self.n = _check_count(n)
        self.rules = rules if rules is not None else DicePokerRules()
        if not isinstance(self.rules, DicePokerRules):
            raise ValueError(f"rules must be a DicePokerRules, got {self.rules!r}")
        if isinstance(n_players, bool) or not isinstance(n_players, int | np.integer):
            raise ValueError(f"n_players must be a whole number 2..6, got {n_players!r}")
        if not 2 <= n_players <= MAX_PLAYERS:
            raise ValueError(f"n_players must be 2..{MAX_PLAYERS}, got {n_players!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        self.n_players = P = int(n_players)
        self.first_player = _check_seat("first_player", first_player, P, "roll")
        self.episode = episode
        self.n_games = P if episode == "circle" else 1
        self.n_dice = nd = self.rules.n_dice
        self.n_actions = self.rules.n_actions
        self.pot = self.rules.ante * P
        self.table = hand_table(self.rules)
        self.layout = obs_layout(nd)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.draws = None  # envs.batched.draws.GameDraws: one stream per table instead of rng
        self._seat_ids = np.arange(P, dtype=np.int8)
        self.turns = turn_states(nd, self.rules.lock_kept_dice)
        self._by_state = _state_tables(self.rules)
        n = self.n
        # the dice of the player to act as one turn-state id (``TurnStates``); ``dice``,
        # ``frozen`` and the multiset id are looked up from it
        self._sid = np.zeros(n, dtype=np.int16)
        self.rolls_used = np.zeros(n, dtype=np.int8)
        self.seats = np.full((n, P), -1, dtype=np.int8)
        self.round_len = np.zeros(n, dtype=np.int8)
        self.turn = np.zeros(n, dtype=np.int8)
        self.best = np.full(n, -1, dtype=np.int16)
        self.best_count = np.zeros(n, dtype=np.int8)
        self._hold = np.zeros(n, dtype=np.int8)  # holders of the best hand, bit s = seat s
        self._seat_bit = (1 << np.arange(P)).astype(np.int8)
        self.playoff = np.zeros(n, dtype=np.int16)
        self.first = np.zeros(n, dtype=np.int8)
        self.games_played = np.zeros(n, dtype=np.int8)
        self.chips = np.zeros((n, P), dtype=np.int32)
        self._done = np.ones(n, dtype=bool)  # nothing to play before reset()
        self.current_player = np.full(n, -1, dtype=np.int8)
        self.last_player = np.zeros(n, dtype=np.int8)

    @property
    def dice(self) -> np.ndarray:
        """``(n, n_dice)`` int8: the dice of the player to act, sorted (a copy)."""
        return self.turns.dice[self._sid]

    @property
    def frozen(self) -> np.ndarray:
        """``(n, n_dice)`` bool: which of :attr:`dice` may not be re-rolled (a copy)."""
        return self.turns.frozen[self._sid]

    @property
    def state_ids(self) -> np.ndarray:
        """``(n,)`` int16, read-only: each table's turn state id (:class:`TurnStates`) of the
        player to act: :attr:`dice`, :attr:`frozen` and the legal set
        (``legal_by_state[state_ids]``) are looked up from it. The public engine view an
        agent's ``table_policy`` reads (``agents.base.TablePolicy``)."""
        view = self._sid.view()
        view.flags.writeable = False
        return view

    @property
    def legal_by_state(self) -> np.ndarray:
        """``(turn states, 2**n_dice)`` bool, read-only: the legal re-roll bit sets of each
        turn state (:class:`TurnStates`; a running table's mask is its state's row)."""
        return self._by_state.legal

    @property
    def holders(self) -> np.ndarray:
        """``(n, n_players)`` bool: the seats holding the best finished hand (a copy)."""
        return ((self._hold[:, None] >> np.arange(self.n_players)) & 1).astype(bool)

    @property
    def done(self) -> np.ndarray:
        """``(n,)`` bool: the tables whose episode is over (a copy)."""
        return self._done.copy()

    # -- chance ---------------------------------------------------------------------------
    def draw_chance(self, m: int) -> np.ndarray:
        """``(m, 2 * n_dice)`` fair faces from the engine's Generator, the ``chance`` of one
        step of m tables (the engine itself draws roll numbers, :meth:`_draw_rolls`)."""
        return self.rng.integers(1, 7, size=(m, 2 * self.n_dice), dtype=np.int8)

    def _draw_rolls(self, rows: np.ndarray, k: int | None = None) -> np.ndarray:
        """Roll numbers (:class:`TurnStates`) of n_dice fair dice each for the tables
        ``rows``, ``(m,)`` or ``(m, k)``; a step's are ``(m, 2)``: the re-roll (a roll of
        fewer dice is the number modulo ``6**k``) and the first roll of the turn the step
        may start."""
        if self.draws is not None:
            out = self.draws.integers(rows, 0, 6**self.n_dice, k or 1, np.int32)
            return out[:, 0] if k is None else out
        shape = (len(rows),) if k is None else (len(rows), k)
        return self.rng.integers(0, 6**self.n_dice, size=shape, dtype=np.int32)

    def _rolls_of_faces(self, faces: np.ndarray, a: np.ndarray) -> np.ndarray:
        """The roll numbers of given chance ``faces`` (m, 2 n_dice) under actions ``a``."""
        nd, place = self.n_dice, self.turns.place
        f = faces.astype(np.int32) - 1
        return np.stack([(f[:, :nd] * place[a]).sum(axis=1), f[:, nd:] @ place[-1]], axis=1)

    def faces_of_rolls(self, numbers: np.ndarray, a: np.ndarray) -> np.ndarray:
        """The chance faces ``(m, 2 n_dice)`` that roll numbers ``numbers`` (m, 2) stand for
        under actions ``a`` (the inverse of how :meth:`step` reads ``chance``; dice the
        action keeps show 1, unread): what a step drawn by the engine rolled, e.g. to replay
        it on the scalar game."""
        t = self.turns
        place = t.place[a].astype(np.int64)
        u = numbers.astype(np.int64)
        reroll = np.where(
            place > 0, 1 + (u[:, :1] % t.roll_size[a][:, None]) // np.maximum(place, 1) % 6, 1
        )
        first = 1 + u[:, 1:] // t.place[-1][None, :] % 6
        return np.concatenate([reroll, first], axis=1).astype(np.int8)

    # -- state ----------------------------------------------------------------------------
    def dice_ids(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The multiset id of each table's dice (``envs.rules.dice.multisets`` order)."""
        return self.turns.mid[self._sid[rows]]

    def action_masks(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """``(n, 2**n_dice)`` bool: the legal re-roll bit sets of the player to act (none at a
        finished table)."""
        return self._by_state.legal[self._sid[rows]] & ~self._done[rows, None]

    def observe(
        self, seats: np.ndarray | None = None, rows: np.ndarray | slice = slice(None)
    ) -> np.ndarray:
        """``(n, D)`` float32: what ``seats`` (one per table, default the player to act; at a
        finished table the player who moved last) sees, exactly ``envs.obs.dice_poker``'s
        ``observe`` of the scalar game."""
        to_act = self.current_player[rows]
        done = self._done[rows]
        if seats is None:
            seat = np.where(done, self.last_player[rows], to_act).astype(np.int64)
        else:
            seat = np.asarray(seats, dtype=np.int64)
            if (
                seat.shape != to_act.shape
                or seat.min(initial=0) < 0
                or seat.max(initial=0) >= self.n_players
            ):
                raise ValueError(
                    f"seats must be {to_act.shape} seats 0..{self.n_players - 1}, got {seats!r}"
                )
        own = to_act == seat
        at = self.seats[rows] == seat[:, None]
        m = len(seat)
        # the dice's fields from the table (the layout's encoding per turn state), the rest
        # written into their slices as layout.encode writes them
        obs_table = self._by_state.observation
        out = obs_table[np.where(own, self._sid[rows], len(obs_table) - 1)]
        sl = self.layout.slices
        out[:, sl["best"]] = self.table.best_vector[self.best[rows] + 1]
        turn_left = np.where(done, 0, self.round_len[rows] - self.turn[rows] - 1)
        for name, v in (
            ("rolls_used", np.where(own, self.rolls_used[rows], 0)),
            ("best_count", self.best_count[rows]),
            ("players_after", turn_left),
            ("round_players", self.round_len[rows]),
            ("pot", self.pot),
            ("playoff", self.playoff[rows]),
            ("seat", seat),
            ("position", np.where(at.any(axis=1), at.argmax(axis=1), -1)),
            ("games_left", np.maximum(self.n_games - self.games_played[rows] - 1, 0)),
            ("chips", self.chips[rows][np.arange(m), seat]),
        ):
            out[:, sl[name].start] = v
        return out

    # -- moves ----------------------------------------------------------------------------
    def reset(
        self,
        which: np.ndarray | None = None,
        chance: np.ndarray | None = None,
        seating: np.ndarray | None = None,
    ) -> None:
        """Start new episodes at the tables ``which`` (bool (n,), default all): the seating
        roll (``first_player="roll"``), then the first roll of the first game."""
        rows = _rows(which, self.n)
        P, nd = self.n_players, self.n_dice
        if chance is None:
            first_roll = self._draw_rolls(rows)
        else:
            f = _faces(chance, (self.n, nd), "chance")[rows]
            first_roll = (f.astype(np.int32) - 1) @ self.turns.place[-1]
        if self.first_player == "roll":
            if seating is not None:
                s = np.asarray(seating)
                if s.ndim != 3 or s.shape[0] != self.n or s.shape[2] != P:
                    raise ValueError(
                        f"seating must be an integer array of shape ({self.n}, rounds, {P}), "
                        f"got {s.dtype} {s.shape}"
                    )
                seating = _faces(s, s.shape, "seating")[rows]
            first = self._seating_roll(rows, seating)
        else:
            first = np.full(len(rows), self.first_player, dtype=np.int8)
        self.first[rows] = first
        self.games_played[rows] = 0
        self.chips[rows] = 0
        self._done[rows] = False
        self._new_game(rows, np.arange(len(rows)), first_roll)

    def _seating_roll(self, rows: np.ndarray, seating: np.ndarray | None) -> np.ndarray:
        """Each player rolls one die, the tied highest again (``roll_for_first``)."""
        m, P = len(rows), self.n_players
        contending = np.ones((m, P), dtype=bool)
        open_ = np.arange(m)  # the tables still tied, ascending
        r = 0
        while open_.size:
            if seating is None and self.draws is not None:
                faces = self.draws.integers(rows[open_], 1, 7, P, np.int8)
            elif seating is None:
                faces = self.rng.integers(1, 7, size=(open_.size, P), dtype=np.int8)
            elif r < seating.shape[1]:
                faces = seating[open_, r]
            else:
                t = int(rows[open_[0]])
                raise ValueError(
                    f"the seating roll of table {t} is still tied among seats "
                    f"{np.flatnonzero(contending[open_[0]]).tolist()} after the "
                    f"{seating.shape[1]} round(s) of rolls given"
                )
            f = np.where(contending[open_], faces, 0)
            top = f[:, 0]
            for c in range(1, P):
                top = np.maximum(top, f[:, c])
            tied = f == top[:, None]
            contending[open_] = tied
            count = tied[:, 0].astype(np.int8)
            for c in range(1, P):
                count += tied[:, c]
            open_ = open_[count > 1]
            r += 1
        return contending.argmax(axis=1).astype(np.int8)

    def _new_game(self, rows: np.ndarray, at: np.ndarray, roll: np.ndarray) -> None:
        """Start the next game at tables ``rows`` (its starter follows the circle); ``roll``
        at ``at`` is the number of its first roll."""
        starter = (self.first[rows] + self.games_played[rows]) % self.n_players
        self.seats[rows] = np.stack(turn_order(starter, self.n_players), axis=1)
        self.round_len[rows] = self.n_players
        self.playoff[rows] = 0
        self._new_round(rows, at, roll)

    def _new_round(self, rows: np.ndarray, at: np.ndarray, roll: np.ndarray) -> None:
        self.turn[rows] = 0
        self.best[rows] = -1
        self.best_count[rows] = 0
        self._hold[rows] = 0
        self._new_turn(rows, at, roll)

    def _new_turn(self, rows: np.ndarray, at: np.ndarray, roll: np.ndarray) -> None:
        self._sid[rows] = self.turns.final_of_roll[roll[at]]
        self.rolls_used[rows] = 1
        self.current_player[rows] = self.seats[rows, self.turn[rows]]

    def check_actions(self, actions: Any, which: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as an int64 array of shape (n,), or a ``ValueError`` naming the first
        table with an illegal one (only the tables ``which`` are checked, default all)."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or not np.issubdtype(a.dtype, np.integer) or a.dtype == bool:
            raise ValueError(
                f"actions must be an integer array of shape ({self.n},), got {a.dtype} {a.shape}"
            )
        a = a.astype(np.int64)
        rows = _rows(which, self.n)
        self._check_rows(rows, a[rows])
        return a

    def _check_rows(self, rows: np.ndarray, a: np.ndarray, who: str = "") -> None:
        inside = (a >= 0) & (a < self.n_actions)
        ok = (
            inside
            & ~self._done[rows]
            & self._by_state.legal[self._sid[rows], np.where(inside, a, 0)]
        )
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            t = int(rows[i])
            legal = np.flatnonzero(self.action_masks(np.array([t]))[0]).tolist()
            raise ValueError(
                f"illegal action {int(a[i])}{who} in table {t}"
                + (" (the table is finished; call reset)" if self._done[t] else "")
                + f"; legal actions there are {legal} (no table was advanced)"
            )

    def step(self, actions: Any, chance: np.ndarray | None = None) -> np.ndarray:
        """Play one action at every table; ``(n, n_players)`` chips won or lost by each seat
        in the games that ended (zeros elsewhere). One illegal action raises and no table
        moves."""
        return self.step_some(actions, None, chance)

    def step_some(
        self, actions: Any, which: np.ndarray | None, chance: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`step` at the tables ``which`` (bool (n,)) only; the others do not move and
        their actions and chance are not read."""
        a = self.check_actions(actions, which)
        rows = _rows(which, self.n)
        if chance is None:
            rolls = self._draw_rolls(rows, 2)
        else:
            faces = _faces(chance, (self.n, 2 * self.n_dice), "chance")[rows]
            rolls = self._rolls_of_faces(faces, a[rows])
        pay = np.zeros((self.n, self.n_players), dtype=np.int32)
        paid = self._step_rows(rows, a[rows], rolls)
        if paid is not None:
            pay[rows] = paid
        return pay

    def _step_rows(self, rows: np.ndarray, a: np.ndarray, numbers: np.ndarray) -> np.ndarray | None:
        """Play checked actions ``a`` at tables ``rows`` with the roll numbers ``numbers``
        (len(rows), 2: the re-roll, the first roll of a new turn); returns the (len(rows),
        n_players) payoffs, None when no game ended (all zero)."""
        P = self.n_players
        m = len(rows)
        rolls = self.rolls_used[rows]
        reroll = a != 0
        if reroll.any():
            # keep the dice the bit set leaves, roll the others: the next turn state is
            # one lookup on (kept sub-multiset, rolled sub-multiset)
            t = self.turns
            r = np.flatnonzero(reroll)
            g = rows[r]
            ar = a[r]
            kept = t.kept.reshape(-1)[self._sid[g].astype(np.intp) * t.kept.shape[1] + ar]
            rolled = t.sub_of_roll[t.roll_start[ar] + numbers[r, 0] % t.roll_size[ar]]
            now = rolls[r] + 1
            subs = t.after.shape[1]
            at = ((now - 2).astype(np.intp) * subs + kept) * subs + rolled
            self._sid[g] = t.after.reshape(-1)[at]
            rolls[r] = now
            self.rolls_used[g] = now
        end = ~reroll | (rolls == MAX_ROLLS)
        if not end.any():
            return None
        e = np.flatnonzero(end)
        g = rows[e]
        hand = self._by_state.strength[self._sid[g]]
        seat = self.current_player[g]
        best = self.best[g]
        better = hand > best
        same = hand == best
        self.best[g] = np.where(better, hand, best)
        self.best_count[g] = np.where(better, 1, self.best_count[g] + same)
        bit = self._seat_bit[seat]
        self._hold[g] = np.where(better, bit, self._hold[g] | (bit * same))
        turn = self.turn[g] + 1
        self.turn[g] = turn
        over = turn == self.round_len[g]
        going = ~over
        if going.any():
            self._new_turn(g[going], e[going], numbers[:, 1])
        if not over.any():
            return None
        pay = np.zeros((m, P), dtype=np.int32)
        o = e[over]
        go = g[over]
        count = self.best_count[go]
        won = count == 1
        if won.any():
            w, gw = o[won], go[won]
            winner = _LOW_BIT[self._hold[gw]]
            gain = winner_takes_pot(
                np.int32(self.pot), np.int32(self.rules.ante), self._seat_ids == winner[:, None]
            )
            pay[w] = gain
            self.chips[gw] += gain
            self.games_played[gw] += 1
            finished = self.games_played[gw] == self.n_games
            ended = gw[finished]
            self._done[ended] = True
            self.last_player[ended] = self.current_player[ended]  # observe() shows their view
            self.current_player[ended] = -1
            more = ~finished
            if more.any():
                self._new_game(gw[more], w[more], numbers[:, 1])
        tied = ~won
        if tied.any():
            # Play-off among the tied, in this round's order from the earliest tied.
            gp, p = go[tied], o[tied]
            order = self.seats[gp].astype(np.int64)
            keep = ((self._hold[gp, None] >> np.maximum(order, 0)) & 1).astype(bool) & (order >= 0)
            pick = np.argsort(~keep, axis=1, kind="stable")
            kept = np.take_along_axis(keep, pick, axis=1)
            self.seats[gp] = np.where(kept, np.take_along_axis(order, pick, axis=1), -1)
            self.round_len[gp] = count[tied]
            self.playoff[gp] += 1
            self._new_round(gp, p, numbers[:, 1])
        return pay


def _policy(opponent: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    act = getattr(opponent, "act_batch", None)
    if callable(act):
        return act
    if callable(opponent):
        return opponent
    raise ValueError(
        f"an opponent must have act_batch(observations, masks) or be a callable on a batch "
        f"of (observations, masks), got {opponent!r}"
    )


def _table_policy(opponent: Any, core: BatchedDicePoker) -> Callable | None:
    """The opponent's shortcut past the observation and the mask, where it has one for this
    table: ``opponent.table_policy(core)`` returning ``act(rows)`` that chooses exactly what
    ``act_batch(core.observe(rows=rows), core.action_masks(rows))`` would (None: no
    shortcut)."""
    make = getattr(opponent, "table_policy", None)
    return make(core) if callable(make) else None


class BatchedDicePokerSingle(CoreDraws):
    """``n`` tables with one learning seat each; the other seats played in batch.

    ``opponents``: one batched policy for every other seat, or a list of ``n_players - 1``
    in seat order skipping the learner's (as ``DicePoker-v0``'s ``opponents``). A policy is
    an object with ``act_batch(observations (m, D), masks (m, A)) -> (m,)`` (an ``agents``
    Agent; its ``seed`` is called from the engine's Generator when the engine is seeded) or
    any such callable. The same object at several seats is asked once for all of them.
    A shortcut, bound to choose exactly what ``act_batch`` chooses: a policy with
    ``table_policy(core)`` returning ``act(rows)`` (not None) decides from the tables' state
    without an observation or a mask being gathered (the random, heuristic and optimal
    players).
    ``agent_seat``: a seat, or ``"random"`` (drawn per table at each reset).

    :meth:`step` plays the learner's action, then the opponents until the learner must act
    again or the episode ends; it returns the learner's chips from the games that ended
    (``DicePoker-v0``'s reward). :meth:`observe` and :meth:`action_masks` are the learner's.
    ``core`` is the :class:`BatchedDicePoker` underneath.
    """

    table_options = {
        "n_players": _TABLE.default_players,
        "opponents": None,  # Agents or batched policies (specs: gym.make_vec)
        "agent_seat": "random",
        "first_player": "roll",
        "episode": "game",
    }

    def __init__(
        self,
        n: int,
        rules: DicePokerRules | None = None,
        seed: int | np.random.Generator | None = None,
        *,
        n_players: int = _TABLE.default_players,
        opponents: Any = None,
        agent_seat: int | str = "random",
        first_player: int | str = "roll",
        episode: str = "game",
    ) -> None:
        self.core = BatchedDicePoker(
            n, rules, seed, n_players=n_players, first_player=first_player, episode=episode
        )
        P = self.core.n_players
        self.n, self.n_players, self.rules = self.core.n, P, self.core.rules
        self.n_actions, self.layout = self.core.n_actions, self.core.layout
        self.agent_seat_option = _check_seat("agent_seat", agent_seat, P, "random")
        if opponents is None:
            raise ValueError("opponents: give a batched policy or a list of them")
        if isinstance(opponents, list | tuple):
            listed = list(opponents)
            if len(listed) != P - 1:
                raise ValueError(
                    f"opponents lists {len(listed)} policies but {P} players need {P - 1}"
                )
        else:
            listed = [opponents] * (P - 1)
        self.opponents: list[Any] = []  # the distinct ones, in order of first seat
        slot = []
        for o in listed:
            if not any(o is p for p in self.opponents):
                _policy(o)  # fails early on something that cannot act
                self.opponents.append(o)
            slot.append(next(i for i, p in enumerate(self.opponents) if p is o))
        # per opponent: act(rows) on the tables' state, or act(obs, masks)
        self._acts, self._direct = [], []
        for o in self.opponents:
            direct = _table_policy(o, self.core)
            self._direct.append(direct is not None)
            self._acts.append(direct if direct is not None else _policy(o))
        self._slot = np.array(slot, dtype=np.int8)
        self._half = HalfStepped(self.n)  # tables a failing opponent left mid-step
        self.agent_seat = np.zeros(self.n, dtype=np.int8)
        self._who = np.zeros((self.n, P), dtype=np.int8)  # per seat: opponent index, -1 learner
        self.seed(seed if not isinstance(seed, np.random.Generator) else None, self.core.rng)

    # the engine's Generator is the core's (envs.vector re-seeds through seed())
    @property
    def rng(self) -> np.random.Generator:
        return self.core.rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.core.rng = value

    def seed(self, seed: int | None = None, rng: np.random.Generator | None = None) -> None:
        """A fresh Generator from ``seed``; opponents with a ``seed`` method are seeded from
        it (in order of their first seat)."""
        self.core.rng = rng if rng is not None else np.random.default_rng(seed)
        for o in self.opponents:
            if callable(getattr(o, "seed", None)):
                o.seed(int(self.core.rng.integers(2**63)))

    @property
    def done(self) -> np.ndarray:
        return self.core.done

    def observe(self) -> np.ndarray:
        return self.core.observe(self.agent_seat)

    def action_masks(self) -> np.ndarray:
        """``(n, 2**n_dice)``: the learner's legal actions (it is always its turn at a running
        table)."""
        return self.core.action_masks()

    def stakes(self) -> np.ndarray:
        """(n,) the learner's chips in the pot of the game in play (the ante: play-offs add
        none); what it forfeits under ``illegal_action="terminate"``."""
        return np.full(self.n, self.rules.ante, dtype=np.int64)

    def reset(self, which: np.ndarray | None = None) -> None:
        """New episodes at the tables ``which`` (default all), played up to the learner's
        first decision."""
        rows = _rows(which, self.n)
        P = self.n_players
        if self.agent_seat_option == "random" and self.core.draws is not None:
            seat = self.core.draws.integers(rows, 0, P, 1, np.int8)[:, 0]
        elif self.agent_seat_option == "random":
            seat = self.core.rng.integers(P, size=len(rows)).astype(np.int8)
        else:
            seat = np.full(len(rows), self.agent_seat_option, dtype=np.int8)
        self.agent_seat[rows] = seat
        seats = np.arange(P)
        k = seats[None, :] - (seats[None, :] > seat[:, None])  # opponent k sits at seat s
        mine = seats[None, :] == seat[:, None]
        self._who[rows] = np.where(mine, -1, self._slot[np.minimum(k, P - 2)])
        self._half.clear(rows)
        self.core.reset(which)
        gained = self._advance(rows)
        assert not gained.any(), "the learner plays in every main round"

    def step(self, actions: Any) -> np.ndarray:
        return self.step_some(actions, None)

    def step_some(self, actions: Any, which: np.ndarray | None) -> np.ndarray:
        """The learner's ``actions`` at tables ``which`` (default all), then the opponents;
        the learner's chips, (n,) int."""
        rows = _rows(which, self.n)
        self._half.refuse(rows)
        a = self.core.check_actions(actions, which)
        reward = np.zeros(self.n, dtype=np.int32)
        pay = self.core._step_rows(rows, a[rows], self.core._draw_rolls(rows, 2))
        if pay is not None:
            reward[rows] = pay[np.arange(len(rows)), self.agent_seat[rows]]
        reward[rows] += self._advance(rows)
        return reward

    def check_actions(self, actions: Any, which: np.ndarray | None = None) -> np.ndarray:
        """The learner's ``actions`` checked as :meth:`step_some` checks them (nothing moves)."""
        return self.core.check_actions(actions, which)

    def _ask(self, i: int, g: np.ndarray) -> np.ndarray:
        """Opponent ``i``'s actions at the tables ``g`` (running, its turn at each)."""
        with opponent_rows(self.opponents[i], self.core.draws, g):
            if self._direct[i]:
                out = self._acts[i](g)
            else:
                out = self._acts[i](
                    self.core.observe(rows=g), self.core.legal_by_state[self.core._sid[g]]
                )
        return opponent_actions(out, len(g), self.opponents[i], self.n_actions)

    def _advance(self, rows: np.ndarray) -> np.ndarray:
        """Opponents play at ``rows`` until the learner must act or the episode ends; an
        opponent that fails leaves ``rows`` to be reset (``envs.batched.opponents``)."""
        try:
            return self._play_opponents(rows)
        except Exception as e:
            self._half.fail(rows, e)
            raise

    def _play_opponents(self, rows: np.ndarray) -> np.ndarray:
        core = self.core
        gained = np.zeros(len(rows), dtype=np.int32)
        live = np.arange(len(rows))
        while True:
            g = rows[live]
            wait = ~core._done[g] & (core.current_player[g] != self.agent_seat[g])
            if not wait.any():
                return gained
            live = live[wait]
            g = g[wait]
            if len(self._acts) == 1:
                acts = self._ask(0, g)
            else:
                who = self._who[g, core.current_player[g]]
                acts = np.zeros(len(g), dtype=np.int64)
                for i in range(len(self._acts)):
                    sel = who == i
                    if sel.any():
                        acts[sel] = self._ask(i, g[sel])
            inside = (acts >= 0) & (acts < core.n_actions)
            # the rows are running tables: the legal moves are those of their turn states
            at = core._sid[g].astype(np.intp) * core.n_actions + np.where(inside, acts, 0)
            legal = core.legal_by_state.reshape(-1)[at]
            if not (inside & legal).all():
                j = int(np.flatnonzero(~(inside & legal))[0])
                t = int(g[j])
                o = self.opponents[self._who[t, core.current_player[t]]]
                seat = f" at seat {int(core.current_player[t])}"
                ok = np.flatnonzero(core.legal_by_state[core._sid[t]]).tolist()
                raise illegal(opponent_name(o, seat), int(acts[j]), t, ok)
            pay = core._step_rows(g, acts, core._draw_rolls(g, 2))
            if pay is not None:
                gained[live] += pay[np.arange(len(g)), self.agent_seat[g]]


__all__ = [
    "BatchedDicePoker",
    "BatchedDicePokerSingle",
    "HandTable",
    "TurnStates",
    "hand_table",
    "turn_states",
]
