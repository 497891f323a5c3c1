"""A rule-of-thumb player of prison dice poker (five or six dice).

It considers a few natural re-rolls: stand; re-roll every die outside the
current combination; keep only the biggest group; re-roll everything it may.
Each is scored by an exact one-roll look-ahead over the dice it would throw:
- when nobody rolls after it, the chance to beat the best hand so far (a tie
  counts as a fair share of the play-off);
- otherwise the expected strength of the result (the chance that one random
  roll ends lower), counting only results that beat the best hand so far,
  since a later player may still beat a marginal winner.
"""

from __future__ import annotations

from array import array
from types import SimpleNamespace

import numpy as np

from agents.base import Agent, DecisionMemo, legal_actions
from envs import games
from envs.batched.dice_poker import hand_table
from envs.obs.dice_poker import decode_observation, hand_vector, layout, observe
from envs.rules.dice import face_counts, multisets, outcome_distribution
from envs.rules.dice_poker import MAX_ROLLS, DicePokerRules, MoveTables
from envs.rules.dice_poker_tables import turn_states

# a game policy's tables of moves (one per best hand, count and chase), at most (then it
# starts afresh)
_TABLES_LIMIT = 1024


class _HandTable:
    """Every multiset of the rules' dice with its hand order index and strength."""

    def __init__(self, rules: DicePokerRules) -> None:
        sets = multisets(rules.n_dice)
        hands = [rules.rank(m) for m in sets]
        keys = sorted({h.key for h in hands})
        self.order = {k: i for i, k in enumerate(keys)}
        self.index = {m: self.order[h.key] for m, h in zip(sets, hands, strict=True)}
        # strength = P(one random roll gives a strictly lower hand)
        _, probs = outcome_distribution(rules.n_dice)
        mass = np.zeros(len(keys))
        for m, p in zip(sets, probs, strict=True):
            mass[self.index[m]] += p
        below = np.concatenate([[0.0], np.cumsum(mass)[:-1]])
        self.strength = {m: below[i] for m, i in self.index.items()}

    def key_index(self, hand_vector: np.ndarray) -> int | None:
        """Order index of a hand given as the observation's (rank, points, tb1, tb2)."""
        rank, points, tb1, tb2 = (int(v) for v in hand_vector)
        if rank < 0:
            return None
        key = (rank, points) if (tb1, tb2) == (0, 0) else (rank, tb1, tb2)
        return self.order[key]


class DicePokerHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: str = "dice_poker", **rules) -> None:
        super().__init__()
        self.rules = games.rules_for(game, DicePokerRules, "DicePokerHeuristic", **rules)
        self.table = _HandTable(self.rules)
        self._memo: dict[tuple[int, ...], tuple] = {}
        col = layout(self.rules.n_dice).slices
        read = ("dice", "frozen", "best", "best_count", "players_after")  # all act reads
        self._decisions = DecisionMemo(np.concatenate([np.r_[col[f]] for f in read]))

    def _outcomes(self, kept: tuple[int, ...]):
        """Order index, strength and probability of each final hand that keeps ``kept``."""
        if kept in self._memo:
            return self._memo[kept]
        outs, probs = outcome_distribution(self.rules.n_dice - len(kept))
        finals = [tuple(sorted(kept + o)) for o in outs]
        idx = np.array([self.table.index[f] for f in finals])
        strength = np.array([self.table.strength[f] for f in finals])
        self._memo[kept] = idx, strength, probs
        return self._memo[kept]

    def _value(self, kept: tuple[int, ...], target: int | None, share: float, chase: bool) -> float:
        """Worth of keeping ``kept`` and re-rolling the rest (module docstring)."""
        idx, strength, probs = self._outcomes(kept)
        if target is None:
            return float(probs @ strength)
        win = (idx > target) + share * (idx == target)
        return float(probs @ (win if chase else win * strength))

    def _candidates(self, dice: tuple[int, ...], free: list[int]) -> tuple[int, int, int, int]:
        """The moves considered: stand; re-roll the free dice outside the combination; keep
        only the biggest group; re-roll every free die."""
        counts = face_counts(dice)
        best_group = max(range(6), key=lambda f: (counts[f], f)) + 1
        core = self._core(dice, counts)
        return (
            0,
            sum(1 << i for i in free if dice[i] not in core),
            sum(1 << i for i in free if dice[i] != best_group or counts[best_group - 1] < 2),
            sum(1 << i for i in free),
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # a pure function of the fields it reads: decided once per situation, by table lookup
        return self._decisions.act(self._lookup_act, observation, action_mask)

    def _lookup_act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """:meth:`_act` read from the compiled tables of :meth:`act_batch`
        (:meth:`_BatchTables.scalar`, as Python lists): the same candidates, the same values
        (the shared table, filled by the very same :meth:`_value`), the same tie order.
        Anything but one observation of this layout and a mask of ``2**n_dice`` is left to
        :meth:`_act`, which decides (or raises) as before."""
        if not hasattr(self, "_batch"):
            self._batch = _batch_tables(self)
        t = self._batch.scalar()
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
        if obs.shape != (t.size,) or mask.shape != (t.n_actions,):
            return self._act(observation, action_mask)
        row = obs.tolist()
        legal = mask.tolist()
        dice = [int(d) for d in row[t.dice]]
        code = 0
        for d in dice:
            code = code * 6 + d - 1
        # a multiset id (-1: not sorted faces 1-6); the best hand's order index (-1: none)
        mid = t.index[code] if min(dice) >= 1 and max(dice) <= 6 else -1
        best = [int(v) for v in row[t.best]]
        target = -1
        if best[0] >= 0:
            at = ((best[0] + 1) * 37 + best[1]) * 49 + best[2] * 7 + best[3]
            fits = min(best) >= 0 and best[1] < 37 and best[2] < 7 and best[3] < 7
            target = t.target[at] if fits else -1
            mid = mid if target >= 0 else -1  # not a hand of these rules: _act says so
        if mid < 0 or not any(legal):
            return self._act(observation, action_mask)
        free = t.all_bits
        for bit, z in zip(t.bits, row[t.frozen], strict=True):
            if z:
                free ^= bit
        count = int(row[t.best_count]) if target >= 0 else 0
        if not 0 <= count <= 6:
            return self._act(observation, action_mask)
        pick = self._pick(
            t.kept[mid],
            free & t.noncore[mid],
            free & t.loose[mid],
            free,
            target,
            count,
            int(row[t.players_after] == 0),
            legal,
        )
        return pick if pick >= 0 else self._act(observation, action_mask)

    def _pick(self, kept, noncore, loose, free, target, count, chase, legal) -> int:
        """The best legal one of the four candidates (stand, ``noncore``, ``loose``, ``free``:
        re-roll bit sets) by :meth:`_value_of` of the kept multiset ids ``kept[action]``,
        ties to the simpler move (``order``); -1 when none is legal."""
        order = self._batch.scalar().order
        top, pick = -np.inf, -1
        for a in (0, noncore, loose, free):
            if not legal[a]:
                continue
            v = self._value_of(kept[a], target, count, chase)
            if v > top or (v == top and order[a] < order[pick]):
                top, pick = v, a
        return pick

    def game_policy(self, rules):
        """``act(game) -> int``: :meth:`act` on the player to act in a
        ``envs.rules.dice_poker.DicePokerGame`` of ``rules``, read from the game's state
        instead of an encoded observation and a mask (the shortcut ``DicePoker-v0`` takes):
        its ``state_id`` (``envs.rules.dice_poker_tables.TurnStates``) gives the candidates
        and kept ids of :meth:`table_policy`;
        ``best_strength`` is the target (the same order of hands), ``players_after`` the
        chase; then :meth:`_pick`, the choice of :meth:`act`. Answers are kept per
        situation. None when the game ranks other hands, or for a subclass that decides
        otherwise."""
        if type(self).act is not DicePokerHeuristic.act or (
            rules.n_dice,
            rules.hand_variant,
        ) != (self.rules.n_dice, self.rules.hand_variant):
            return None
        if not hasattr(self, "_batch"):
            self._batch = _batch_tables(self)
        turns = turn_states(rules.n_dice, rules.lock_kept_dice)
        by_state = self._batch.by_game_state(turns)
        return _GamePolicy(self, by_state, self._batch.move_tables(turns, self), rules.n_actions)

    def _value_of(self, kid: int, target: int, count: int, chase: int) -> float:
        """One entry of :meth:`_values` (the shared table, filled on first sight; read
        through ``known_values``, its entries met so far as Python floats)."""
        t = self._batch
        at = (kid, target + 1, count, chase)
        v = t.known_values.get(at)
        if v is None:
            v = t.values[at]
            if v != v:  # NaN: not asked yet
                goal = None if target < 0 else target
                share = 1.0 / (count + 1) if goal is not None else 0.0
                v = t.values[at] = self._value(t.subs[kid], goal, share, bool(chase))
            v = t.known_values[at] = float(v)
        return v

    def _act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = set(legal_actions(action_mask).tolist())
        f = decode_observation(observation, self.rules.n_dice)
        dice = tuple(int(d) for d in f["dice"])
        frozen = [bool(x) for x in f["frozen"]]
        target = self.table.key_index(f["best"])
        share = 1.0 / (f["best_count"] + 1) if target is not None else 0.0
        chase = f["players_after"] == 0

        def value(action: int) -> float:
            kept = tuple(d for i, d in enumerate(dice) if not action >> i & 1)
            return self._value(kept, target, share, chase)

        candidates = set(self._candidates(dice, [i for i in range(len(dice)) if not frozen[i]]))
        # ties keep the simpler move: stand first, then fewer dice re-rolled
        choices = sorted((a for a in candidates if a in legal), key=lambda a: (a.bit_count(), a))
        return max(choices, key=value)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act` on every row at once: the same candidate moves (:meth:`_candidates` of
        every multiset, compiled once), valued by the very same :meth:`_value` (kept in a
        table filled as new situations appear), the same tie order."""
        if not hasattr(self, "_batch"):
            self._batch = _batch_tables(self)
        t = self._batch
        n = self.rules.n_dice
        obs = np.asarray(observations)
        masks = np.asarray(action_masks, dtype=bool)
        lay = layout(n)
        m = len(masks)
        col = lay.slices
        dice = obs[:, col["dice"]].astype(np.int64)
        mid = t.hands.index[(dice - 1) @ t.hands.powers]
        free = t.all_bits ^ (obs[:, col["frozen"]] > 0) @ t.bits
        best = obs[:, col["best"]].astype(np.int64)
        target = t.target[((best[:, 0] + 1) * 37 + best[:, 1]) * 49 + best[:, 2] * 7 + best[:, 3]]
        count = np.where(target >= 0, obs[:, col["best_count"].start].astype(np.int64), 0)
        chase = (obs[:, col["players_after"].start] == 0).astype(np.int64)
        cand = np.stack(
            [np.zeros(m, dtype=np.int64), free & t.noncore[mid], free & t.loose[mid], free], axis=1
        )
        return self._choose(cand, t.kept[mid[:, None], cand], target, count, chase, masks)

    def table_policy(self, core):
        """``act(rows)``: :meth:`act_batch` at the tables ``rows`` of a
        ``BatchedDicePoker`` (the player to act at each), read from the tables' state instead
        of an encoded observation: the turn state gives the candidates and kept dice (per
        state, compiled once), the table's best hand is the target (the same order of hands),
        ``round_len - turn - 1`` the players after. None when the table plays other hands."""
        rules = core.rules
        if rules.n_dice != self.rules.n_dice or rules.hand_variant != self.rules.hand_variant:
            return None
        if not hasattr(self, "_batch"):
            self._batch = _batch_tables(self)
        cand, kid = self._batch.by_state(core.turns)

        def act(rows: np.ndarray) -> np.ndarray:
            sid = core.state_ids[rows]
            target = core.best[rows].astype(np.int64)
            count = np.where(target >= 0, core.best_count[rows], 0).astype(np.int64)
            chase = (core.round_len[rows] - core.turn[rows] == 1).astype(np.int64)
            masks = core.legal_by_state[sid]
            return self._choose(cand[sid], kid[sid], target, count, chase, masks)

        return act

    def _choose(self, cand, kid, target, count, chase, masks) -> np.ndarray:
        """The best legal candidate of every row (ties: the simpler move, as :meth:`act`)."""
        t = self._batch
        values = np.where(
            np.take_along_axis(masks, cand, axis=1),
            self._values(kid, target, count, chase),
            -np.inf,
        )
        top = values == values.max(axis=1, keepdims=True)
        pick = np.where(top, t.order[cand], np.iinfo(np.int64).max).argmin(axis=1)
        return np.take_along_axis(cand, pick[:, None], axis=1)[:, 0]

    def _values(self, kid, target, count, chase) -> np.ndarray:
        """:meth:`_value` of every (kept id, target, best count, chase), from a table filled
        on first sight."""
        t = self._batch
        flat = t.values.reshape(-1)  # a view: the table is filled through it
        at = kid * t.values[0].size + (((target + 1) * 7 + count) * 2 + chase)[:, None]
        v = flat[at]
        missing = np.isnan(v)
        if missing.any():
            for i in np.unique(at[missing]).tolist():
                k, tt, cc, hh = (int(x) for x in np.unravel_index(i, t.values.shape))
                goal = None if tt == 0 else tt - 1
                share = 1.0 / (cc + 1) if goal is not None else 0.0
                flat[i] = self._value(t.subs[k], goal, share, bool(hh))
            v = flat[at]
        return v

    @staticmethod
    def _core(dice: tuple[int, ...], counts: tuple[int, ...]) -> set[int]:
        """Faces that form the combination (every face of a line, none of a bare hand)."""
        if all(counts):
            return set(dice)
        return {f for f in range(1, 7) if counts[f - 1] >= 2}


class TurnTablePolicy:
    """What the dice-poker game policies share: ``policy(game) -> int`` reads the move from
    the table of the turn's situation (``turn_moves(game)``, by ``game.decision``) and
    asks ``_decide(game, decision)`` (which writes it there) on first sight; dice that are
    no turn state are left to the agent's ``act`` on the observation."""

    agent: object

    def turn_moves(self, game):
        raise NotImplementedError

    def _decide(self, game, decision: int) -> int:
        raise NotImplementedError

    def __call__(self, game) -> int:
        d = game.decision
        if d < 0 or game.rolls_used >= MAX_ROLLS:  # not a turn state: as ever
            return self.agent.act(observe(game, game.current_player), game.action_mask())
        a = self.turn_moves(game)[d]
        return a if a >= 0 else self._decide(game, d)


class _GamePolicy(TurnTablePolicy):
    """:meth:`DicePokerHeuristic.game_policy`: ``policy(game) -> int`` (a class, so that an
    env holding it pickles and copies). Its answers are kept in tables of moves by
    ``game.decision``, one per situation of the turn (:meth:`turn_moves`), which
    ``DicePokerGame.play_turn`` reads."""

    def __init__(
        self, agent: DicePokerHeuristic, by_state: list, tables: dict, n_actions: int
    ) -> None:
        self.agent = agent
        self.by_state = by_state
        self.everything = [True] * n_actions  # the candidates leave the frozen dice alone
        self.n_states = len(by_state)
        self.tables = tables  # shared by every policy of the agent's tables on these turns

    def turn_moves(self, game):
        """The moves of the player to act by ``game.decision`` (-1: not asked yet) in the
        situation of its turn: the best hand so far, how many hold it, whether anybody
        rolls after it (what :meth:`DicePokerHeuristic._pick` reads besides the dice)."""
        target = game.best_strength
        return self.tables.get(
            (target, game.best_count if target >= 0 else 0, game.players_after == 0)
        )

    def _decide(self, game, decision: int) -> int:
        sid = game.state_id
        kept, noncore, loose, free = self.by_state[sid]
        target = game.best_strength
        count = game.best_count if target >= 0 else 0
        chase = int(game.players_after == 0)
        a = self.agent._pick(kept, noncore, loose, free, target, count, chase, self.everything)
        moves = self.turn_moves(game)
        moves[sid] = moves[sid + self.n_states] = a  # either roll (act reads no rolls_used)
        return a


# two candidates' values closer than this (far above the rounding of a sum of at most 462
# products in [0, 1], about 1e-13) are left to the exact _pick
_NEAR = 1e-9


class _MoveFill:
    """The moves of a situation of the turn (best hand, count, chase) at once, for
    :class:`~envs.rules.dice_poker.MoveTables`: the four candidates of every turn state
    (:meth:`_BatchTables.by_state`), valued by one product of the kept-dice transition by
    hand order (``kept[k, h]``, the chance that keeping sub-multiset ``k`` and rolling the
    rest ends with a hand of order ``h``) with the situation's worth of every hand, the
    best taken in :meth:`DicePokerHeuristic._pick`'s tie order. The product sums in
    another order than :meth:`DicePokerHeuristic._value`, so a state whose best candidates
    (of different kept dice) lie within ``_NEAR`` of each other is left at -1, for
    ``_pick`` to decide when it is met: every move in the table is the one ``_pick``
    chooses (tests/agents/test_dice_poker_game_policy.py)."""

    def __init__(self, agent: DicePokerHeuristic, batch: _BatchTables, turns) -> None:
        self.cand, self.kid = batch.by_state(turns)
        self.order = batch.order[self.cand]
        self.rows = np.arange(len(self.kid))
        n = agent.rules.n_dice
        table = agent.table
        n_hands = len(table.order)
        self.strength = np.zeros(n_hands)
        for m, i in table.index.items():
            self.strength[i] = table.strength[m]
        self.hands = np.arange(n_hands)
        # kept[k, h] from the codes of the turn tables: kept sub + rolled multiset -> final
        hand_of_final = np.array([table.index[m] for m in multisets(n)])
        radix = turns.radix.astype(np.int64)
        sub_code = np.array([radix[list(m)].sum() for m in batch.subs], dtype=np.int64)
        sizes = np.array([len(m) for m in batch.subs])
        flat, mass = [], []
        for r in range(n + 1):
            outs, probs = outcome_distribution(r)
            rows = np.flatnonzero(sizes == n - r)
            out_code = np.array([radix[list(o)].sum() for o in outs], dtype=np.int64)
            finals = turns.final_of_code[sub_code[rows][:, None] + out_code[None, :]]
            flat.append((rows[:, None] * n_hands + hand_of_final[finals]).ravel())
            mass.append(np.broadcast_to(probs, finals.shape).ravel())
        size = len(batch.subs) * n_hands
        weights = np.concatenate(mass)
        self.kept = np.bincount(np.concatenate(flat), weights, size).reshape(-1, n_hands)

    def __call__(self, key: tuple[int, int, bool]) -> array:
        target, count, chase = key
        if target < 0:
            worth = self.strength
        else:
            win = (self.hands > target) + (1.0 / (count + 1)) * (self.hands == target)
            worth = win if chase else win * self.strength
        values = (self.kept @ worth)[self.kid]
        top = values.max(axis=1, keepdims=True)
        near = values >= top - _NEAR
        col = np.where(near, self.order, np.iinfo(np.int64).max).argmin(axis=1)
        chosen = self.kid[self.rows, col]
        # all within _NEAR of the best keep the same dice (one value), or are all exactly 0
        # (every product 0 in either sum): the tie order decides, as in _pick
        sure = ~(near & (self.kid != chosen[:, None])).any(axis=1) | (top[:, 0] == 0)
        moves = np.where(sure, self.cand[self.rows, col], -1).astype(np.int8)
        return array("b", np.concatenate([moves, moves]).tobytes())


_SHARED: dict[DicePokerRules, _BatchTables] = {}


def _batch_tables(agent: DicePokerHeuristic) -> _BatchTables:
    """The :class:`_BatchTables` of ``agent``: one per rule set for every plain
    ``DicePokerHeuristic`` (its tables and values depend on the rules alone, so the values one
    agent filled in serve the next), a private one for a subclass."""
    if type(agent) is not DicePokerHeuristic:
        return _BatchTables(agent)
    if agent.rules not in _SHARED:
        _SHARED[agent.rules] = _BatchTables(agent)
    return _SHARED[agent.rules]


class _BatchTables:
    """What :meth:`DicePokerHeuristic.act_batch` looks up, compiled from the scalar code.

    Per multiset id of the dice (``envs.batched.dice_poker.hand_table`` order): the re-roll
    bits of :meth:`~DicePokerHeuristic._candidates` with every die free (``noncore``,
    ``loose``; a frozen die is masked out by the caller) and ``kept[mid, action]``, the id
    of the kept multiset among ``subs`` (every multiset of 0..n dice). ``target[code]``: the
    order index of a best-hand vector (rank, points, tb1, tb2) coded
    ``((rank+1)*37 + points)*49 + tb1*7 + tb2``, -1 for none. ``values[kept, target+1,
    count, chase]``: :meth:`~DicePokerHeuristic._value`, NaN until first asked.
    """

    def __init__(self, agent: DicePokerHeuristic) -> None:
        n = agent.rules.n_dice
        self.hands = hand_table(agent.rules)
        self.bits = 1 << np.arange(n)
        self.all_bits = 2**n - 1
        self.order = np.array([a.bit_count() * 2**n + a for a in range(2**n)])
        self.subs = [m for k in range(n + 1) for m in multisets(k)]
        sub_id = {m: i for i, m in enumerate(self.subs)}
        sets = multisets(n)
        everything = list(range(n))
        self.noncore = np.zeros(len(sets), dtype=np.int64)
        self.loose = np.zeros(len(sets), dtype=np.int64)
        for i, dice in enumerate(sets):
            _, self.noncore[i], self.loose[i], _ = agent._candidates(dice, everything)
        self.kept = np.array(
            [
                [
                    sub_id[tuple(d for j, d in enumerate(dice) if not a >> j & 1)]
                    for a in range(2**n)
                ]
                for dice in sets
            ]
        )
        self.target = np.full(12 * 37 * 49, -1, dtype=np.int64)
        hands = {h.key: h for h in map(agent.rules.rank, sets)}
        for key, i in agent.table.order.items():
            v = [int(x) for x in hand_vector(hands[key])]
            self.target[((v[0] + 1) * 37 + v[1]) * 49 + v[2] * 7 + v[3]] = i
        self.values = np.full((len(self.subs), len(agent.table.order) + 1, 7, 2), np.nan)
        self.known_values: dict[tuple[int, int, int, int], float] = {}
        # id(turns) -> (turns, cand, kid); ("game", id(turns)) -> (turns, by_game_state);
        # ("moves", id(turns)) -> (turns, move tables)
        self._by_state: dict[object, tuple] = {}
        self._n = n
        self._scalar: SimpleNamespace | None = None

    def scalar(self) -> SimpleNamespace:
        """These tables as Python lists and the observation's columns, for one decision at a
        time (:meth:`DicePokerHeuristic._lookup_act`); compiled on first use."""
        if self._scalar is None:
            n = self._n
            col = layout(n).slices
            self._scalar = SimpleNamespace(
                size=layout(n).size,
                n_actions=2**n,
                dice=col["dice"],
                frozen=col["frozen"],
                best=col["best"],
                best_count=col["best_count"].start,
                players_after=col["players_after"].start,
                index=self.hands.index.tolist(),
                target=self.target.tolist(),
                noncore=self.noncore.tolist(),
                loose=self.loose.tolist(),
                kept=self.kept.tolist(),
                order=self.order.tolist(),
                bits=self.bits.tolist(),
                all_bits=self.all_bits,
            )
        return self._scalar

    def by_game_state(self, turns) -> list[tuple]:
        """Per turn state id of ``turns`` (the scalar game's ``state_id``): the kept
        multiset id of every re-roll bit set and the candidates ``noncore``, ``loose``,
        ``free`` with the frozen dice masked out (:meth:`DicePokerHeuristic.game_policy`)."""
        key = ("game", id(turns))
        if key not in self._by_state:
            t = self.scalar()
            out = []
            for mid, fbits in zip(turns.mid.tolist(), turns.fbits.tolist(), strict=True):
                free = self.all_bits ^ fbits
                out.append((t.kept[mid], free & t.noncore[mid], free & t.loose[mid], free))
            self._by_state[key] = (turns, out)
        return self._by_state[key][1]

    def move_tables(self, turns, agent: DicePokerHeuristic) -> MoveTables:
        """The game policies' tables of moves on ``turns`` (the scalar game's), per
        situation (:meth:`_GamePolicy.turn_moves`): one for every policy of these tables,
        so that what one seat decided the next one reads. For a plain
        ``DicePokerHeuristic`` a new situation's table comes whole (:class:`_MoveFill`);
        a subclass's is filled move by move, as it is asked."""
        key = ("moves", id(turns))
        if key not in self._by_state:
            fill = _MoveFill(agent, self, turns) if type(agent) is DicePokerHeuristic else None
            self._by_state[key] = (turns, MoveTables(len(turns.mid), _TABLES_LIMIT, fill))
        return self._by_state[key][1]

    def by_state(self, turns) -> tuple[np.ndarray, np.ndarray]:
        """Per turn state of ``turns`` (``envs.batched.dice_poker.TurnStates``): the four
        candidate bit sets (frozen dice masked out) and the kept id of each."""
        if id(turns) not in self._by_state:
            mid = turns.mid.astype(np.int64)
            free = self.all_bits ^ turns.fbits
            zero = np.zeros(len(mid), dtype=np.int64)
            cand = np.stack([zero, free & self.noncore[mid], free & self.loose[mid], free], axis=1)
            self._by_state[id(turns)] = (turns, cand, self.kept[mid[:, None], cand])
        _, cand, kid = self._by_state[id(turns)]
        return cand, kid
