"""A learned worth of every way a dice-poker turn can end, played by exact turn search.

The learner of ``train/handvalue.py`` (model-based, Monte Carlo reinforcement learning).
In prison dice poker a player's turn ends in an *afterstate* that is all that matters to
the rest of the game for that player: out of the round (a hand below the best so far), or
holding the best hand ``s`` together with ``t`` players (itself the latest), in a round of
``m`` players where ``j`` players (itself included) have rolled. :class:`HandValues`
keeps, for every afterstate, the mean of the chips the games that passed through it paid
the player (every return of the table, not discounted): ``V(afterstate)``. It starts
optimistic (the most a game can pay), so that a hand not tried yet looks worth trying.

A turn is then played by exact dynamic programming over the dice (the solver's turn
machinery, :func:`agents.optimal.dice_poker.solve_turn`) with the utility of each final
hand ``h`` = ``V`` of the afterstate it leads to: the best expected ``V`` over the rolls.
Only ``V`` is learned, from the chips of games played; nothing of the solved game enters
(no solver value, no imitation of the optimal player). Against fixed opponents ``V`` of an
afterstate depends only on the players after it (and on the player's own play-offs), so
the learned player is a best response to the opponents it was trained with, position by
position (its table says nothing about which seat holds which kind of opponent: train it
against one kind in every other seat).

``make_agent("handvalue:path/to/values.npz", game="dice_poker")`` plays a saved table in
any env, the arena or ``play.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.optimal.dice_poker import (
    DicePokerOptimal,
    TurnPolicy,
    hand_keys,
    solve_turn,
    turn_shape,
)
from envs import games
from envs.rules.dice_poker import DicePokerRules

FORMAT = "dicepoker-gym hand-value table v1"


@dataclass
class HandValues:
    """``V`` of every afterstate of one rule set and table size, as running sums.

    Holder afterstates are laid out as ``[m, j, s, t]`` (round size ``m`` 0..P, players
    finished ``j`` 1..P, best strength ``s``, holders ``t`` 0..P; the impossible ones stay
    at the prior), flattened, and one last entry is "out of the round". ``sums`` and
    ``weights`` are the (possibly decayed) sums of returns and of visits; the value is
    their mean with ``prior_weight`` pseudo-visits worth ``prior``.
    """

    game: str
    rule_options: dict
    n_players: int
    prior: float
    prior_weight: float
    sums: np.ndarray
    weights: np.ndarray

    @classmethod
    def new(
        cls, game: str, n_players: int, prior: float, prior_weight: float, **rule_options
    ) -> HandValues:
        rules = games.rules_for(game, DicePokerRules, "HandValues", **rule_options)
        lo, hi = games.get(game).players
        if (
            isinstance(n_players, bool)
            or not isinstance(n_players, int)
            or not lo <= n_players <= hi
        ):
            raise ValueError(f"n_players must be {lo}..{hi}, got {n_players!r}")
        size = _size(n_players, len(hand_keys(_play_rules(rules)).keys))
        return cls(
            game,
            dict(rule_options),
            n_players,
            float(prior),
            float(prior_weight),
            np.zeros(size),
            np.zeros(size),
        )

    @property
    def rules(self) -> DicePokerRules:
        return games.rules_for(self.game, DicePokerRules, "HandValues", **self.rule_options)

    @property
    def n_hands(self) -> int:
        return len(hand_keys(_play_rules(self.rules)).keys)

    @property
    def out(self) -> int:
        """The index of the afterstate "out of the round"."""
        return len(self.sums) - 1

    def values(self) -> np.ndarray:
        return (self.sums + self.prior_weight * self.prior) / (self.weights + self.prior_weight)

    def index(self, m, j, best, count, hand) -> np.ndarray:
        """The afterstate of finishing with strength ``hand`` at place ``j`` (0 = first) of
        a round of ``m`` players whose best finished hand is ``best`` (-1: none) held by
        ``count``. Arrays broadcast."""
        m, j, best, count, hand = (np.asarray(x, dtype=np.int64) for x in (m, j, best, count, hand))
        above = hand > best  # also when nobody has finished (best -1)
        level = hand == best
        s = np.where(above, hand, best)
        t = np.where(above, 1, count + 1)
        P, k = self.n_players, self.n_hands
        flat = (((m * (P + 1) + j + 1) * k + s) * (P + 1)) + t
        return np.where(above | level, flat, self.out)

    def utility(self, m: int, j: int, best: int | None, count: int) -> np.ndarray:
        """``V`` of every final strength for the player at place ``j`` of a round of ``m``."""
        if not 1 <= m <= self.n_players or not 0 <= j < m:
            raise ValueError(
                f"this hand-value table was trained at {self.n_players}-player tables; it has "
                f"no values for place {j} of a {m}-player round"
            )
        hands = np.arange(self.n_hands)
        b = -1 if best is None else best
        return self.values()[self.index(m, j, b, count, hands)]

    def add(self, index: np.ndarray, returns: np.ndarray, decay: float = 1.0) -> None:
        """Fold in one batch of (afterstate, return) pairs; earlier data weigh ``decay``."""
        self.sums *= decay
        self.weights *= decay
        n = len(self.sums)
        self.sums += np.bincount(index, weights=returns, minlength=n)
        self.weights += np.bincount(index, minlength=n)


def _size(n_players: int, n_hands: int) -> int:
    return (n_players + 1) * (n_players + 1) * n_hands * (n_players + 1) + 1


def _play_rules(rules: DicePokerRules) -> DicePokerRules:
    return replace(rules, ante=1)  # the ante scales the chips, not the play


def save_values(table: HandValues, path: str | Path, meta: dict | None = None) -> None:
    """The table, its rules and ``meta`` in one ``.npz`` file, written atomically."""
    path = Path(path)
    header = {
        "format": FORMAT,
        "game": table.game,
        "rule_options": table.rule_options,
        "n_players": table.n_players,
        "prior": table.prior,
        "prior_weight": table.prior_weight,
        "meta": meta or {},
    }
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        np.savez(f, header=np.array(json.dumps(header)), sums=table.sums, weights=table.weights)
    tmp.replace(path)


def load_values(path: str | Path) -> tuple[HandValues, dict]:
    """``(table, meta)`` from a file of :func:`save_values`; ``ValueError`` naming the file
    when it is not one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no hand-value table at {str(path)!r}")
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise ValueError("not a file saved by train/handvalue.py")
            sums, weights = data["sums"].astype(np.float64), data["weights"].astype(np.float64)
        table = HandValues.new(
            header["game"],
            int(header["n_players"]),
            float(header["prior"]),
            float(header["prior_weight"]),
            **header["rule_options"],
        )
        if sums.shape != table.sums.shape or weights.shape != table.weights.shape:
            raise ValueError(f"{len(sums)} values where the rules give {len(table.sums)}")
        if not (np.isfinite(sums).all() and np.isfinite(weights).all()):
            raise ValueError("values that are not finite")
        table.sums, table.weights = sums, weights
    except Exception as err:
        raise ValueError(f"cannot load a hand-value table from {str(path)!r}: {err}") from None
    return table, header["meta"]


class HandValueAgent(Agent):
    """Plays a learned :class:`HandValues` table by exact turn search (module docstring).

    The moves from a turn policy are read exactly as :class:`DicePokerOptimal` reads its
    own (the same ``act`` and ``act_batch``): only :meth:`policy`, the turn policy of each
    situation, differs.
    """

    name = "handvalue"

    def __init__(self, path: str | Path | HandValues, game: str = "dice_poker", **rules):
        super().__init__()
        table = path if isinstance(path, HandValues) else load_values(path)[0]
        asked = games.rules_for(game, DicePokerRules, "HandValueAgent", **rules)
        if table.game != game or _play_rules(table.rules) != _play_rules(asked):
            where = "" if isinstance(path, HandValues) else f" {str(path)!r}"
            raise ValueError(
                f"the hand-value table{where} was trained for {table.game} with {table.rules}, "
                f"not for {game} with {asked}"
            )
        self.table = table
        self.rules = _play_rules(asked)
        self.keys = hand_keys(self.rules)
        self.shape = turn_shape(self.rules.n_dice, self.rules.lock_kept_dice)
        if not isinstance(path, HandValues):  # runs/X/values.npz -> handvalue:X
            where = Path(path)
            short = (
                where.parent.name if where.stem == "values" and where.parent.name else where.stem
            )
            self.name = f"handvalue:{short}"
        self.refresh()

    def refresh(self) -> None:
        """Forget the turn policies solved so far (after the table changed)."""
        self._policies: dict[tuple, TurnPolicy] = {}
        self._decisions = self._memo()  # the decisions read off the old table go too
        self.__dict__.pop("_batch", None)

    def policy(self, round_players: int, position: int, best: int | None, count: int):
        """The turn policy that maximises the learned worth of the final hand."""
        key = (round_players, position, best, count)
        if key not in self._policies:
            u = self.table.utility(round_players, position, best, count)
            pol = solve_turn(self.shape, u, self.keys)
            self._policies[key] = TurnPolicy(
                pol.value, pol.pick1.astype(np.int16), pol.pick2.astype(np.int16), None
            )
        return self._policies[key]

    # the moves of a turn policy, read off the observation (one place: the optimal player's)
    act = DicePokerOptimal.act
    _lookup_act = DicePokerOptimal._lookup_act
    _act = DicePokerOptimal._act
    _decide = DicePokerOptimal._decide
    _memo = DicePokerOptimal._memo
    act_batch = DicePokerOptimal.act_batch

    def __repr__(self) -> str:
        return f"HandValueAgent({self.table.game}, {self.table.n_players} players)"


__all__ = ["FORMAT", "HandValueAgent", "HandValues", "load_values", "save_values"]
