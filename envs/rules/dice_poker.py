"""One game of prison dice poker as a state machine (docs/rules.md sections 1 and 2).

A game: every player antes into the pot, then players roll in turn order.
A turn is up to three rolls; an action is the bit set of dice to re-roll
(bit i = the i-th die of :attr:`DicePokerGame.dice`), 0 = stand. With
``lock_kept_dice`` (default) a die kept after roll 1 is frozen, so roll 3 may
only re-roll dice that roll 2 re-rolled. Players tied for the best hand play
a play-off (no new ante) until one wins the pot.

Dice are kept sorted by face (unfrozen before frozen on equal faces) so that
equal situations look the same; the frozen flags move with their dice.

Chance is an input. By default every roll is drawn from the game's seeded numpy
Generator; instead the dice to use may be given (as OpenSpiel's chance outcomes),
which is how the batched engine (``envs.batched.dice_poker``) and the scalar game
are fed the same dice:

- the first roll of a game: ``DicePokerGame(..., chance=faces)``, ``n_dice`` faces
  (sorted afterwards);
- a step: ``step(action, chance=faces)``, ``n_dice`` or ``2 * n_dice`` faces. Die ``i``
  (the ``i``-th of :attr:`DicePokerGame.dice`) that the action re-rolls comes up
  ``faces[i]``; when the step starts a turn (the next player, a play-off, or in a
  :class:`DicePokerMatch` the next game) that turn's first roll is
  ``faces[n_dice:2 * n_dice]``. Faces a step does not use are ignored;
- the seating roll: ``roll_for_first(n, rng, rolls=...)``, round ``r`` seat ``s``
  rolls ``rolls[r][s]`` (only the seats still contending read theirs).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from envs.rules.dice import below_drawer, check_dice, multisets, roll
from envs.rules.dice_hands import HAND_OPTIONS, DiceHand, check_variant, rank_dice
from envs.rules.dice_poker_tables import scalar_turns
from envs.rules.seats import GameSeries, action_mask, turn_order, winner_takes_pot

MAX_ROLLS = 3


@dataclass(frozen=True)
class DicePokerRules:
    """Every option of prison dice poker; the defaults are those of docs/rules.md."""

    n_dice: int = 5
    ante: int = 1
    lock_kept_dice: bool = True
    full_house_tiebreak: str = "sum"
    two_pairs_tiebreak: str = "sum"
    six_dice_low_hands: bool = True
    pyramid: str = "monotone"

    def __post_init__(self) -> None:
        if type(self.n_dice) is not int or self.n_dice not in (5, 6):
            raise ValueError(f"n_dice must be 5 or 6, got {self.n_dice!r}")
        if type(self.ante) is not int or self.ante < 0:  # not 1.0, not True
            raise ValueError(f"ante must be a whole number of chips >= 0, got {self.ante!r}")
        if not isinstance(self.lock_kept_dice, bool):
            raise ValueError(f"lock_kept_dice must be True or False, got {self.lock_kept_dice!r}")
        check_variant(**self.hand_variant)

    @property
    def hand_variant(self) -> dict:
        """The keyword arguments of :func:`rank_dice` for these rules."""
        return {k: getattr(self, k) for k in HAND_OPTIONS}

    def rank(self, dice: Sequence[int]) -> DiceHand:
        return rank_dice(dice, **self.hand_variant)

    @property
    def n_actions(self) -> int:
        return 2**self.n_dice


@dataclass
class Turn:
    """What one player did in one round: every roll's dice and the final hand."""

    seat: int
    rolls: list[tuple[int, ...]] = field(default_factory=list)
    hand: DiceHand | None = None


def roll_for_first(
    n_players: int,
    rng: np.random.Generator | None,
    rolls: Sequence[Sequence[int]] | None = None,
) -> tuple[int, list[dict[int, int]]]:
    """Each player rolls one die; the highest starts, tied highest re-roll among themselves.

    ``rolls`` (chance as input): round ``r`` of the roll gives seat ``s`` the face
    ``rolls[r][s]`` (``n_players`` faces a round; the faces of seats no longer
    contending are not read); running out of rounds is a ``ValueError``. Without it the
    dice come from ``rng``. Returns the starting seat and every round of rolls
    (seat -> face).
    """
    if n_players < 2:
        raise ValueError(f"prison dice poker needs at least 2 players, got {n_players}")
    contenders = list(range(n_players))
    rounds: list[dict[int, int]] = []
    while rolls is None:  # drawn: the same rolls, read off the tuple of faces
        faces = roll(rng, len(contenders))
        rounds.append(dict(zip(contenders, faces, strict=True)))
        top = max(faces)
        if faces.count(top) == 1:
            return contenders[faces.index(top)], rounds
        contenders = [s for s, f in zip(contenders, faces, strict=True) if f == top]
    while True:
        if len(rounds) < len(rolls):
            row = check_dice(rolls[len(rounds)], n_players)
            faces = {s: row[s] for s in contenders}
        else:
            raise ValueError(
                f"the seating roll is still tied among seats {contenders} after the "
                f"{len(rolls)} round(s) of rolls given"
            )
        rounds.append(faces)
        top = max(faces.values())
        contenders = [s for s, f in faces.items() if f == top]
        if len(contenders) == 1:
            return contenders[0], rounds


@dataclass(frozen=True)
class HandStrengths:
    """The hands of one rule set by sorted dice, compiled once from :meth:`DicePokerRules.rank`.

    ``hand[dice]`` is the :class:`DiceHand` of sorted ``dice`` (the very object ``rank``
    returns) and ``strength[dice]`` its place in the order of all hands of these rules
    (weakest 0, equal hands equal): the order ``envs.batched.dice_poker.hand_table`` gives
    its ``strength`` (tests/rules/test_dice_poker_tables.py holds the two together).
    """

    hand: dict[tuple[int, ...], DiceHand]
    strength: dict[tuple[int, ...], int]
    n_hands: int


@cache
def hand_strengths(rules: DicePokerRules) -> HandStrengths:
    """The (cached) :class:`HandStrengths` of ``rules``."""
    sets = multisets(rules.n_dice)
    hands = {m: rules.rank(m) for m in sets}
    order = {k: i for i, k in enumerate(sorted({h.key for h in hands.values()}))}
    return HandStrengths(hands, {m: order[h.key] for m, h in hands.items()}, len(order))


@cache
def _rerolled(n_dice: int) -> tuple[tuple[int, ...], ...]:
    """Per re-roll bit set, the places of the dice it re-rolls, ascending."""
    return tuple(tuple(i for i in range(n_dice) if a >> i & 1) for a in range(2**n_dice))


@cache
def _rerolls(n_actions: int, frozen: int) -> tuple[int, ...]:
    """The re-roll bit sets that leave the ``frozen`` dice alone (0, stand, among them)."""
    return tuple(a for a in range(n_actions) if a & frozen == 0)


@cache
def _reroll_mask(n_actions: int, frozen: int) -> np.ndarray:
    mask = action_mask(list(_rerolls(n_actions, frozen)), n_actions)
    mask.flags.writeable = False
    return mask


@dataclass(frozen=True)
class _Compiled:
    """What a game of one rule set reads at every step, compiled once."""

    hands: HandStrengths
    turns: object  # scalar_turns(n_dice, lock_kept_dice)
    rerolled: tuple[tuple[int, ...], ...]
    masks: tuple[np.ndarray, ...]  # the action mask per frozen bit set (read-only)
    n_actions: int


@cache
def _compile(rules: DicePokerRules) -> _Compiled:
    n = rules.n_actions
    masks = tuple(_reroll_mask(n, f) for f in range(n))
    turns = scalar_turns(rules.n_dice, rules.lock_kept_dice)
    return _Compiled(hand_strengths(rules), turns, _rerolled(rules.n_dice), masks, n)


_LAST: list = [None, None]  # the rules of the last game started and their _Compiled


def _compiled(rules: DicePokerRules) -> _Compiled:
    """:func:`_compile` of ``rules``; the very rules object of the last game is not hashed
    again (a game starts at every reset)."""
    if _LAST[0] is not rules:
        _LAST[1] = _compile(rules)
        _LAST[0] = rules
    return _LAST[1]


class MoveTables:
    """A policy's tables of moves for :meth:`DicePokerGame.play_turn`: per situation of a
    turn (a key the policy makes of what it reads besides the dice), the move by
    ``DicePokerGame.decision``, -1 where the policy has not decided it. A new situation's
    table is ``fill(key)`` (every move of the situation at once: an ``array("b")`` of
    ``2 * n_states``), or all -1s without ``fill``. At most ``limit`` tables are kept
    (then it starts afresh)."""

    def __init__(
        self, n_states: int, limit: int, fill: Callable[[object], array] | None = None
    ) -> None:
        self.size = 2 * n_states  # decision ids: the first roll's, then the second's
        self.limit = limit
        self.fill = fill
        self.tables: dict[object, array] = {}

    def get(self, key: object) -> array:
        """The table of situation ``key`` (made on first sight)."""
        moves = self.tables.get(key)
        if moves is None:
            if len(self.tables) >= self.limit:
                self.tables.clear()
            if self.fill is None:
                moves = array("b", [-1]) * self.size
            else:
                moves = self.fill(key)
                if len(moves) != self.size:
                    raise ValueError(
                        f"fill({key!r}) gave {len(moves)} moves; the table needs {self.size}"
                    )
            self.tables[key] = moves
        return moves


class DicePokerGame:
    """One game, play-offs included. Mutable; :meth:`copy` gives an independent one.

    ``order`` is the seats in turn order. The game owns ``rng`` for its rolls;
    ``chance`` gives the faces of the first roll instead (module docstring).

    Besides the record (``rounds``: every turn's rolls and hand) the game keeps what a
    player deciding now reads, updated as it moves: ``dice`` and ``frozen`` of the player
    to act, ``rolls_used``, ``round_seats`` (this round's seats in order; the player to
    act is at place ``position``), and the best finished hand of the round as
    ``best_hand``, ``best_strength`` (its :class:`HandStrengths` strength, -1 for none) and
    ``best_count`` (how many finished players hold it). Hands compare by strength.
    ``state_id`` is the id of ``dice`` and ``frozen`` among the turn states of
    :func:`envs.rules.dice_poker_tables.turn_states` (the batched engine's), by which a
    drawn step moves, while the player to act may still re-roll (-1 otherwise).
    """

    def __init__(
        self,
        order: Sequence[int],
        rng: np.random.Generator,
        rules: DicePokerRules | None = None,
        chance: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules or DicePokerRules()
        self.order = [int(s) for s in order]
        if len(self.order) < 2 or len(set(self.order)) != len(self.order):
            raise ValueError(f"a game needs 2 or more distinct seats in order, got {self.order}")
        self.rng = rng
        self._below = below_drawer(rng)
        self.pot = self.rules.ante * len(self.order)
        self.rounds: list[list[Turn]] = []
        self.winner: int | None = None
        c = _compiled(self.rules)
        self._hands = c.hands
        self._turns = c.turns
        self._rerolled = c.rerolled
        self._masks = c.masks
        self._n_actions = c.n_actions
        first = None if chance is None else check_dice(chance, self.rules.n_dice)
        self._start_round(self.order, first)

    # -- state ---------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.winner is not None

    @property
    def playoff(self) -> int:
        """0 in the main round, k in the k-th play-off."""
        return len(self.rounds) - 1

    @property
    def round_order(self) -> list[int]:
        return list(self.round_seats)

    @property
    def position(self) -> int:
        """The place of the player to act in this round's order (its length once done)."""
        return self._turn

    @property
    def current_player(self) -> int | None:
        return None if self.winner is not None else self.round_seats[self._turn]

    @property
    def players_after(self) -> int:
        """How many players of this round still roll after the current one."""
        return len(self.round_seats) - self._turn - 1

    @property
    def finished_hands(self) -> list[DiceHand]:
        """Hands of the players of this round who already finished."""
        return [t.hand for t in self.rounds[-1][: self._turn] if t.hand is not None]

    def best_so_far(self) -> tuple[DiceHand | None, int]:
        """The best finished hand of this round (the first to reach it) and how many
        players hold it."""
        return self.best_hand, self.best_count

    def frozen_mask(self) -> int:
        return self._fbits

    @property
    def state_id(self) -> int:
        """The turn state id of the dice of the player to act (class docstring)."""
        return self._sid

    @property
    def decision(self) -> int:
        """The id of the decision now: ``state_id`` at the first roll, ``n_states +
        state_id`` at the second (``n_states`` turn states of these dice and lock rule),
        -1 when there is none to take (the game is over, or the dice are not a turn state).
        A table of moves indexed by it is what :meth:`play_turn` reads."""
        if self._sid < 0 or self.winner is not None:
            return -1
        return self._sid + self._turns.n_states * (self.rolls_used - 1)

    def legal_actions(self) -> list[int]:
        """Re-roll bit sets allowed now; 0 (stand) is always allowed while the game runs."""
        if self.winner is not None or self.rolls_used >= MAX_ROLLS:
            return []
        return list(_rerolls(self.rules.n_actions, self._fbits))

    def action_mask(self) -> np.ndarray:
        if self.winner is not None or self.rolls_used >= MAX_ROLLS:
            return action_mask([], self._n_actions)
        return self._masks[self._fbits].copy()

    def stakes(self) -> dict[int, int]:
        """What each seat has put into the pot (the ante; play-offs add none)."""
        return dict.fromkeys(self.order, self.rules.ante)

    def payoffs(self) -> dict[int, int]:
        """Net chips of this game per seat (zero-sum); only once the game is done."""
        if not self.done:
            raise RuntimeError("the game is not finished; payoffs are not known yet")
        ante = self.rules.ante
        return {s: winner_takes_pot(self.pot, ante, s == self.winner) for s in self.order}

    def __getstate__(self) -> dict:
        # pickle and copy.deepcopy: the bound drawer is rebuilt on the (copied) rng
        state = self.__dict__.copy()
        del state["_below"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._below = below_drawer(self.rng)

    def copy(self) -> DicePokerGame:
        new = object.__new__(DicePokerGame)
        new.__dict__.update(self.__dict__)
        new.rng = np.random.Generator(type(self.rng.bit_generator)())
        new.rng.bit_generator.state = self.rng.bit_generator.state
        new._below = below_drawer(new.rng)
        new.rounds = [[Turn(t.seat, list(t.rolls), t.hand) for t in r] for r in self.rounds]
        return new

    # -- transitions ---------------------------------------------------------
    def ends_turn(self, action: int) -> bool:
        """Whether playing ``action`` now ends the current player's turn (a stand, or the
        third roll), so that the step starts the next turn unless the game ends."""
        return action == 0 or self.rolls_used + 1 == MAX_ROLLS

    def check_chance(self, action: int, chance: Sequence[int]) -> tuple[int, ...]:
        """``chance`` as faces for a step playing ``action``: ``n_dice`` faces, or
        ``2 * n_dice`` when the step may start a turn; ``ValueError`` otherwise."""
        n = self.rules.n_dice
        faces = check_dice(chance)
        need = 2 * n if self.ends_turn(action) else n
        if len(faces) not in (n, 2 * n) or len(faces) < need:
            raise ValueError(
                f"chance for this step must be {need} faces"
                + (" (the re-rolled dice, then the next turn's roll)" if need > n else "")
                + f", got {len(faces)}: {list(faces)}"
            )
        return faces

    def step(self, action: int, chance: Sequence[int] | None = None) -> None:
        """Re-roll the dice whose bits are set in ``action``; 0 stands.

        ``chance``: the faces to use instead of drawing from ``rng`` (module docstring).
        Raises ``ValueError`` naming the legal actions, leaving the game unchanged.
        """
        if (
            self.winner is not None
            or self.rolls_used >= MAX_ROLLS
            or (type(action) is not int and not isinstance(action, int | np.integer))
            or not 0 <= action < self._n_actions
            or action & self._fbits
        ):
            raise ValueError(
                f"illegal action {action!r} for seat {self.current_player}: "
                f"legal re-roll bit sets now are {self.legal_actions()}"
                + (" (the game is over)" if self.done else "")
            )
        action = int(action)
        if chance is None:
            self._step_drawn(action)
            return
        n = self.rules.n_dice
        faces = self.check_chance(action, chance)
        next_roll = None if faces is None else faces[n:]
        if action == 0:
            self._end_turn(next_roll)
            return
        rerolled = [bool(action >> i & 1) for i in range(n)]
        dice = [faces[i] if rerolled[i] else d for i, d in enumerate(self.dice)]
        self.rolls_used += 1
        if self.rules.lock_kept_dice and self.rolls_used == 2:
            frozen = [not r for r in rerolled]
        else:
            frozen = list(self.frozen)
        self._set_dice(dice, frozen)
        if self.rolls_used == MAX_ROLLS:
            self._end_turn(next_roll)

    def _step_drawn(self, action: int) -> None:
        """:meth:`step` of a checked ``action`` with the dice drawn from ``rng``, as
        :func:`~envs.rules.dice.roll` draws ``k`` re-rolled dice (one draw below ``6**k``):
        the turn tables (``state_id``) give the state after the second roll and the
        multiset after the third."""
        if action == 0:
            self._end_turn()
        elif self._sid < 0:  # dice that are no turn state (never while a turn runs)
            self._step_sorted(action)
        elif self.rolls_used == 1:
            self._roll_second(action)
        else:
            self._roll_third(action)

    def _roll_second(self, action: int) -> None:
        t = self._turns
        u = self._below(t.roll_size[action])
        sid = t.second[t.kept[self._sid][action]][t.sub_of_roll[t.roll_start[action] + u]]
        self.rolls_used = 2
        self._sid = sid
        self.dice = t.dice[sid]
        self.frozen = t.frozen[sid]
        self._fbits = t.fbits[sid]
        self.rounds[-1][self._turn].rolls.append(self.dice)

    def _roll_third(self, action: int) -> None:
        """The third roll: the multiset by the tables, the frozen flags as the sorted dice
        carry them (``_set_dice``: unfrozen before frozen on equal faces), and the turn
        ends."""
        t = self._turns
        sid = self._sid
        u = self._below(t.roll_size[action])
        mid = t.merge[t.kept[sid][action]][t.sub_of_roll[t.roll_start[action] + u]]
        key = (t.frozen_sub[sid], mid)
        flags = t.third.get(key)
        if flags is None:
            held = [d for d, f in zip(self.dice, self.frozen, strict=True) if f]
            free = list(t.dice[mid])
            for d in held:
                free.remove(d)
            pairs = sorted([(d, False) for d in free] + [(d, True) for d in held])
            frozen = tuple(f for _, f in pairs)
            flags = t.third[key] = (frozen, sum(1 << i for i, f in enumerate(frozen) if f))
        self.rolls_used = MAX_ROLLS
        self.dice = t.dice[mid]
        self.frozen, self._fbits = flags
        self._sid = -1
        self.rounds[-1][self._turn].rolls.append(self.dice)
        self._end_turn()

    def _step_sorted(self, action: int) -> None:
        """A drawn re-roll of dice that are no turn state: the re-rolled dice, in place
        order, take the roll's faces from its last, and the dice are sorted."""
        self.rolls_used += 1
        places = self._rerolled[action]
        new = roll(self.rng, len(places))
        dice = list(self.dice)
        j = len(places)
        for i in places:
            j -= 1
            dice[i] = new[j]
        if self.rolls_used == 2 and self.rules.lock_kept_dice:
            frozen = [True] * len(dice)
            for i in places:
                frozen[i] = False
        else:
            frozen = self.frozen
        self._set_dice(dice, frozen)
        if self.rolls_used == MAX_ROLLS:
            self._end_turn()

    def play_turn(self, moves: Sequence[int], decide: Callable[[DicePokerGame], int]) -> None:
        """Play the current player's turn to its end, with every die drawn as :meth:`step`
        draws it: at each decision the move is ``moves[self.decision]``, or where that is
        -1 the move ``decide(self)`` gives, played by :meth:`step` (checked; ``decide`` may
        write it into ``moves``). A move of the table that re-rolls a frozen die is
        played by :meth:`step` too, which raises. The game must be running."""
        t = self._turns
        n_states = t.n_states
        while True:
            sid = self._sid
            first = self.rolls_used == 1
            a = -1 if sid < 0 else moves[sid if first else sid + n_states]
            if a < 0 or a & self._fbits:
                if a < 0:
                    a = decide(self)
                self.step(a)
                if a == 0 or not first:
                    return
            elif a == 0:
                self._end_turn()
                return
            elif first:
                self._roll_second(a)
            else:
                self._roll_third(a)
                return

    def _set_dice(self, dice: list[int], frozen: Sequence[bool]) -> None:
        pairs = sorted(zip(dice, frozen, strict=True))
        self.dice = tuple(d for d, _ in pairs)
        self.frozen = tuple(f for _, f in pairs)
        self._fbits = sum(1 << i for i, f in enumerate(self.frozen) if f)
        live = self.rolls_used < MAX_ROLLS
        self._sid = self._turns.state_of.get((self.dice, self.frozen), -1) if live else -1
        self.rounds[-1][self._turn].rolls.append(self.dice)

    def _start_round(self, seats: list[int], chance: Sequence[int] | None = None) -> None:
        self.rounds.append([Turn(s) for s in seats])
        self.round_seats = tuple(seats)
        self._turn = 0
        self.best_hand: DiceHand | None = None
        self.best_strength = -1
        self.best_count = 0
        self._holders: tuple[int, ...] = ()  # the seats holding the best hand, in order
        self._start_turn(chance)

    def _start_turn(self, chance: Sequence[int] | None = None) -> None:
        self.rolls_used = 1
        if chance is not None:
            self._set_dice(list(chance), [False] * self.rules.n_dice)
            return
        # a roll of every die is its multiset's state: roll()'s one draw below 6**n_dice
        t = self._turns
        sid = t.final_of_roll[self._below(t.first_size)]
        self._sid = sid
        self.dice = t.dice[sid]
        self.frozen = t.frozen[sid]
        self._fbits = 0
        self.rounds[-1][self._turn].rolls.append(self.dice)

    def _end_turn(self, chance: Sequence[int] | None = None) -> None:
        turn = self.rounds[-1][self._turn]
        turn.hand = self._hands.hand[self.dice]
        strength = self._hands.strength[self.dice]
        if strength > self.best_strength:
            self.best_hand, self.best_strength, self.best_count = turn.hand, strength, 1
            self._holders = (turn.seat,)
        elif strength == self.best_strength:
            self.best_count += 1
            self._holders += (turn.seat,)
        if self._turn + 1 < len(self.round_seats):
            self._turn += 1
            self._start_turn(chance)
            return
        if self.best_count == 1:
            self.winner = self._holders[0]
            self._turn += 1
        else:
            # Play-off among the tied, in this round's order from the earliest tied.
            self._start_round(list(self._holders), chance)


class DicePokerMatch(GameSeries):
    """Games at one table: one game, or a circle of ``n_games`` games.

    The first game is started by ``first`` (default: decided by each player
    rolling one die); each next game is started by the player who was second
    in the previous one. ``chips`` holds every seat's net result so far.

    Chance as input (module docstring): ``seating`` the rounds of the seating roll,
    ``chance`` the first roll of the first game, ``step(action, chance)`` as
    :meth:`DicePokerGame.step`, whose second half also starts the next game.
    """

    def __init__(
        self,
        n_players: int,
        rng: np.random.Generator,
        rules: DicePokerRules | None = None,
        n_games: int = 1,
        first: int | None = None,
        chance: Sequence[int] | None = None,
        seating: Sequence[Sequence[int]] | None = None,
    ) -> None:
        if not isinstance(n_games, int) or n_games < 1:
            raise ValueError(f"n_games must be a whole number >= 1, got {n_games!r}")
        self.n_players = n_players
        self.rng = rng
        self.rules = rules or DicePokerRules()
        self.n_games = n_games
        if first is None:
            self.first, self.seating_rolls = roll_for_first(n_players, rng, seating)
        elif first in range(n_players):
            self.first, self.seating_rolls = first, []
        else:
            raise ValueError(
                f"first must be None (roll for it) or 0..{n_players - 1}, got {first!r}"
            )
        self.chips = [0] * n_players
        self.games_played = 0
        self.done = False  # all n_games played (kept as they end: read at every step)
        self.game = self._new_game(chance)

    @property
    def games_left(self) -> int:
        """Games still to come after the current one."""
        return max(self.n_games - self.games_played - 1, 0)

    def play_turn(self, moves: Sequence[int], decide: Callable[[DicePokerGame], int]) -> dict:
        """:meth:`DicePokerGame.play_turn` on the game in play, then what :meth:`step` does
        when a move ends a game: the payoffs of the game the turn ended, else {}."""
        if self.done:
            raise ValueError(f"no turn to play: the {self._what} is over")
        self.game.play_turn(moves, decide)
        return self._settle()

    def _new_game(self, chance: Sequence[int] | None = None) -> DicePokerGame:
        first = (self.first + self.games_played) % self.n_players
        return DicePokerGame(turn_order(first, self.n_players), self.rng, self.rules, chance)

    def _ledger(self) -> list[int]:
        return self.chips

    def _game_over(self, chance: Sequence[int] | None = None) -> None:
        # a step that ends a game reads chance[n_dice:] as the next game's first roll
        self.games_played += 1
        self.done = self.games_played == self.n_games
        if not self.done:
            n = self.rules.n_dice
            self.game = self._new_game(None if chance is None else tuple(chance)[n:])
