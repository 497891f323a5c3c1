"""Exact optimal players of the scorecard games: ``PokerNaKostyah-v0`` (russian) and
``YahtzeeClassic-v0``.

``solve(rules, **options)`` computes, for every state of one player's card
between turns, the expected points still to come under optimal play, with
each turn (roll, keep, roll, keep, roll, fill a row) solved exactly over the
252 dice multisets and 462 keeps. "Optimal" maximises the expected final
total of a single player (solitaire play; with several players the russian
result is the total minus the table average, and maximising one's own
expected total is what this player does there too).

The solution is cached on disk (``$XDG_CACHE_HOME/dicepoker-gym`` or
``~/.cache/dicepoker-gym``; ``DICEPOKER_GYM_CACHE`` overrides the folder), one
versioned ``.npz`` per rule set and options, so after the first solve an agent
loads in a fraction of a second. A damaged file (empty, truncated, failing its
CRC or its SHA-256 digest, arrays of the wrong shape) is solved again and
rewritten, with a warning naming it; files are written atomically.

:class:`YahtzeeOptimal` (``make_agent("optimal", game="yahtzee" |
"yahtzee_classic", **rules)``) plays from the observation alone: it reads the
card state and the dice with ``envs.obs.scorecard.decode_observation`` and picks
the action of the optimal policy (ties: stop rather than re-roll, then the
lowest keep index, then the lowest row).
"""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.atomic import atomic_write
from agents.base import Agent
from agents.optimal import _scorecard_classic as classic
from agents.optimal import _scorecard_russian as russian
from agents.optimal._scorecard_tables import classic_yahtzee_table
from agents.optimal._scorecard_turn import (
    DICE,
    DICE_INDEX,
    FULL_KEEP,
    KEEP_INDEX,
    KEEPS,
    N_KEEPS,
    N_ROLLS,
    keep_values,
    subkeeps,
    turn_policy_values,
)
from envs import games
from envs.obs.scorecard import decode_observation
from envs.rules.dice import keep_to_reroll
from envs.rules.scorecard import (
    MAX_ROLLS,
    N_REROLL_ACTIONS,
    STAGE1_BONUS,
    STAGE1_BONUS_AT,
    UPPER_BONUS,
    YAHTZEE_BONUS,
    ScorecardRules,
    make_rules,
)

# bump whenever the solver or the file layout changes (v2: a digest of the contents)
CACHE_VERSION = 2

# -- keeps as env actions ---------------------------------------------------------------


def _proper_subkeeps() -> tuple[np.ndarray, np.ndarray]:
    """Per roll: the keep indices of its sub-multisets except itself (ascending, padded with
    ``N_KEEPS``) and the matching env re-roll actions."""
    width = max(len(subkeeps(d)) for d in DICE) - 1
    keeps = np.full((N_ROLLS, width), N_KEEPS, dtype=np.int64)
    masks = np.zeros((N_ROLLS, width), dtype=np.int64)
    for i, d in enumerate(DICE):
        subs = [k for k in subkeeps(d) if k != FULL_KEEP[i]]
        keeps[i, : len(subs)] = subs
        masks[i, : len(subs)] = [keep_to_reroll(d, KEEPS[k]) for k in subs]
    return keeps, masks


SUBKEEPS, REROLL_ACTIONS = _proper_subkeeps()
_IS_YAHTZEE = np.array([len(set(d)) == 1 for d in DICE])
_FACE = np.array([d[0] - 1 for d in DICE])  # of a Yahtzee: its face - 1


# -- the two games' card states ---------------------------------------------------------


class _Model:
    """A game's card states and its stop values; states are tuples of int arrays."""

    doubles_first_roll = False

    def stop(self, states, first_roll: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(stop values (252, n), best card row (252, n))``."""
        raise NotImplementedError

    def state(self, open_rows: np.ndarray, upper_sum: int, yahtzee_scored: bool):
        """The state of one card as seen in an observation (each entry an array of one)."""
        raise NotImplementedError

    def states(self, open_rows: np.ndarray, upper_sum, yahtzee_scored):
        """The states of a batch of cards: ``open_rows`` (n, rows), the others (n,)."""
        raise NotImplementedError

    def value(self, state) -> np.ndarray:
        raise NotImplementedError

    def apply(self, states, rows, dice_index, first_roll: bool):
        """``(points gained, next states)`` of filling ``rows`` with the dice."""
        raise NotImplementedError


class _ClassicModel(_Model):
    def __init__(self, rules: ScorecardRules, values: np.ndarray, joker=None) -> None:
        self.tab = classic.ClassicTables(rules, joker)
        self.values = values

    def stop(self, states, first_roll):
        stop, rows = classic.stop_values(self.tab, self.values, *states, with_rows=True)
        return stop, rows

    def state(self, open_rows, upper_sum, yahtzee_scored):
        return self.states(np.array([open_rows], dtype=bool), [upper_sum], [yahtzee_scored])

    def states(self, open_rows, upper_sum, yahtzee_scored):
        open_rows = np.asarray(open_rows, dtype=bool)
        filled = (~open_rows).astype(np.int64) @ (1 << np.arange(open_rows.shape[1]))
        y = np.asarray(yahtzee_scored, dtype=bool) & self.tab.track_bonus
        upper = np.minimum(np.asarray(upper_sum, dtype=np.int64), classic.CAP)
        return filled, upper, y.astype(np.int64)

    def value(self, state):
        return self.values[state]

    def apply(self, states, rows, dice_index, first_roll):
        filled, upper, y = states
        tab = self.tab
        score = tab.scores[rows, dice_index]
        face = _FACE[dice_index]
        joker = _IS_YAHTZEE[dice_index] & (filled & classic.Y_BIT != 0)
        score = np.where(joker, tab.joker_score[filled, face, rows], score)
        is_upper = rows < 6
        raw = upper + np.where(is_upper, score, 0)
        gain = score + UPPER_BONUS * (is_upper & (upper < classic.CAP) & (raw >= classic.CAP))
        if tab.track_bonus:
            gain = gain + YAHTZEE_BONUS * (joker & (y == 1))
            y = y | ((rows == classic.Y_ROW) & (score == 50))
        return gain, (filled | (1 << rows), np.minimum(raw, classic.CAP), y)


class _RussianModel(_Model):
    doubles_first_roll = True

    def __init__(self, rules: ScorecardRules, stage1: np.ndarray, stage2: np.ndarray) -> None:
        self.tab = russian.RussianTables(rules)
        self.stage1, self.stage2 = stage1, stage2

    # a state is (filled1, sum1, filled2); stage 2 once filled1 is full
    def stop(self, states, first_roll):
        f1, s1, f2 = states
        two = f1 == (1 << russian.N_UPPER) - 1  # the cards in stage 2
        if two.all():
            stop, row, _ = russian.stage2_stop(self.tab, self.stage2, f2, first_roll)
            return stop, row + russian.N_UPPER
        if not two.any():
            return russian.stage1_stop(self.tab, self.stage1, f1, s1)[:2]
        stop = np.empty((len(DICE), len(f1)))
        row = np.empty((len(DICE), len(f1)), dtype=np.int64)
        for part in (two, ~two):
            stop[:, part], row[:, part] = self.stop(tuple(v[part] for v in states), first_roll)
        return stop, row

    def state(self, open_rows, upper_sum, yahtzee_scored):
        return self.states(np.array([open_rows], dtype=bool), [upper_sum], [yahtzee_scored])

    def states(self, open_rows, upper_sum, yahtzee_scored):
        closed = ~np.asarray(open_rows, dtype=bool)
        f1 = closed[:, : russian.N_UPPER].astype(np.int64) @ (1 << np.arange(russian.N_UPPER))
        f2 = closed[:, russian.N_UPPER :].astype(np.int64) @ (1 << np.arange(russian.N_LOWER))
        return f1, np.asarray(upper_sum, dtype=np.int64), f2

    def value(self, state):
        f1, s1, f2 = state
        full = (1 << russian.N_UPPER) - 1
        return np.where(f1 == full, self.stage2[f2], self.stage1[f1, s1 + russian.OFFSET])

    def apply(self, states, rows, dice_index, first_roll):
        f1, s1, f2 = states
        full = (1 << russian.N_UPPER) - 1
        if np.all(f1 == full):
            lower = rows - russian.N_UPPER
            table = self.tab.lower_first if first_roll else self.tab.lower
            return table[lower, dice_index], (f1, s1, f2 | (1 << lower))
        score = self.tab.upper[rows, dice_index]
        f1, s1 = f1 | (1 << rows), s1 + score
        bonus = STAGE1_BONUS * ((f1 == full) & (s1 >= STAGE1_BONUS_AT))
        return score + bonus, (f1, s1, f2)


# -- the solution ------------------------------------------------------------------------


@dataclass(eq=False)
class Solution:
    """The optimal values of one rule set.

    ``expected_score``: the optimal expected final total from an empty card.
    ``arrays``: classic ``{"values": (8192, 64, 2)}`` indexed by (filled-row
    mask, upper sum capped at 63, Yahtzee row holds 50), with the joker
    tables of the rules module (``joker_legal``, ``joker_score``); russian
    ``{"stage1": (64, 106), "stage2": (2048,)}`` (see the solver modules).
    NaN marks states that cannot occur.
    """

    rules: ScorecardRules
    expected_score: float
    arrays: dict[str, np.ndarray]
    solve_seconds: float = 0.0
    _model: _Model | None = field(default=None, repr=False)

    @property
    def model(self) -> _Model:
        if self._model is None:
            if self.rules.rules == "classic":
                joker = self.arrays.get("joker_legal"), self.arrays.get("joker_score")
                self._model = _ClassicModel(
                    self.rules, self.arrays["values"], None if joker[0] is None else joker
                )
            else:
                self._model = _RussianModel(
                    self.rules, self.arrays["stage1"], self.arrays["stage2"]
                )
        return self._model

    def state_value(self, open_rows, upper_sum: int, yahtzee_scored: bool = False) -> float:
        """Expected points still to come at the start of a turn, under optimal play."""
        return float(self.model.value(self.model.state(open_rows, upper_sum, yahtzee_scored))[0])

    def turn_plan(self, states) -> TurnPlan:
        """Everything the optimal choices of one turn need, for a batch of card states."""
        model = self.model
        stop, rows = model.stop(states, first_roll=False)
        if model.doubles_first_roll:
            stop_first, rows_first = model.stop(states, first_roll=True)
        else:
            stop_first, rows_first = stop, rows
        pad = np.full((1, stop.shape[1]), -np.inf)
        after1 = keep_values(stop, 1)
        after2 = keep_values(stop, 2)
        return TurnPlan(
            stop, rows, stop_first, rows_first, np.vstack([after1, pad]), np.vstack([after2, pad])
        )

    def decide(self, states, dice_index: np.ndarray, rolls_used: int) -> np.ndarray:
        """Env actions of the optimal policy for a batch of states (same roll)."""
        return self.turn_plan(states).actions(dice_index, rolls_used)


@dataclass(eq=False)
class TurnPlan:
    """Stop values and keep values of a batch of card states for one turn.

    After a roll with rolls left the player stops when stopping is worth at
    least every re-roll, else re-rolls around the best keep (lowest keep index
    on ties); keeping all five dice is never a re-roll (it is worth no more
    than stopping or a smaller keep).
    """

    stop: np.ndarray  # (252, n) after roll 2 or 3
    rows: np.ndarray  # (252, n) the card row that attains it
    stop_first: np.ndarray  # (252, n) right after the first roll
    rows_first: np.ndarray
    keep1: np.ndarray  # (463, n) keep values with one roll left; row 462 = -inf padding
    keep2: np.ndarray  # (463, n) with two rolls left

    def actions(
        self, dice_index: np.ndarray, rolls_used: int, cols: np.ndarray | None = None
    ) -> np.ndarray:
        """Env actions for the dice ``dice_index`` of the states ``cols`` (default: all)."""
        if not 1 <= rolls_used <= MAX_ROLLS:
            raise ValueError(f"rolls_used must be 1..{MAX_ROLLS}, got {rolls_used}")
        if cols is None:
            cols = np.arange(dice_index.size)
        first = rolls_used == 1
        stop = (self.stop_first if first else self.stop)[dice_index, cols]
        fill = N_REROLL_ACTIONS + (self.rows_first if first else self.rows)[dice_index, cols]
        if rolls_used == MAX_ROLLS:
            return fill
        expect = self.keep2 if first else self.keep1
        cand = expect[SUBKEEPS[dice_index], cols[:, None]]  # (m, proper keeps)
        j = cand.argmax(axis=1)
        reroll = cand[np.arange(j.size), j] > stop
        return np.where(reroll, REROLL_ACTIONS[dice_index, j], fill)


# -- solving and the cache --------------------------------------------------------------


def cache_dir() -> Path:
    """Where solutions are cached (``DICEPOKER_GYM_CACHE``, else the XDG cache folder)."""
    explicit = os.environ.get("DICEPOKER_GYM_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dicepoker-gym"


def cache_path(rules: ScorecardRules) -> Path:
    opts = "-".join(f"{k}={v}" for k, v in sorted(rules.options.items()))
    return cache_dir() / f"yahtzee-v{CACHE_VERSION}-{rules.rules}-{opts}.npz"


def expected_arrays(rules: ScorecardRules) -> dict[str, tuple[tuple[int, ...], str]]:
    """The arrays of a solution of ``rules``: name -> (shape, dtype)."""
    if rules.rules == "classic":
        n = len(rules.rows)
        return {
            "values": (classic.SHAPE, "float64"),
            "joker_legal": ((1 << n, 6), "int16"),
            "joker_score": ((1 << n, 6, n), "int16"),
        }
    return {
        "stage1": ((1 << russian.N_UPPER, russian.N_SUMS), "float64"),
        "stage2": ((1 << russian.N_LOWER,), "float64"),
    }


def _digest(expected_score: float, arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the score and every array's bytes, in name order."""
    h = hashlib.sha256(np.float64(expected_score).tobytes())
    for name in sorted(arrays):
        h.update(name.encode() + np.ascontiguousarray(arrays[name]).tobytes())
    return h.hexdigest()


def _start_value(rules: ScorecardRules, arrays: dict[str, np.ndarray]) -> float:
    if rules.rules == "classic":
        return float(arrays["values"][0, 0, 0])
    return float(arrays["stage1"][0, russian.OFFSET])


def _load(path: Path, rules: ScorecardRules) -> Solution | None:
    """The solution cached at ``path``, or None (with a warning naming the file when one
    is there but damaged: empty, truncated, failing its CRC or digest, wrong shapes, NaN)."""
    if not path.exists():
        return None
    try:
        with np.load(path) as data:
            files = {k: data[k] for k in data.files}  # reads (and CRC-checks) every member
    except Exception as err:  # EOFError, BadZipFile, zlib.error, ValueError, OSError, ...
        return _damaged(path, f"unreadable ({type(err).__name__}: {err})")
    want = expected_arrays(rules)
    names = set(want) | {"expected_score", "seconds", "digest"}
    if set(files) != names:
        return _damaged(path, f"holds {sorted(files)}, expected {sorted(names)}")
    arrays = {k: files[k] for k in want}
    for name, (shape, dtype) in want.items():
        if arrays[name].shape != shape or arrays[name].dtype != dtype:
            got = f"{arrays[name].shape} {arrays[name].dtype}"
            return _damaged(path, f"{name} is {got}, expected {shape} {dtype}")
    try:
        expected = float(files["expected_score"])
        seconds = float(files["seconds"])
        digest = str(files["digest"])
    except (TypeError, ValueError) as err:
        return _damaged(path, f"bad scalars ({err})")
    if digest != _digest(expected, arrays):
        return _damaged(path, "its contents do not match their digest")
    if not np.isfinite(expected) or expected != _start_value(rules, arrays):
        return _damaged(path, f"expected_score {expected} is not the start state's value")
    return Solution(rules, expected, arrays, seconds)


def _damaged(path: Path, why: str) -> None:
    warnings.warn(
        f"solver cache {str(path)!r} is damaged: {why}; solving again and rewriting it",
        RuntimeWarning,
        stacklevel=3,
    )
    return None


def _save(path: Path, solution: Solution) -> None:
    """Write the solution atomically (agents.atomic): a kill leaves the old file or the new."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as f:
            np.savez(
                f,
                expected_score=solution.expected_score,
                seconds=solution.solve_seconds,
                digest=_digest(solution.expected_score, solution.arrays),
                **solution.arrays,
            )
    except OSError as err:  # a read-only home only costs a re-solve next time
        warnings.warn(
            f"cannot write the solver cache {str(path)!r} ({err})", RuntimeWarning, stacklevel=2
        )


_MEMORY: dict[ScorecardRules, Solution] = {}


def solve(rules: str | ScorecardRules = "russian", cache: bool = True, **options) -> Solution:
    """The optimal solution of a scorecard game (docs/rules.md sections 4 and 5).

    ``rules``: ``"russian"`` (option ``scratch``) or ``"classic"`` (options
    ``joker``, ``yahtzee_bonus``), validated by the rules module. With
    ``cache`` the result is kept in memory and on disk (module docstring).
    """
    r = make_rules(rules, **options)
    if cache:
        if r in _MEMORY:
            return _MEMORY[r]
        found = _load(cache_path(r), r)
        if found is not None:
            _MEMORY[r] = found
            return found
    start = time.perf_counter()
    if r.rules == "classic":
        values = classic.solve_classic(r)
        legal, score = classic_yahtzee_table(r)  # small ints: int16 keeps the file small
        arrays = {
            "values": values,
            "joker_legal": legal.astype(np.int16),
            "joker_score": score.astype(np.int16),
        }
        expected = float(values[0, 0, 0])
    else:
        stage1, stage2 = russian.solve_russian(r)
        arrays = {"stage1": stage1, "stage2": stage2}
        expected = float(stage1[0, russian.OFFSET])
    solution = Solution(r, expected, arrays, time.perf_counter() - start)
    if cache:
        _MEMORY[r] = solution
        _save(cache_path(r), solution)
    return solution


def statistics(solution: Solution) -> dict[str, float]:
    """Exact mean, standard deviation and bonus chance of the final total under optimal play.

    A backward pass over every card state that follows the optimal choices
    (ties broken as the agent breaks them) and carries E[(points to come)^2]
    and P(card bonus) beside the value. The bonus is the russian stage-1 +50
    or the classic upper +35. (Classic: a few times the solve's time.)
    """
    if solution.rules.rules == "russian":
        stage1, stage2 = solution.arrays["stage1"], solution.arrays["stage2"]
        mean, second, p_bonus = russian.russian_moments(solution.rules, stage1, stage2)
    else:
        mean, second, p_bonus = _classic_moments(solution)
    return {"mean": mean, "std": float(np.sqrt(second - mean**2)), "p_bonus": p_bonus}


def _classic_moments(solution: Solution) -> tuple[float, float, float]:
    model = solution.model
    tab, values = model.tab, model.values
    second = np.full(values.shape, np.nan)
    bonus = np.full(values.shape, np.nan)
    f, u, y = classic.level_states(tab, classic.N_ROWS)
    second[f, u, y] = 0.0
    bonus[f, u, y] = u >= classic.CAP
    rolls = np.arange(N_ROLLS)[:, None]
    for n_filled in range(classic.N_ROWS - 1, -1, -1):
        f, u, y = classic.level_states(tab, n_filled)
        for start in range(0, f.size, classic.CHUNK):
            cols = slice(start, start + classic.CHUNK)
            states = (f[cols], u[cols], y[cols])
            stop, rows = classic.stop_values(tab, values, *states, with_rows=True)
            shape = rows.shape
            flat = tuple(np.broadcast_to(v[None, :], shape).ravel() for v in states)
            dice = np.broadcast_to(rolls, shape).ravel()
            gain, nxt = model.apply(flat, rows.ravel(), dice, False)
            sq = gain**2 + 2 * gain * values[nxt] + second[nxt]
            _, (second[states], bonus[states]) = turn_policy_values(
                stop, [sq.reshape(shape), bonus[nxt].reshape(shape)]
            )
    return float(values[0, 0, 0]), float(second[0, 0, 0]), float(bonus[0, 0, 0])


# -- simulation --------------------------------------------------------------------------

_CODE = np.array([6**4, 6**3, 6**2, 6, 1])
_DICE_BY_CODE = np.full(6**5, -1, dtype=np.int64)
for _i, _d in enumerate(DICE):
    _DICE_BY_CODE[(np.array(_d) - 1) @ _CODE] = _i


def dice_indices(dice: np.ndarray) -> np.ndarray:
    """Index in ``DICE`` of each row of ``dice`` (n, 5), sorted ascending."""
    return _DICE_BY_CODE[(dice - 1) @ _CODE]


def simulate(
    solution: Solution, n_games: int, seed: int | None = 0, check_with_rules: bool = False
) -> dict[str, np.ndarray]:
    """``{"total", "bonus"}`` of ``n_games`` games of the optimal policy (a check of the solver).

    ``total``: each game's final total; ``bonus``: whether it earned the card
    bonus (russian: stage-1 sum >= 0, +50; classic: upper sum >= 63, +35).

    The games run side by side, a turn at a time, so each turn is planned once
    for every distinct card state. The policy is the agent's (:class:`TurnPlan`).
    With ``check_with_rules`` every fill is also made on an
    ``envs.rules.scorecard.Scorecard``, which checks it is legal and scores it
    (bonuses included); a difference from the solver's own bookkeeping raises.
    """
    from envs.rules.scorecard import Scorecard

    rng = np.random.default_rng(seed)
    rules = solution.rules
    model = solution.model
    empty = model.state([True] * len(rules.rows), 0, False)
    states = tuple(np.repeat(v, n_games) for v in empty)
    totals = np.zeros(n_games, dtype=np.int64)
    cards = [Scorecard(rules) for _ in range(n_games)] if check_with_rules else None
    for _ in range(len(rules.rows)):
        unique, column = np.unique(np.stack(states), axis=1, return_inverse=True)
        plan = solution.turn_plan(tuple(unique))  # many games share a card state
        column = column.ravel()
        dice = np.sort(rng.integers(1, 7, size=(n_games, 5)), axis=1)
        active = np.arange(n_games)
        new_states = [v.copy() for v in states]
        for rolls_used in range(1, MAX_ROLLS + 1):
            index = dice_indices(dice[active])
            actions = plan.actions(index, rolls_used, column[active])
            fills = actions >= N_REROLL_ACTIONS
            games, rows = active[fills], actions[fills] - N_REROLL_ACTIONS
            if games.size:
                old = tuple(v[games] for v in states)
                gain, nxt = model.apply(old, rows, index[fills], rolls_used == 1)
                totals[games] += gain
                for v, part in zip(new_states, nxt, strict=True):
                    v[games] = part
                for g, row, points in zip(games, rows, gain, strict=True) if cards else ():
                    cards[g], ref = cards[g].fill(
                        rules.rows[row], dice[g].tolist(), first_roll=rolls_used == 1
                    )
                    if ref != points:
                        raise AssertionError(
                            f"solver scored {points}, rules scored {ref}: row "
                            f"{rules.rows[row]}, dice {dice[g].tolist()}, card {cards[g]}"
                        )
            active, masks = active[~fills], actions[~fills]
            if active.size:
                reroll = (masks[:, None] >> np.arange(5) & 1).astype(bool)
                fresh = rng.integers(1, 7, size=(active.size, 5))
                dice[active] = np.sort(np.where(reroll, fresh, dice[active]), axis=1)
        assert active.size == 0, "every turn ends with a fill after the third roll"
        states = tuple(new_states)
    if cards is not None and any(c.total != t for c, t in zip(cards, totals, strict=True)):
        raise AssertionError("the solver's totals differ from the rules module's")
    bonus = states[1] >= (STAGE1_BONUS_AT if rules.rules == "russian" else classic.CAP)
    return {"total": totals.astype(np.float64), "bonus": bonus}


# -- every action's value -----------------------------------------------------------------


def action_values(
    solution: Solution, observation: np.ndarray, action_mask: np.ndarray
) -> dict[int, float]:
    """Each legal action's expected points still to come in the game, optimal play after it.

    ``observation``: a one-player ``Yahtzee-v0`` / ``YahtzeeClassic-v0`` observation of
    ``solution``'s rules; ``action_mask``: the legal actions. A fill is worth the points it
    scores (bonuses included) plus the solved value of the card it leaves; a re-roll is
    worth the solved value of the dice it keeps with the rolls that remain. Points already
    on the card are not included (add the card's total for the expected final score). The
    best value is the solved value of the position, and :class:`YahtzeeOptimal` plays an
    action that attains it.
    """
    from envs.obs.scorecard import decode_observation  # envs import agents; import late

    f = decode_observation(observation, solution.rules)
    model = solution.model
    state = model.state(f["open_rows"].tolist(), int(f["upper_sum"]), bool(f["yahtzee_scored"]))
    dice = tuple(sorted(int(d) for d in f["dice"]))
    rolls_used = int(f["rolls_used"])
    legal = [int(a) for a in np.flatnonzero(action_mask)]
    values: dict[int, float] = {}
    rerolls = [a for a in legal if a < N_REROLL_ACTIONS]
    if rerolls:
        plan = solution.turn_plan(state)
        keep = plan.keep2 if rolls_used == 1 else plan.keep1
        for a in rerolls:  # bit i re-rolls the i-th smallest die
            kept = tuple(d for i, d in enumerate(dice) if not a >> i & 1)
            values[a] = float(keep[KEEP_INDEX[kept], 0])
    fills = [a for a in legal if a >= N_REROLL_ACTIONS]
    if fills:
        rows = np.array(fills) - N_REROLL_ACTIONS
        batch = tuple(np.repeat(x, len(fills)) for x in state)
        gain, after = model.apply(
            batch, rows, np.full(len(fills), DICE_INDEX[dice]), rolls_used == 1
        )
        for a, g, v in zip(fills, gain, model.value(after), strict=True):
            values[a] = float(g) + float(v)
    return values


# -- the agent --------------------------------------------------------------------------


def _check_legal(actions: np.ndarray, masks: np.ndarray, where: str) -> None:
    """An optimal move the mask refuses is a bug of the solver or the env: one line naming
    it (``where`` formatted with the row ``i``) and the legal moves."""
    bad = ~masks[np.arange(len(actions)), actions]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RuntimeError(
            f"optimal player chose illegal action {int(actions[i])}{where.format(i=i)} (legal: "
            f"{np.flatnonzero(masks[i]).tolist()}); the solver and the env disagree"
        )


class YahtzeeOptimal(Agent):
    """The optimal player of ``Yahtzee-v0`` / ``YahtzeeClassic-v0`` (module docstring)."""

    name = "optimal"

    def __init__(self, game: str = "yahtzee", **rules) -> None:
        super().__init__()
        self.rules = games.scorecard_rules_for(game, "YahtzeeOptimal", **rules)
        self.solution = solve(self.rules)
        self._plan: tuple | None = None

    def action_values(self, observation: np.ndarray, action_mask: np.ndarray) -> dict[int, float]:
        """Each legal action's expected points still to come (:func:`action_values`)."""
        return action_values(self.solution, observation, action_mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        f = decode_observation(observation, self.rules)
        key = (tuple(f["open_rows"].tolist()), int(f["upper_sum"]), bool(f["yahtzee_scored"]))
        if self._plan is None or self._plan[0] != key:  # a new turn: plan it once
            state = self.solution.model.state(*key)
            self._plan = (key, self.solution.turn_plan(state))
        dice = DICE_INDEX[tuple(sorted(int(d) for d in f["dice"]))]
        action = self._plan[1].actions(np.array([dice]), int(f["rolls_used"]))
        _check_legal(action, np.asarray(action_mask, dtype=bool)[None], "")
        return int(action[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """:meth:`act` on every row at once: each distinct card state of the batch is planned
        once (:meth:`Solution.turn_plan`), and the dice of every row read off its plan."""
        f = decode_observation(np.asarray(observations), self.rules)
        masks = np.asarray(action_masks, dtype=bool)
        if f["dice"].ndim != 2 or masks.shape != (len(f["dice"]), masks.shape[-1]):
            raise ValueError(
                f"act_batch takes (m, D) observations and (m, A) masks, got "
                f"{np.shape(observations)} and {masks.shape}"
            )
        states = self.solution.model.states(f["open_rows"], f["upper_sum"], f["yahtzee_scored"])
        unique, cols = np.unique(np.stack(states), axis=1, return_inverse=True)
        plan = self.solution.turn_plan(tuple(unique))
        dice = dice_indices(np.sort(f["dice"], axis=1))
        rolls = f["rolls_used"].astype(np.int64)
        out = np.zeros(len(dice), dtype=np.int64)
        for r in np.unique(rolls):
            rows = np.flatnonzero(rolls == r)
            out[rows] = plan.actions(dice[rows], int(r), cols.ravel()[rows])
        _check_legal(out, masks, " in row {i}")
        return out

    def __repr__(self) -> str:
        return f"YahtzeeOptimal({self.rules.rules}, {self.rules.options})"


__all__ = [
    "Solution",
    "TurnPlan",
    "YahtzeeOptimal",
    "action_values",
    "cache_dir",
    "cache_path",
    "simulate",
    "solve",
    "statistics",
]
