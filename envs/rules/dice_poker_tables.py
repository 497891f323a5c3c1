"""The turns of prison dice poker as compiled tables: every state of the dice of the player
to act as one id, and the moves between them as lookups (:class:`TurnStates`).

Compiled once per number of dice and lock rule from :func:`envs.rules.dice.multisets`; the
scalar game (:class:`envs.rules.dice_poker.DicePokerGame`, through
:func:`scalar_turns`) and the batched engine (``envs.batched.dice_poker``) both step by
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace

import numpy as np

from envs.rules.dice import multisets


@dataclass(frozen=True)
class TurnStates:
    """Every state of a turn as one id, and the moves between them as table lookups.

    A turn state is what the dice of the player to act are: the sorted multiset of the
    first roll (or of any roll without the lock rule), ids ``0 .. n_hands - 1`` in
    ``multisets(n_dice)`` order (so a state id below ``n_finals`` is the multiset id), and
    under the lock rule after the second roll the (frozen K, free O) pair, ids from
    ``n_finals`` on. Per state id: ``dice`` (the dice as the scalar game sorts them:
    ascending, unfrozen before frozen on equal faces), ``frozen``, ``mid`` (the multiset id
    of the dice) and ``fbits`` (the frozen bit set). ``kept[s, a]``: the sub-multiset id
    (``subs``: every multiset of 0..n_dice dice) of the dice re-roll bit set ``a`` keeps.
    ``radix[f]``: the count code of one die of face f (``sum radix[d]`` over a handful of
    dice is unique per multiset; ``sub_of_code`` maps it to the sub id). ``after[k, K, O]``:
    the state after the roll that made ``rolls_used`` ``k + 2``, keeping sub ``K`` and rolling
    sub ``O`` (-1 where the sizes do not add up to n_dice). After the third roll only the
    hand matters (the turn ends), so that roll leads to the multiset's plain state.

    Rolls as numbers: a roll of ``k`` dice is ``u < 6**k``, its ``j``-th die showing
    ``1 + (u // 6**j) % 6`` (``u`` uniform on ``0 .. 6**k - 1`` is ``k`` fair dice).
    Per re-roll bit set ``a`` rolling ``k`` dice: ``roll_size[a] = 6**k`` and
    ``sub_of_roll[roll_start[a] + u]`` the sub id of roll ``u``; ``final_of_roll[u]``: the
    multiset id of a roll of all ``n_dice``. ``place[a, i]``: ``6**j`` when die ``i`` is the
    ``j``-th die ``a`` rolls, 0 when ``a`` keeps it (the roll number of given faces is
    ``sum((faces - 1) * place[a])``).
    """

    n_dice: int
    n_finals: int
    dice: np.ndarray
    frozen: np.ndarray
    mid: np.ndarray
    fbits: np.ndarray
    kept: np.ndarray
    radix: np.ndarray
    sub_of_code: np.ndarray
    final_of_code: np.ndarray
    action_bits: np.ndarray
    after: np.ndarray
    sub_of_roll: np.ndarray
    roll_start: np.ndarray
    roll_size: np.ndarray
    final_of_roll: np.ndarray
    place: np.ndarray


@cache
def turn_states(n_dice: int, lock: bool) -> TurnStates:
    """The (cached) :class:`TurnStates` of ``n_dice`` dice with or without the lock rule."""
    nd = n_dice
    radix = np.zeros(7, dtype=np.int32)
    radix[1:] = (nd + 1) ** np.arange(6)
    subs = [m for k in range(nd + 1) for m in multisets(k)]
    sub_code = np.array([radix[list(m)].sum() for m in subs], dtype=np.int64)
    sub_size = np.array([len(m) for m in subs])
    sub_of_code = np.full((nd + 1) ** 6, -1, dtype=np.int16)
    sub_of_code[sub_code] = np.arange(len(subs))
    finals = multisets(nd)
    final_of_code = np.full((nd + 1) ** 6, -1, dtype=np.int16)
    final_of_code[sub_code[sub_size == nd]] = np.arange(len(finals))
    sub_id = {m: i for i, m in enumerate(subs)}
    dice = [list(f) for f in finals]
    frozen = [[False] * nd for _ in finals]
    n_subs = len(subs)
    merge = np.full((n_subs, n_subs), -1, dtype=np.int16)
    fits = sub_size[:, None] + sub_size[None, :] == nd
    both = (sub_code[:, None] + sub_code[None, :])[fits]
    merge[fits] = final_of_code[both]
    second = merge.copy()
    if lock:
        for k in range(1, nd):
            for held in multisets(k):
                for free in multisets(nd - k):
                    key = sorted([2 * d + 1 for d in held] + [2 * d for d in free])
                    second[sub_id[held], sub_id[free]] = len(dice)
                    dice.append([x >> 1 for x in key])
                    frozen.append([bool(x & 1) for x in key])
    dice_a = np.array(dice, dtype=np.int8)
    frozen_a = np.array(frozen, dtype=bool)
    mid = final_of_code[radix[dice_a].sum(axis=1)]
    fbits = (frozen_a * (1 << np.arange(nd))).sum(axis=1).astype(np.int64)
    action_bits = ((np.arange(2**nd)[:, None] >> np.arange(nd)) & 1).astype(np.int32)
    kept_code = (radix[dice_a][:, None, :] * (1 - action_bits)[None]).sum(axis=2)
    kept = sub_of_code[kept_code]
    after = np.stack([second, merge])
    sizes = 6 ** np.arange(nd + 1, dtype=np.int32)
    rolled = action_bits.sum(axis=1)
    roll_size = sizes[rolled]
    roll_start = np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.int32)[rolled]
    roll_code = [
        radix[1 + (np.arange(6**k)[:, None] // sizes[None, :k]) % 6].sum(axis=1)
        for k in range(nd + 1)
    ]
    sub_of_roll = np.concatenate([sub_of_code[c] for c in roll_code])
    final_of_roll = final_of_code[roll_code[nd]]
    place = np.where(action_bits, sizes[np.cumsum(action_bits, axis=1) - 1], 0).astype(np.int32)
    arrays = (dice_a, frozen_a, mid, fbits, kept, radix, sub_of_code, final_of_code)
    rolls = (sub_of_roll, roll_start, roll_size, final_of_roll, place)
    for a in (*arrays, action_bits, after, *rolls):
        a.flags.writeable = False
    return TurnStates(nd, len(finals), *arrays, action_bits, after, *rolls)


@cache
def scalar_turns(n_dice: int, lock: bool) -> SimpleNamespace:
    """:func:`turn_states` as Python sequences, for one game stepped at a time: per state
    id ``dice`` and ``frozen`` (tuples, as ``DicePokerGame`` holds them), ``fbits`` and
    ``frozen_sub`` (the sub id of its frozen dice); ``n_states``; ``kept[state][action]``;
    ``second[K][O]`` (``after[0]``: the state after the second roll) and ``merge[K][O]``
    (``after[1]``: the multiset after the third); per action ``roll_size`` and
    ``roll_start`` and ``sub_of_roll``; ``final_of_roll`` and ``first_size`` (``6**n_dice``,
    a first roll's bound); ``state_of[dice, frozen]``, the id of a state; ``third``, a cache
    the game fills (``DicePokerGame``: the frozen flags after a third roll)."""
    t = turn_states(n_dice, lock)
    dice = [tuple(d) for d in t.dice.tolist()]
    frozen = [tuple(f) for f in t.frozen.tolist()]
    frozen_code = (t.radix[t.dice.astype(np.int64)] * t.frozen).sum(axis=1)
    return SimpleNamespace(
        dice=dice,
        frozen=frozen,
        fbits=t.fbits.tolist(),
        frozen_sub=t.sub_of_code[frozen_code].tolist(),
        n_states=len(dice),
        kept=t.kept.tolist(),
        second=t.after[0].tolist(),
        merge=t.after[1].tolist(),
        first_size=6**n_dice,
        third={},
        roll_size=t.roll_size.tolist(),
        roll_start=t.roll_start.tolist(),
        sub_of_roll=t.sub_of_roll.tolist(),
        final_of_roll=t.final_of_roll.tolist(),
        state_of={s: i for i, s in enumerate(zip(dice, frozen, strict=True))},
    )


__all__ = ["TurnStates", "scalar_turns", "turn_states"]
