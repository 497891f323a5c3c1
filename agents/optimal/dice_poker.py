"""Exact optimal play of prison dice poker, five or six dice (docs/rules.md sections 1 and 2).

Two layers, both exact up to floating point:

**One turn.** Given the worth of every final hand (a *utility* over hand
keys), :func:`solve_turn` finds the policy that maximises its expectation by
dynamic programming over the roll states. A turn is: roll all dice, keep a
sub-multiset ``K`` (keeping all = standing) and re-roll the rest; after roll 2
keep more and re-roll, or stand; roll 3 ends the turn. Under the frozen-dice
rule (``lock_kept_dice=True``) ``K`` may not be touched at roll 3, so the state
at decision 2 is the pair (frozen ``K``, free roll-2 dice); without it the
state is just the multiset. Every step is a gather over precomputed index
arrays, so one turn solves in about a millisecond.

**A game.** The players of a round act in order; what matters to the player
at position ``j`` is the best finished hand ``b`` and how many players ``t``
hold it. Backward induction: ``F[j][b, t, p]`` is the chance that the ``p``-th
holder of the tie (in round order) wins the pot when players ``j..`` still
play optimally. The player at ``j`` values a final hand ``h`` at
``F[j+1][h, 1, 0]`` when ``h > b``, ``F[j+1][b, t+1, t]`` when ``h == b`` and
``0`` when ``h < b``; when the round ends a sole holder wins and ``t`` tied
holders play a play-off, which is a ``t``-player game with the same rules, so
its seat values are :func:`win_probabilities` of ``t`` players. When all
``m`` players of an ``m``-player game tie, the play-off is the same game
again: that self-reference is solved by fixed-point iteration. Only the
states where every finished player is tied depend on it; with the moves held
fixed the seat values are affine in the play-off values (``win = c + a * x``,
``a`` the all-tie chance), so each pass jumps to that line's fixed point and
the next pass checks that no move changed (three passes in every case run).

Maximising the chance to win the pot is maximising expected chips, because
the pot does not depend on play. :class:`DicePokerOptimal` plays any seat
from the observation alone.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache

import numpy as np

from agents.base import Agent, DecisionMemo, legal_actions
from agents.heuristic.dice_poker import TurnTablePolicy
from envs import games
from envs.obs.dice_poker import decode_observation, hand_vector, layout
from envs.rules.dice import multisets, outcome_distribution
from envs.rules.dice_hands import DiceHand, hand_names
from envs.rules.dice_poker import DicePokerRules, MoveTables
from envs.rules.dice_poker_tables import turn_states

# The play-off fixed point stops when no seat's value moves by more than this.
_FIXED_POINT_TOL = 1e-14
_FIXED_POINT_MAX_ITER = 200
# A move must beat an earlier-listed one by up to this much to be preferred (float rounding).
_TIE_TOL = 1e-13


# -- the shape of a turn (depends only on the number of dice and the lock rule) ----------------


def _sub_multisets(m: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Distinct sub-multisets of a sorted multiset, the largest (``m`` itself) first.

    The order is the tie-break between equally good moves: keep more dice.
    """
    counts = Counter(m)
    faces = sorted(counts)
    subs = [
        tuple(f for f, k in zip(faces, ks, strict=True) for _ in range(k))
        for ks in itertools.product(*(range(counts[f], -1, -1) for f in faces))
    ]
    subs.sort(key=len, reverse=True)  # stable: keeps the product order within a size
    return subs


@dataclass
class _Choice:
    """A decision point: for each state row, the sub-multiset ids it may keep.

    Rows with the same number of options are stacked into one 2-D array so
    that choosing is a gather plus an argmax per group.
    """

    n_rows: int
    groups: list[np.ndarray]
    # rows of the stacked groups, back in row order
    order: np.ndarray
    # per group, a penalty growing with the option's place: the tie-break
    bias: list[np.ndarray] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bias = [_TIE_TOL * np.arange(g.shape[1]) / g.shape[1] for g in self.groups]

    @classmethod
    def build(cls, options: list[list[int]]) -> _Choice:
        # Padding each list to a power of two (repeating its last option, which
        # the first-best rule never prefers) leaves few groups for little waste.
        by_width: dict[int, list[int]] = defaultdict(list)
        for row, opts in enumerate(options):
            by_width[1 << (len(opts) - 1).bit_length()].append(row)
        widths = sorted(by_width)
        groups = [
            np.array([options[r] + options[r][-1:] * (w - len(options[r])) for r in by_width[w]])
            for w in widths
        ]
        stacked = np.concatenate([by_width[w] for w in widths])
        return cls(len(options), groups, np.argsort(stacked))

    def best(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best value and the chosen sub-multiset id of every row.

        A move must beat an earlier one (standing, or keeping more dice) by
        more than rounding noise (``_TIE_TOL`` at most) to be preferred: else a
        re-roll whose chances sum to 1.0000000000000002 would beat a sure stand.
        """
        picks = []
        for opts, bias in zip(self.groups, self.bias, strict=True):
            a = (values[opts] - bias).argmax(axis=1)
            picks.append(np.take_along_axis(opts, a[:, None], axis=1)[:, 0])
        pick = np.concatenate(picks)[self.order]
        return values[pick], pick


def _check_legal(action: np.ndarray, masks: np.ndarray, where: str, names: np.ndarray) -> None:
    """An optimal move the mask refuses is a bug: one line naming the place (``where``
    ``names[r]``), the move and the legal ones."""
    bad = ~np.take_along_axis(masks, action[:, None], axis=1)[:, 0]
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise RuntimeError(
            f"optimal move {int(action[r])} is not legal {where} {int(names[r])} "
            f"({legal_actions(masks[r]).tolist()})"
        )


@dataclass
class TurnShape:
    """Every state and move of one turn, as index arrays.

    ``subs`` lists every multiset of 0..n dice (the things a player can keep);
    ``finals`` the multisets of n dice. ``t3[a, f]`` is the chance that keeping
    ``subs[a]`` and rolling the other dice once gives ``finals[f]`` (the
    identity for a full hand).
    """

    n_dice: int
    lock: bool
    subs: list[tuple[int, ...]]
    sub_id: dict[tuple[int, ...], int]
    finals: tuple[tuple[int, ...], ...]
    final_id: dict[tuple[int, ...], int]
    final_sub: np.ndarray
    p_first: np.ndarray
    t3: np.ndarray
    choice1: _Choice
    choice2: _Choice
    # lock only: decision-2 states (frozen K, free O), K's sub id and P(O)
    state2_id: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = field(default_factory=dict)
    state2_k: np.ndarray | None = None
    state2_p: np.ndarray | None = None


@cache
def turn_shape(n_dice: int, lock: bool) -> TurnShape:
    """The (cached) state and move arrays of a turn with ``n_dice`` dice."""
    subs = [m for k in range(n_dice + 1) for m in multisets(k)]
    sub_id = {m: i for i, m in enumerate(subs)}
    finals, p_first = outcome_distribution(n_dice)
    final_id = {f: i for i, f in enumerate(finals)}
    t3 = np.zeros((len(subs), len(finals)))
    for a, kept in enumerate(subs):
        outs, probs = outcome_distribution(n_dice - len(kept))
        for o, p in zip(outs, probs, strict=True):
            t3[a, final_id[tuple(sorted(kept + o))]] += p
    options_full = [[sub_id[s] for s in _sub_multisets(f)] for f in finals]
    choice1 = _Choice.build(options_full)
    shape = TurnShape(
        n_dice=n_dice,
        lock=lock,
        subs=subs,
        sub_id=sub_id,
        finals=finals,
        final_id=final_id,
        final_sub=np.array([sub_id[f] for f in finals]),
        p_first=p_first,
        t3=t3,
        choice1=choice1,
        choice2=choice1,
    )
    if lock:
        options2, ks, ps = [], [], []
        for k in range(n_dice):
            outs, probs = outcome_distribution(n_dice - k)
            for kept in multisets(k):
                for o, p in zip(outs, probs, strict=True):
                    shape.state2_id[kept, o] = len(options2)
                    options2.append(
                        [sub_id[tuple(sorted(kept + more))] for more in _sub_multisets(o)]
                    )
                    ks.append(sub_id[kept])
                    ps.append(p)
        shape.choice2 = _Choice.build(options2)
        shape.state2_k = np.array(ks)
        shape.state2_p = np.array(ps)
    return shape


@dataclass
class TurnPolicy:
    """The optimal turn for one utility: its value, moves and final-hand distribution.

    ``pick1[f]``: the sub-multiset id kept after roll 1 showing ``finals[f]``
    (the full hand = stand). ``pick2``: the id kept at decision 2, per
    (frozen, free) state under the lock rule, else per multiset.
    ``final_probs``: the chance the turn ends with each final multiset (or
    each hand strength, when solved by strength).
    """

    value: float
    pick1: np.ndarray
    pick2: np.ndarray
    final_probs: np.ndarray | None


def solve_turn(shape: TurnShape, utility: np.ndarray, hands: HandKeys | None = None) -> TurnPolicy:
    """Maximise the expected ``utility`` over one turn.

    ``utility`` holds one value per final multiset, or with ``hands`` one value
    per hand strength (faster: the roll transitions are then summed by
    strength), and ``final_probs`` is indexed the same way.
    """
    t3 = shape.t3 if hands is None else hands.t3k
    keep_then_roll = t3 @ utility  # value of keeping a sub-multiset and rolling the rest
    best2, pick2 = shape.choice2.best(keep_then_roll)
    if shape.lock:
        value_kept1 = np.bincount(shape.state2_k, shape.state2_p * best2, minlength=len(shape.subs))
    else:
        value_kept1 = shape.t3 @ best2
    # keeping everything after roll 1 is standing
    value_kept1[shape.final_sub] = utility if hands is None else utility[hands.key_of_final]
    best1, pick1 = shape.choice1.best(value_kept1)
    value = float(shape.p_first @ best1)

    p = shape.p_first
    stand = pick1 == shape.final_sub
    mass_kept1 = np.bincount(pick1[~stand], p[~stand], minlength=len(shape.subs))
    mass2 = mass_kept1[shape.state2_k] * shape.state2_p if shape.lock else mass_kept1 @ shape.t3
    mass_kept2 = np.bincount(pick2, mass2, minlength=len(shape.subs))
    stood = np.where(stand, p, 0.0)
    if hands is not None:
        stood = np.bincount(hands.key_of_final, stood, minlength=len(hands.keys))
    return TurnPolicy(value, pick1, pick2, stood + mass_kept2 @ t3)


# -- hands ------------------------------------------------------------------------------------


def _rules(n_dice: int, variant: dict) -> DicePokerRules:
    # The ante does not change who wins, so every ante shares one solution.
    return replace(DicePokerRules(n_dice=n_dice, **variant), ante=1)


@dataclass
class HandKeys:
    """The distinct hand strengths of a rule set, weakest first.

    ``key_of_final[f]`` is the strength index of ``finals[f]``; ``hands[i]`` a
    hand of strength ``i``.
    """

    keys: list[tuple[int, ...]]
    index: dict[tuple[int, ...], int]
    hands: list[DiceHand]
    key_of_final: np.ndarray
    # t3k[a, i]: chance that keeping sub-multiset a and rolling the rest gives strength i
    t3k: np.ndarray

    def label(self, i: int) -> str:
        h = self.hands[i]
        if len(h.tiebreak) > 1:
            return f"{h.name} {'-'.join(map(str, h.tiebreak))}"
        return f"{h.name} {h.points}"

    def index_of_vector(self, hand_vector: Sequence[float]) -> int | None:
        """Strength index of a hand given as the observation's (rank, points, tb1, tb2)."""
        rank, points, tb1, tb2 = (int(v) for v in hand_vector)
        if rank < 0:
            return None
        return self.index[(rank, points) if (tb1, tb2) == (0, 0) else (rank, tb1, tb2)]


@cache
def hand_keys(rules: DicePokerRules) -> HandKeys:
    finals = multisets(rules.n_dice)
    hands = [rules.rank(f) for f in finals]
    by_key = {}
    for h in hands:
        by_key.setdefault(h.key, h)
    keys = sorted(by_key)
    index = {k: i for i, k in enumerate(keys)}
    key_of_final = np.array([index[h.key] for h in hands])
    t3 = turn_shape(rules.n_dice, rules.lock_kept_dice).t3
    t3k = np.zeros((len(t3), len(keys)))
    for f, k in enumerate(key_of_final):
        t3k[:, k] += t3[:, f]
    return HandKeys(keys, index, [by_key[k] for k in keys], key_of_final, t3k)


# -- one turn against a target ---------------------------------------------------------------


@dataclass
class TargetOdds:
    """For every target hand: the chance to finish above it and level with it."""

    labels: list[str]
    beat: np.ndarray
    tie: np.ndarray


def target_odds(n_dice: int = 5, tie_value: float = 0.0, **variant) -> TargetOdds:
    """One turn's chance to beat (and to tie) every target hand, by exact DP.

    The player maximises ``P(beat) + tie_value * P(tie)``: ``tie_value=0``
    gives the best chance to beat the target, ``1`` the best chance to reach
    at least it; a value in between prices the play-off a tie leads to. The
    tie chance is that of the policy found (moves of equal worth prefer
    keeping more dice).
    """
    rules = _rules(n_dice, variant)
    shape = turn_shape(n_dice, rules.lock_kept_dice)
    hk = hand_keys(rules)
    n = len(hk.keys)
    beat, tie = np.zeros(n), np.zeros(n)
    for b in range(n):
        u = np.zeros(n)
        u[b + 1 :] = 1.0
        u[b] = tie_value
        q = solve_turn(shape, u, hk).final_probs
        beat[b], tie[b] = q[b + 1 :].sum(), q[b]
    return TargetOdds([hk.label(i) for i in range(n)], beat, tie)


def hand_chance(predicate: str | Callable[[DiceHand], bool], n_dice: int = 5, **variant) -> float:
    """The best chance, over one turn, of finishing with a hand that ``predicate`` accepts.

    ``predicate`` is a hand name (``"poker"`` is five of a kind with five
    dice, six of a kind with six) or a function of a :class:`DiceHand`.
    """
    rules = _rules(n_dice, variant)
    if isinstance(predicate, str):
        name = predicate
        if name not in hand_names(n_dice):
            raise ValueError(f"no {n_dice}-dice hand is called {name!r}: {hand_names(n_dice)}")
        predicate = lambda h: h.name == name  # noqa: E731
    utility = np.array([float(predicate(rules.rank(f))) for f in multisets(n_dice)])
    return solve_turn(turn_shape(n_dice, rules.lock_kept_dice), utility).value


# -- a whole game -----------------------------------------------------------------------------


@dataclass
class GameSolution:
    """Optimal play of one ``n_players`` round (a game, or a play-off of that size).

    ``win[p]``: the chance that position ``p`` of the round wins the pot.
    ``future[j][b, t, p]``: the chance that the ``p``-th of ``t`` players tied
    at strength ``b`` wins, once ``j`` players have finished.
    ``playoff[t]``: the seat values of a ``t``-player play-off used here
    (``t == n_players`` is the fixed point).
    """

    n_players: int
    rules: DicePokerRules
    win: np.ndarray
    future: list[np.ndarray]
    playoff: dict[int, np.ndarray]
    iterations: int
    turns_solved: int

    def utility(self, position: int, best: int | None, count: int) -> np.ndarray:
        """Worth of every final strength to the player at ``position`` of the round."""
        return _utility(self.future[position + 1], best, count)


def _utility(after: np.ndarray, best: int | None, count: int) -> np.ndarray:
    u = after[:, 1, 0].copy()
    if best is not None:
        u[:best] = 0.0
        u[best] = after[best, count + 1, count]
    return u


def _solve_round(
    m: int,
    rules: DicePokerRules,
    playoff: dict[int, np.ndarray],
    cached: dict[tuple[int, int, int], tuple[float, np.ndarray]],
) -> tuple[np.ndarray, float, list[np.ndarray], int]:
    """One backward pass with the given play-off values, then a forward pass for the seats.

    Returns the seats' values, the chance that all ``m`` players tie, the
    ``future`` arrays and how many turns were solved.

    ``cached`` holds (value, final-strength distribution) of the turns whose
    utility does not involve the ``m``-player play-off (fewer tied than
    finished), so the fixed-point iteration solves them once.
    """
    hk = hand_keys(rules)
    shape = turn_shape(rules.n_dice, rules.lock_kept_dice)
    nk = len(hk.keys)
    solved = 0

    def turn(j: int, b: int | None, t: int, after: np.ndarray) -> tuple[float, np.ndarray]:
        nonlocal solved
        key = (j, -1 if b is None else b, t)
        if key in cached:
            return cached[key]
        pol = solve_turn(shape, _utility(after, b, t), hk)
        out = (pol.value, pol.final_probs)
        solved += 1
        if t < j:
            cached[key] = out
        return out

    future: list[np.ndarray] = [np.zeros((nk, m + 1, m)) for _ in range(m + 1)]
    for t in range(1, m + 1):
        future[m][:, t, :t] = playoff[t]
    turns: dict[tuple[int, int, int], tuple[float, np.ndarray]] = {}
    for j in range(m - 1, 0, -1):
        after, here = future[j + 1], future[j]
        for b in range(nk):
            for t in range(1, j + 1):
                value, q = turn(j, b, t, after)
                turns[j, b, t] = value, q
                here[b, t, :t] = q[:b].sum() * after[b, t, :t] + q[b] * after[b, t + 1, :t]
    value0, q0 = turn(0, None, 0, future[1])

    # Forward: the chance of each (best, count) before each position.
    win = np.zeros(m)
    win[0] = value0
    reach = np.zeros((nk, m + 1))
    reach[:, 1] = q0
    for j in range(1, m):
        nxt = np.zeros((nk, m + 1))
        for b, t in zip(*np.nonzero(reach), strict=True):
            pr = reach[b, t]
            value, q = turns[j, b, t]
            win[j] += pr * value
            nxt[b, t] += pr * q[:b].sum()
            nxt[b, t + 1] += pr * q[b]
            nxt[b + 1 :, 1] += pr * q[b + 1 :]
        reach = nxt
    return win, float(reach[:, m].sum()), future, solved


@lru_cache(maxsize=64)
def _solve_game(m: int, rules: DicePokerRules) -> GameSolution:
    playoff = {1: np.ones(1)}
    for t in range(2, m):
        playoff[t] = _solve_game(t, rules).win
    playoff[m] = np.full(m, 1.0 / m)
    cached: dict = {}
    solved = iterations = 0
    while iterations < _FIXED_POINT_MAX_ITER:
        iterations += 1
        x = playoff[m]
        win, all_tie, future, n = _solve_round(m, rules, playoff, cached)
        solved += n
        change = np.abs(win - x).max()
        if change <= _FIXED_POINT_TOL:
            break
        # With the moves held fixed, win = c + all_tie * x (an all-tie replays this very
        # game, seats in the same order), so this step lands on the fixed point at once;
        # the next pass checks that the moves did not change.
        playoff[m] = (win - all_tie * x) / (1.0 - all_tie)
    else:
        raise RuntimeError(f"the {m}-player play-off fixed point did not converge ({change})")
    return GameSolution(m, rules, win, future, playoff, iterations, solved)


def solve_game(n_players: int, n_dice: int = 5, **variant) -> GameSolution:
    """Optimal play of every seat of an ``n_players`` game (cached per rules)."""
    if not isinstance(n_players, int) or n_players < 2:
        raise ValueError(f"n_players must be a whole number >= 2, got {n_players!r}")
    return _solve_game(n_players, _rules(n_dice, variant))


def win_probabilities(n_players: int, n_dice: int = 5, **variant) -> list[float]:
    """Each seat's chance (in turn order) to win the game when everybody plays optimally.

    ``variant``: the rule options of :class:`DicePokerRules` (``lock_kept_dice``,
    ``full_house_tiebreak``, ...); the ante changes nothing. The values sum to 1.
    """
    return [float(x) for x in solve_game(n_players, n_dice, **variant).win]


# -- the agent --------------------------------------------------------------------------------


class DicePokerOptimal(Agent):
    """Plays every seat optimally: the exact best response to optimal players after it.

    It reads the round's size, its position, the best finished hand and how
    many hold it from the observation, and keeps the dice the solved turn
    policy keeps. Solutions are cached per rules and round size.
    """

    name = "optimal"

    def __init__(self, game: str = "dice_poker", **rules) -> None:
        super().__init__()
        table = games.rules_for(game, DicePokerRules, "DicePokerOptimal", **rules)
        self.rules = replace(table, ante=1)  # chips scale with the ante; the play does not
        self.keys = hand_keys(self.rules)
        self.shape = turn_shape(self.rules.n_dice, self.rules.lock_kept_dice)
        self._decisions = self._memo()

    def _memo(self) -> DecisionMemo:
        """An empty memo of decisions, keyed by the observation fields :meth:`_act` reads."""
        col = layout(self.rules.n_dice).slices
        read = ("dice", "frozen", "best", "best_count", "round_players", "position", "rolls_used")
        return DecisionMemo(np.concatenate([np.r_[col[f]] for f in read]))

    def policy(self, round_players: int, position: int, best: int | None, count: int):
        """The turn policy of ``position`` in a round of ``round_players``."""
        return _policy(self.rules, round_players, position, best, count)

    def action_values(self, observation: np.ndarray) -> dict[int, float]:
        """Each legal move's chance to win the pot (:func:`action_values`)."""
        return action_values(observation, self.rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # a pure function of the fields it reads: decided once per situation
        return self._decisions.act(self._lookup_act, observation, action_mask)

    def _lookup_act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """:meth:`_act` with the fields read straight from the observation's columns (as
        Python numbers; no decoded dict): the same solved policy tables, the same move.
        Anything but one observation of this layout is left to :meth:`_act`."""
        lay = layout(self.rules.n_dice)
        obs = np.asarray(observation)
        if obs.shape != (lay.size,):
            return self._act(observation, action_mask)
        row = obs.tolist()
        col = lay.slices
        return self._decide(
            row[col["dice"]],
            row[col["frozen"]],
            self.keys.index_of_vector(row[col["best"]]),
            *(row[col[k].start] for k in ("best_count", "round_players", "position", "rolls_used")),
            action_mask,
            lambda: decode_observation(observation, self.rules.n_dice),
        )

    def _act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        f = decode_observation(observation, self.rules.n_dice)
        read = ("best_count", "round_players", "position", "rolls_used")
        best = self.keys.index_of_vector(f["best"])
        return self._decide(
            f["dice"], f["frozen"], best, *(f[k] for k in read), action_mask, lambda: f
        )

    def _decide(
        self, dice, frozen, best, best_count, players, position, rolls_used, action_mask, f
    ) -> int:
        """The move of the solved turn policy for these observation fields, the best hand as
        its strength index ``best`` (None: none yet); ``f()``: the decoded observation, for
        the error message."""
        dice = [int(d) for d in dice]
        frozen = [bool(x) for x in frozen]
        count = int(best_count) if best is not None else 0
        pol = self.policy(int(players), int(position), best, count)
        shape = self.shape
        if int(rolls_used) == 1:
            keep = shape.subs[pol.pick1[shape.final_id[tuple(dice)]]]
        elif shape.lock:
            locked = tuple(d for d, z in zip(dice, frozen, strict=True) if z)
            free = tuple(d for d, z in zip(dice, frozen, strict=True) if not z)
            keep = shape.subs[pol.pick2[shape.state2_id[locked, free]]]
        else:
            keep = shape.subs[pol.pick2[shape.final_id[tuple(dice)]]]
        action = _reroll_bits(dice, frozen, keep)
        if not action_mask[action]:
            raise RuntimeError(
                f"optimal move {action} is not legal ({legal_actions(action_mask).tolist()}); "
                f"observation {f()}"
            )
        return action

    def game_policy(self, rules):
        """``act(game) -> int``: :meth:`act` on the player to act in a
        ``envs.rules.dice_poker.DicePokerGame`` of ``rules``, read from the game's state
        instead of an encoded observation (the shortcut ``DicePoker-v0`` takes): its
        ``state_id`` and ``rolls_used`` give the solver's turn state, ``best_strength`` (the
        same order of hands as the solver's), ``best_count``, the round's size and
        ``position`` the solved turn policy, whose kept dice are re-rolled as :meth:`act`
        re-rolls them. None when the game plays other rules, or for a subclass that
        decides otherwise."""
        if type(self).act is not DicePokerOptimal.act or (
            rules.n_dice,
            rules.lock_kept_dice,
            rules.hand_variant,
        ) != (self.rules.n_dice, self.rules.lock_kept_dice, self.rules.hand_variant):
            return None
        return _GamePolicy(self, turn_states(rules.n_dice, rules.lock_kept_dice))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act` on every row at once: the same solved turn policies (one per round
        size, position, best hand and count, stacked as they are first needed), the same
        state of the turn, the same dice kept (the frozen ones, then the first free ones)."""
        if not hasattr(self, "_batch"):
            self._batch = _OptimalTables(self)
        t = self._batch
        n = self.rules.n_dice
        obs = np.asarray(observations)
        masks = np.asarray(action_masks, dtype=bool)
        col = layout(n).slices
        m = len(masks)
        rows = np.arange(m)
        dice = obs[:, col["dice"]].astype(np.int64)
        frozen = obs[:, col["frozen"]] > 0
        best = obs[:, col["best"]].astype(np.int64)
        target = t.target[((best[:, 0] + 1) * 37 + best[:, 1]) * 49 + best[:, 2] * 7 + best[:, 3]]
        count = np.where(target >= 0, obs[:, col["best_count"].start].astype(np.int64), 0)
        players = obs[:, col["round_players"].start].astype(np.int64)
        position = obs[:, col["position"].start].astype(np.int64)
        first_roll = obs[:, col["rolls_used"].start] == 1
        pid = t.policy_ids(self, players, position, target, count)
        onehot = dice[:, :, None] == np.arange(1, 7)  # (m, n, 6)
        final = t.final_index[(dice - 1) @ t.powers]
        if self.shape.lock:
            locked = (onehot & frozen[:, :, None]).sum(axis=1) @ t.radix
            loose = (onehot & ~frozen[:, :, None]).sum(axis=1) @ t.radix
            state2 = t.state2[t.sub_index[locked], t.sub_index[loose]]
        else:
            state2 = final
        pick = np.where(
            first_roll, t.pick1[pid, final], t.pick2[pid, np.where(first_roll, 0, state2)]
        )
        # The kept multiset holds every frozen die; re-roll the free dice beyond it.
        left = t.sub_counts[pick] - (onehot & frozen[:, :, None]).sum(axis=1)
        action = np.zeros(m, dtype=np.int64)
        for i in range(n):
            face = dice[:, i] - 1
            free = ~frozen[:, i]
            keep = free & (left[rows, face] > 0)
            left[rows, face] -= keep
            action |= (free & ~keep) << i
        _check_legal(action, masks, "in row", rows)
        return action

    def table_policy(self, core):
        """``act(rows)``: :meth:`act_batch` at the tables ``rows`` of a
        ``BatchedDicePoker`` (the player to act at each), read from the tables' state instead
        of an encoded observation: the turn state gives the turn's state id of the solver,
        the table's best hand the target (the same order of hands), ``round_len`` and
        ``turn`` the round's size and the position; the dice kept are re-rolled as
        :meth:`act` does (the free dice of a face beyond those kept). None when the table
        plays other rules."""
        rules = core.rules
        if (rules.n_dice, rules.lock_kept_dice, rules.hand_variant) != (
            self.rules.n_dice,
            self.rules.lock_kept_dice,
            self.rules.hand_variant,
        ):
            return None
        if not hasattr(self, "_batch"):
            self._batch = _OptimalTables(self)
        t = self._batch
        final_of, state2_of, face_of, rank_of, frozen_counts = t.by_state(self, core.turns)
        bits = 1 << np.arange(self.rules.n_dice)

        def act(rows: np.ndarray) -> np.ndarray:
            sid = core.state_ids[rows]
            target = core.best[rows].astype(np.int64)
            count = np.where(target >= 0, core.best_count[rows], 0).astype(np.int64)
            players = core.round_len[rows].astype(np.int64)
            position = core.turn[rows].astype(np.int64)
            pid = t.policy_ids(self, players, position, target, count)
            pick = np.where(
                core.rolls_used[rows] == 1,
                t.pick1[pid, final_of[sid]],
                t.pick2[pid, state2_of[sid]],
            )
            left = t.sub_counts[pick] - frozen_counts[sid]
            reroll = rank_of[sid] >= np.take_along_axis(left, face_of[sid], axis=1)
            action = reroll @ bits
            _check_legal(action, core.legal_by_state[sid], "at table", rows)
            return action

        return act


class _GamePolicy(TurnTablePolicy):
    """:meth:`DicePokerOptimal.game_policy`: ``policy(game) -> int`` (a class, so that an env
    holding it pickles and copies). Per turn state id: the solver's final id and
    decision-2 state id (``_OptimalTables.by_state``); per (round size, position, best,
    count) the solved policy's picks and a table of the moves by ``game.decision``
    (:meth:`turn_moves`, which ``DicePokerGame.play_turn`` reads), each move the re-roll
    bits of :meth:`DicePokerOptimal._decide` (the free dice of a face beyond those kept)."""

    def __init__(self, agent: DicePokerOptimal, turns) -> None:
        if not hasattr(agent, "_batch"):
            agent._batch = _OptimalTables(agent)
        final_of, state2_of, *_ = agent._batch.by_state(agent, turns)
        self.agent = agent
        self.final_of = final_of.tolist()
        self.state2_of = state2_of.tolist()
        self.picks: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.tables = agent._batch.move_tables(agent, turns)  # shared by the agent's policies
        self.bits: dict[tuple[int, int], int] = {}

    @staticmethod
    def _situation(game) -> tuple[int, int, int, int]:
        best = game.best_strength
        return (len(game.round_seats), game.position, best, game.best_count if best >= 0 else 0)

    def turn_moves(self, game):
        """The moves of the player to act by ``game.decision`` (-1: not asked yet) in the
        situation of its turn (round size, position, best hand, how many hold it)."""
        return self.tables.get(self._situation(game))

    def _decide(self, game, decision: int) -> int:
        at = self._situation(game)
        picks = self.picks.get(at)
        if picks is None:
            best = at[2]
            pol = self.agent.policy(at[0], at[1], None if best < 0 else best, at[3])
            if len(self.picks) >= 4096:  # a bound on the memory held (most tables meet few)
                self.picks.clear()
            # the int16 picks themselves (the tables are filled whole, so this path is
            # rare; a memoryview would not pickle with the env)
            picks = self.picks[at] = (pol.pick1, pol.pick2)
        sid = game.state_id
        if game.rolls_used == 1:
            pick = int(picks[0][self.final_of[sid]])
        else:
            pick = int(picks[1][self.state2_of[sid]])
        a = self.bits.get((sid, pick))
        if a is None:
            keep = self.agent.shape.subs[pick]
            a = self.bits[sid, pick] = _reroll_bits(game.dice, game.frozen, keep)
            if a & game.frozen_mask():
                raise RuntimeError(f"optimal move {a} re-rolls a frozen die; dice {game.dice}")
        self.turn_moves(game)[decision] = a
        return a


def _reroll_bits(dice, frozen, keep) -> int:
    """The re-roll bit set that keeps the multiset ``keep`` (it holds every frozen die):
    the free dice of a face beyond those kept, in place order."""
    left = [0] * 7
    for d in keep:
        left[d] += 1
    for d, z in zip(dice, frozen, strict=True):
        left[d] -= z
    action = 0
    for i, (d, z) in enumerate(zip(dice, frozen, strict=True)):
        if z:
            continue
        if left[d] > 0:
            left[d] -= 1
        else:
            action |= 1 << i
    return action


# (rules, id(turns)) -> (turns, MoveTables): the tables of moves every plain DicePokerOptimal
# of those rules plays by
_SHARED_MOVES: dict[tuple, tuple] = {}


class _FillMoves:
    """Every move of a situation (round size, position, best, count) by
    ``DicePokerGame.decision``, for :class:`~envs.rules.dice_poker.MoveTables`: the solved
    policy's kept dice re-rolled as :meth:`DicePokerOptimal.table_policy` re-rolls them
    (the free dice of a face beyond those kept, as :func:`_reroll_bits`: die ``i`` is
    re-rolled when the frozen dice of its face and the free ones before it, ``before[s,
    i]``, already make up what the policy keeps of that face; a frozen die counts -1, so it
    is "re-rolled" only when the kept dice lack it). -1 at the first roll of a state with
    frozen dice (never met) and where a move would re-roll a frozen die (left to
    ``_GamePolicy._decide``, which raises)."""

    def __init__(self, agent: DicePokerOptimal, turns, sub_counts, by_state) -> None:
        self.agent = agent
        final_of, state2_of, face_of, rank_of, frozen_counts = by_state
        n_states = len(final_of)
        first = np.flatnonzero(turns.fbits == 0)  # the states a turn's first roll may show
        sid = np.concatenate([first, np.arange(n_states)])
        self.at = np.concatenate([first, n_states + np.arange(n_states)])
        self.size = 2 * n_states
        self.final_of, self.state2_of = final_of[first], state2_of
        before = rank_of + np.take_along_axis(frozen_counts, face_of, axis=1)
        self.before = before[sid]
        self.face = face_of[sid]  # face - 1, per die
        self.sub_counts = np.ascontiguousarray(sub_counts.ravel())  # sub * 6 + face - 1
        self.fbits = turns.fbits[sid]
        self.bits = 1 << np.arange(agent.rules.n_dice)

    def __call__(self, key: tuple[int, int, int, int]) -> array:
        players, position, best, count = key
        pol = self.agent.policy(players, position, None if best < 0 else best, count)
        pick = np.concatenate([pol.pick1[self.final_of], pol.pick2[self.state2_of]])
        kept = self.sub_counts[pick.astype(np.int64)[:, None] * 6 + self.face]
        moves = (self.before >= kept) @ self.bits
        moves[(moves & self.fbits) != 0] = -1
        out = np.full(self.size, -1, dtype=np.int8)
        out[self.at] = moves
        return array("b", out.tobytes())


class _OptimalTables:
    """What :meth:`DicePokerOptimal.act_batch` looks up (compiled from the solver's own
    :class:`TurnShape`): multiset ids by code, the decision-2 state of (frozen, free)
    sub-multisets, the face counts of every sub-multiset, best-hand vectors to strength
    indices, and the picks of every turn policy met so far, stacked."""

    def __init__(self, agent: DicePokerOptimal) -> None:
        shape, keys = agent.shape, agent.keys
        n = shape.n_dice
        self.powers = 6 ** np.arange(n - 1, -1, -1)
        self.final_index = np.full(6**n, -1, dtype=np.int64)
        for f, i in shape.final_id.items():
            self.final_index[(np.array(f) - 1) @ self.powers] = i
        self.radix = (n + 1) ** np.arange(6)
        self.sub_index = np.full((n + 1) ** 6, -1, dtype=np.int64)
        self.sub_counts = np.array([[s.count(f) for f in range(1, 7)] for s in shape.subs])
        self.sub_index[self.sub_counts @ self.radix] = np.arange(len(shape.subs))
        self.state2 = np.full((len(shape.subs), len(shape.subs)), -1, dtype=np.int64)
        for (kept, free), i in shape.state2_id.items():
            self.state2[shape.sub_id[kept], shape.sub_id[free]] = i
        self.target = np.full(12 * 37 * 49, -1, dtype=np.int64)
        for i in range(len(keys.keys)):
            v = [int(x) for x in hand_vector(keys.hands[i])]
            self.target[((v[0] + 1) * 37 + v[1]) * 49 + v[2] * 7 + v[3]] = i
        self.ids = np.full((7, 6, len(keys.keys) + 1, 7), -1, dtype=np.int64)
        # the picks of policy id i are rows i of pick1 / pick2; the arrays grow by doubling
        # (``known`` rows filled), so meeting a new policy costs no restacking of the others
        self.known = 0
        self.pick1 = np.zeros((0, len(shape.finals)), dtype=np.int64)
        self.pick2 = np.zeros((0, shape.choice2.n_rows), dtype=np.int64)
        self._by_state: dict[int, tuple] = {}  # id(turns) -> (turns, arrays)
        self._moves: dict[int, tuple] = {}  # id(turns) -> (turns, move tables)

    def by_state(self, agent, turns) -> tuple[np.ndarray, ...]:
        """Per turn state of ``turns`` (``envs.batched.dice_poker.TurnStates``): the solver's
        final id (decision 1) and decision-2 state id, each die's face - 1, its place among
        the free dice of its face (-1 if frozen), and the frozen dice's face counts."""
        if id(turns) not in self._by_state:
            shape = agent.shape
            dice, frozen = turns.dice.astype(np.int64), turns.frozen
            finals = multisets(shape.n_dice)
            final_of = np.array([shape.final_id[f] for f in finals])[turns.mid]
            if shape.lock:
                state2_of = np.array(
                    [
                        shape.state2_id[tuple(d[z].tolist()), tuple(d[~z].tolist())]
                        for d, z in zip(dice, frozen, strict=True)
                    ]
                )
            else:
                state2_of = final_of
            onehot = dice[:, :, None] == np.arange(1, 7)
            free_onehot = onehot & ~frozen[:, :, None]
            before = np.cumsum(free_onehot, axis=1) - free_onehot  # free dice of that face
            rank = np.where(frozen, -1, (before * onehot).sum(axis=2))
            frozen_counts = (onehot & frozen[:, :, None]).sum(axis=1)
            arrays = (final_of, state2_of, dice - 1, rank, frozen_counts)
            self._by_state[id(turns)] = (turns, arrays)
        return self._by_state[id(turns)][1]

    def move_tables(self, agent, turns) -> MoveTables:
        """The game policies' tables of moves on ``turns`` (the scalar game's), per
        situation (:meth:`_GamePolicy.turn_moves`): one for every policy of this agent,
        so that what one seat decided the next one reads (every plain
        ``DicePokerOptimal`` of the same rules, too), each made whole on first sight
        (:class:`_FillMoves`; 4,096 situations at most, a bound on the memory held; six
        players meet at most 2,700 six-dice situations)."""
        # a plain DicePokerOptimal's moves depend on the rules alone: one table for all
        shared = type(agent) is DicePokerOptimal
        moves = _SHARED_MOVES if shared else self._moves
        key = (agent.rules, id(turns)) if shared else id(turns)
        if key not in moves:
            fill = _FillMoves(agent, turns, self.sub_counts, self.by_state(agent, turns))
            moves[key] = (turns, MoveTables(len(turns.mid), 4096, fill))
        return moves[key][1]

    def policy_ids(self, agent, players, position, target, count) -> np.ndarray:
        at = (players, position, target + 1, count)
        ids = self.ids[at]
        if (ids < 0).any():
            new = np.unique(np.stack([a[ids < 0] for a in at], axis=1), axis=0)
            if self.known + len(new) > len(self.pick1):
                size = max(2 * len(self.pick1), self.known + len(new), 16)
                for name in ("pick1", "pick2"):
                    old = getattr(self, name)
                    grown = np.zeros((size, old.shape[1]), dtype=np.int64)
                    grown[: self.known] = old[: self.known]
                    setattr(self, name, grown)
            for p, pos, tt, c in new.tolist():
                pol = agent.policy(p, pos, None if tt == 0 else tt - 1, c)
                self.ids[p, pos, tt, c] = self.known
                self.pick1[self.known] = pol.pick1
                self.pick2[self.known] = pol.pick2
                self.known += 1
            ids = self.ids[at]
        return ids


def action_values(observation: np.ndarray, rules: DicePokerRules) -> dict[int, float]:
    """Each legal move's chance to win the pot, every later decision (everyone's) optimal.

    ``observation``: a ``DicePoker-v0`` / ``DicePoker6-v0`` observation of the player to
    act; ``rules``: the table's rules (the ante changes nothing). The solved game gives
    the worth of every final hand to that player (its chance to win when everyone
    after plays optimally; a tie counts at the play-off's chance); one step of the turn
    recursion then values standing and every re-roll that leaves the frozen dice alone.
    The best value is the optimal player's, and :meth:`DicePokerOptimal.act` plays a
    move that attains it.
    """
    rules = replace(rules, ante=1)
    n = rules.n_dice
    f = decode_observation(observation, n)
    hk, shape = hand_keys(rules), turn_shape(n, rules.lock_kept_dice)
    best = hk.index_of_vector(f["best"])
    count = int(f["best_count"]) if best is not None else 0
    utility, kept_value = _worth(
        rules, int(f["round_players"]), int(f["position"]), best, count, int(f["rolls_used"]) == 1
    )
    dice = tuple(int(d) for d in f["dice"])
    frozen = sum(1 << i for i, z in enumerate(f["frozen"]) if z)
    values = {0: float(utility[hk.key_of_final[shape.final_id[dice]]])}
    for a in range(1, rules.n_actions):
        if a & frozen == 0:
            kept = tuple(d for i, d in enumerate(dice) if not a >> i & 1)
            values[a] = float(kept_value[shape.sub_id[kept]])
    return values


@lru_cache(maxsize=1024)
def _worth(
    rules: DicePokerRules,
    round_players: int,
    position: int,
    best: int | None,
    count: int,
    first_roll: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(worth of each final hand strength, worth of keeping each sub-multiset and re-rolling)."""
    sol = _solve_game(round_players, rules)
    hk, shape = hand_keys(rules), turn_shape(rules.n_dice, rules.lock_kept_dice)
    utility = sol.utility(position, best, count)
    keep_and_roll = hk.t3k @ utility  # keep a sub-multiset, roll the others once, stop
    if not first_roll:
        return utility, keep_and_roll
    # a re-roll after the first roll is followed by the best choice after the second
    after2, _ = shape.choice2.best(keep_and_roll)
    if shape.lock:
        kept = np.bincount(shape.state2_k, shape.state2_p * after2, minlength=len(shape.subs))
    else:
        kept = shape.t3 @ after2
    return utility, kept


@lru_cache(maxsize=512)
def _policy(rules: DicePokerRules, m: int, position: int, best: int | None, count: int):
    sol = _solve_game(m, rules)
    hk = hand_keys(rules)
    shape = turn_shape(rules.n_dice, rules.lock_kept_dice)
    pol = solve_turn(shape, sol.utility(position, best, count), hk)
    # Only the moves are needed; small ints keep the cache light.
    return TurnPolicy(pol.value, pol.pick1.astype(np.int16), pol.pick2.astype(np.int16), None)
