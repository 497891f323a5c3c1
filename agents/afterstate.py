"""A learned value of the scorecard between turns, played by exact turn search.

The learner of ``train/afterstate.py`` (model-based reinforcement learning, as
TD-Gammon): a small network ``V(card)`` estimates the points still to come from a card
between turns (open rows, upper / stage-1 sum, Yahtzee-row state). A whole turn is then
played by exact expectimax over the dice with ``V`` at its leaves: after each roll, the
best of filling a legal row now (the points the rules give, bonuses included, plus ``V``
of the card it leaves) and of every keep (its exact expected value over the re-rolled
dice, two rolls deep). The within-turn machinery is the exact solver's
(``agents.optimal._scorecard_turn``); only ``V`` is learned, from the points of the games
it plays. Nothing of the solved optimum enters: ``V`` starts at zero (a greedy player).

``make_agent("afterstate:path/to/value.pt", game="yahtzee_classic")`` plays a saved
value network in any env, the arena or ``play.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.atomic import atomic_write
from agents.base import Agent
from agents.model_files import check_finite, check_zip
from agents.optimal._scorecard_turn import COUNTS, keep_values, turn_values
from agents.optimal.scorecard import TurnPlan
from envs import games
from envs.obs.scorecard import decode_observation
from envs.rules.scorecard import (
    DICE,
    UPPER_BONUS_AT,
    ScorecardRules,
    dice_index,
    fill_gains,
    legal_row_mask,
    make_rules,
    score_tables,
)

N_DICE_SETS = len(DICE)
FORMAT = "dicepoker-gym afterstate value v1"
# The layout of :func:`features`. Raise it whenever features() changes: a saved network is
# only meaningful on the features it was trained on, and loading one of another version fails
# (files saved before the version was stored are version 1).
FEATURES_VERSION = 1


# -- the card between turns as network input ---------------------------------------------


@dataclass(frozen=True)
class CardStates:
    """A batch of cards between turns: ``open_`` (n, rows) bool, ``upper`` (n,) the upper
    (classic) / stage-1 (russian) sum, ``y50`` (n,) bool the Yahtzee row holds 50."""

    open_: np.ndarray
    upper: np.ndarray
    y50: np.ndarray

    def __len__(self) -> int:
        return len(self.upper)

    def key(self) -> np.ndarray:
        """One row of ints per card (for finding the distinct cards of a batch)."""
        return np.column_stack([self.open_, self.upper, self.y50]).astype(np.int64)


def upper_range(rules: ScorecardRules) -> tuple[int, int]:
    """The upper sums the value features tell apart: classic 0..63 (above 63 only
    "reached" matters), russian -63..42 (every stage-1 sum)."""
    return (0, UPPER_BONUS_AT) if rules.rules == "classic" else (-63, 42)


def feature_size(rules: ScorecardRules) -> int:
    lo, hi = upper_range(rules)
    return len(rules.rows) + (hi - lo + 1) + 4


def features(rules: ScorecardRules, cards: CardStates) -> np.ndarray:
    """``(n, feature_size)`` float32: open rows, the upper sum one-hot (clipped to
    :func:`upper_range`) and scaled, the Yahtzee-row state and the share of turns left."""
    lo, hi = upper_range(rules)
    n, rows = len(cards), len(rules.rows)
    out = np.zeros((n, feature_size(rules)), dtype=np.float32)
    out[:, :rows] = cards.open_
    # russian: the stage-1 sum matters only until stage 1 ends (the +50 is decided then), so
    # stage-2 cards leave it out and do not differ by a sum that no longer changes anything;
    # classic keeps it (capped at 63, where only "reached" matters)
    russian = rules.rules == "russian"
    live = cards.open_[:, :6].any(axis=1) if russian else np.ones(n, dtype=bool)
    u = np.clip(cards.upper, lo, hi) - lo
    out[np.flatnonzero(live), rows + u[live]] = 1.0
    base = rows + hi - lo + 1
    out[:, base] = np.where(live, cards.upper / 63.0, 0.0)
    if rules.rules == "classic":
        y_row = rules.rows.index("yahtzee")
        out[:, base + 1] = cards.y50
        out[:, base + 2] = ~cards.open_[:, y_row] & ~cards.y50
    out[:, base + 3] = cards.open_.mean(axis=1)
    return out


class ValueNet(nn.Module):
    """``V(card)`` in points / 100: an MLP over :func:`features`."""

    def __init__(self, rules: ScorecardRules, hidden: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        self.rules, self.hidden = rules, tuple(hidden)
        layers: list[nn.Module] = []
        width = feature_size(rules)
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(x).squeeze(-1)

    def values(self, cards: CardStates) -> np.ndarray:
        """Points still to come from each card (0 for a full card)."""
        if len(cards) == 0:
            return np.zeros(0)
        with torch.inference_mode():
            v = self(torch.as_tensor(features(self.rules, cards))).numpy().astype(np.float64)
        return np.where(cards.open_.any(axis=1), 100.0 * v, 0.0)


# -- one turn by expectimax with V at the leaves -----------------------------------------


def _successors(rules: ScorecardRules, cards: CardStates) -> tuple[CardStates, int]:
    """Every card one fill can lead to, per card: for each upper row each count 0..5 of its
    face, then each lower row (the classic Yahtzee row twice: 0 and 50). Returns the
    successors stacked as (n * k) cards and k."""
    rows = len(rules.rows)
    classic = rules.rules == "classic"
    tab = score_tables(rules)
    n = len(cards)
    opens, uppers, ys = [], [], []
    for r in range(6):
        for c in range(6):
            o = cards.open_.copy()
            o[:, r] = False
            # the score of c dice of face r+1 in the upper row (any roll with that count)
            d = next(i for i in range(N_DICE_SETS) if COUNTS[i, r] == c)
            opens.append(o)
            uppers.append(cards.upper + tab.later[d, r])
            ys.append(cards.y50)
    for r in range(6, rows):
        for y50 in (False, True) if classic and rules.rows[r] == "yahtzee" else (None,):
            o = cards.open_.copy()
            o[:, r] = False
            opens.append(o)
            uppers.append(cards.upper)
            ys.append(cards.y50 | bool(y50))
    k = len(opens)
    stack = CardStates(
        np.stack(opens, axis=1).reshape(n * k, rows),
        np.stack(uppers, axis=1).reshape(n * k),
        np.stack(ys, axis=1).reshape(n * k),
    )
    return stack, k


@cache
def _leaf_index(rules: ScorecardRules) -> np.ndarray:
    """``(252, rows)``: which successor of :func:`_successors` filling row r with roll d
    leads to (the classic Yahtzee row: the successor holding 50 for five of a kind)."""
    rows = len(rules.rows)
    tab = score_tables(rules)
    out = np.zeros((N_DICE_SETS, rows), dtype=np.int64)
    for r in range(6):
        out[:, r] = 6 * r + COUNTS[:, r]
    k = 36
    for r in range(6, rows):
        if rules.rules == "classic" and rules.rows[r] == "yahtzee":
            out[:, r] = k + (tab.later[:, r] == 50)
            k += 2
        else:
            out[:, r] = k
            k += 1
    return out


def stop_values(
    rules: ScorecardRules, value, cards: CardStates, first_roll: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``(stop (252, n), row (252, n))``: the best of filling each legal row with each roll
    (its points plus ``value`` of the card it leaves) and the row that attains it (lowest
    row on ties). ``value(CardStates) -> (m,)`` points still to come."""
    n, rows = len(cards), len(rules.rows)
    succ, k = _successors(rules, cards)
    v = value(succ).reshape(n, k).astype(np.float32)
    every = np.arange(N_DICE_SETS)
    open_ = np.broadcast_to(cards.open_[:, None, :], (n, N_DICE_SETS, rows))
    legal = legal_row_mask(rules, open_, every[None, :])
    upper = cards.upper.astype(np.int16)[:, None]
    score, bonus, ybonus = fill_gains(
        rules, open_, upper, cards.y50[:, None], every[None, :], first_roll
    )
    q = (score + bonus + ybonus).astype(np.float32)
    q += v[:, _leaf_index(rules)]  # (n, 252, rows)
    q[~legal] = -np.inf
    best = q.argmax(axis=2)
    return np.take_along_axis(q, best[..., None], axis=2)[..., 0].T.astype(np.float64), best.T


def turn_plan(rules: ScorecardRules, value, cards: CardStates) -> tuple[TurnPlan, np.ndarray]:
    """The expectimax plan of one turn for every card, and each card's start-of-turn value
    (the expected points of the turn plus ``value`` of where it leads)."""
    stop, rows = stop_values(rules, value, cards, first_roll=False)
    if rules.rules == "russian":  # the first roll doubles stage-2 rows
        stop_first, rows_first = stop_values(rules, value, cards, first_roll=True)
    else:
        stop_first, rows_first = stop, rows
    pad = np.full((1, stop.shape[1]), -np.inf)
    plan = TurnPlan(
        stop,
        rows,
        stop_first,
        rows_first,
        np.vstack([keep_values(stop, 1), pad]),
        np.vstack([keep_values(stop, 2), pad]),
    )
    return plan, turn_values(stop, None if stop_first is stop else stop_first)


# -- the agent ----------------------------------------------------------------------------


def save_value(net: ValueNet, path: str | Path, meta: dict | None = None) -> None:
    """The network and its rules in one torch file, written atomically."""
    with atomic_write(path) as f:
        torch.save(
            {
                "format": FORMAT,
                "rules": {"rules": net.rules.rules, **net.rules.options},
                "hidden": list(net.hidden),
                "features": FEATURES_VERSION,
                "state_dict": net.state_dict(),
                "meta": meta or {},
            },
            f,
        )


def load_value(path: str | Path) -> ValueNet:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no value network file at {str(path)!r}")
    try:
        check_zip(path)  # torch.load does not check the CRCs: a damaged block loads silently
        data = torch.load(path, map_location="cpu", weights_only=False)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a file saved by train/afterstate.py")
        if data.get("features", 1) != FEATURES_VERSION:
            raise ValueError(
                f"it was trained on features version {data.get('features', 1)}, this code "
                f"computes version {FEATURES_VERSION}: retrain it with train/afterstate.py"
            )
        net = ValueNet(make_rules(**data["rules"]), tuple(data["hidden"]))
        net.load_state_dict(data["state_dict"])
        check_finite(net.state_dict().items())
    except Exception as err:
        raise ValueError(
            f"cannot load an afterstate value network from {str(path)!r}: {err}"
        ) from None
    net.eval()
    return net


class AfterstateAgent(Agent):
    """Plays a learned :class:`ValueNet` by exact turn search (module docstring)."""

    name = "afterstate"

    def __init__(self, path: str | Path | ValueNet, game: str = "yahtzee_classic", **rules):
        super().__init__()
        net = path if isinstance(path, ValueNet) else load_value(path)
        record = games.get(game)
        expected = record.make_rules(**rules)
        if net.rules != expected:
            where = "" if isinstance(path, ValueNet) else f" {str(path)!r}"
            raise ValueError(
                f"the value network{where} was trained for {net.rules}, not for {game} with "
                f"{expected}"
            )
        self.net, self.rules = net, net.rules
        if not isinstance(path, ValueNet):
            self.name = f"afterstate:{path}"
        self._plans: dict[tuple, tuple[TurnPlan, int]] = {}

    def _cards(self, fields: dict) -> CardStates:
        return CardStates(
            np.atleast_2d(np.asarray(fields["open_rows"], dtype=bool)),
            np.atleast_1d(np.asarray(fields["upper_sum"]).astype(np.int64)),
            np.atleast_1d(np.asarray(fields["yahtzee_scored"]).astype(bool)),
        )

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError("an action mask allows no action (is a game over?)")
        f = decode_observation(np.asarray(observations, dtype=np.float32), self.rules)
        cards = self._cards(f)
        keys, first, column = np.unique(cards.key(), axis=0, return_index=True, return_inverse=True)
        distinct = CardStates(cards.open_[first], cards.upper[first], cards.y50[first])
        plan, _ = turn_plan(self.rules, self.net.values, distinct)
        d = dice_index(np.asarray(f["dice"], dtype=np.int64))
        rolls = np.asarray(f["rolls_used"]).astype(np.int64)
        out = np.zeros(len(d), dtype=np.int64)
        for r in (1, 2, 3):
            at = rolls == r
            if at.any():
                out[at] = plan.actions(d[at], r, column.ravel()[at])
        if not masks[np.arange(len(out)), out].all():
            raise RuntimeError("the afterstate player chose an illegal action; rules disagree")
        return out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def __repr__(self) -> str:
        return f"AfterstateAgent({self.rules.rules}, {self.net.hidden})"


def exact_values(solution, cards: CardStates) -> np.ndarray:
    """The solver's optimal points still to come from each card (0 for a full card): the
    assisted track's teacher, and a yardstick for a learned ``V``."""
    model = solution.model
    live = cards.open_.any(axis=1)
    out = np.zeros(len(cards))
    if live.any():
        state = model.states(cards.open_[live], cards.upper[live], cards.y50[live])
        out[live] = model.value(state)
    return out


def card_states(engine) -> CardStates:
    """The cards of a batched scorecard engine (``envs.batched.scorecard``)."""
    return CardStates(
        engine.open_.copy(), engine.upper_sum.astype(np.int64), engine.yahtzee_scored.copy()
    )


__all__ = [
    "AfterstateAgent",
    "CardStates",
    "ValueNet",
    "card_states",
    "exact_values",
    "features",
    "load_value",
    "save_value",
    "turn_plan",
]
