"""The batched dice poker engine equals the scalar rules, step by step, on the same dice.

Multi-seat: both engines get the same chance (``DicePokerMatch(chance=, seating=)``,
``step(action, chance)`` and ``BatchedDicePoker.reset(which, chance, seating)``,
``step(actions, chance)``) and the same actions; the player to act, its observation (the
env's encoding), its mask, every seat's payoff and chips and the end of the episode must
agree bit for bit at every step, and the last mover's terminal observation too. A finished
slot starts a new episode in both. Actions stand 40% of the time, else a uniformly random
legal re-roll, so that ties (and play-offs) are common.

Single-agent: the batched table with heuristic and optimal opponents in batch is replayed
on the scalar match with the scalar agents, on the dice the batched engine drew.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from envs.batched.dice_poker import BatchedDicePokerSingle
from envs.batched.differential import DICE_FIVE, DICE_SIX, run_dice_poker
from envs.obs.dice_poker import observe
from envs.rules.dice_poker import DicePokerMatch, DicePokerRules


@pytest.mark.heavy
@pytest.mark.parametrize(("n_dice", "group"), [(5, DICE_FIVE), (6, DICE_SIX)], ids=["five", "six"])
def test_batched_equals_scalar(n_dice, group):
    total = 0
    for i, (options, n_players, episode, first_player, n_games) in enumerate(group):
        games, playoffs = run_dice_poker(
            n_dice, options, n_players, episode, first_player, n_games, i
        )
        assert games >= n_games and playoffs > 0
        total += games
    assert total >= 10_000


@pytest.mark.parametrize(
    ("game", "options", "n_players", "episode"),
    [
        ("dice_poker", {}, 3, "game"),
        ("dice_poker", {"lock_kept_dice": False, "two_pairs_tiebreak": "high_pair"}, 4, "circle"),
        ("dice_poker6", {"pyramid": "any"}, 3, "circle"),
    ],
)
def test_single_agent_table_replays_on_the_scalar_match(game, options, n_players, episode):
    """Learner moves at random; heuristic and optimal opponents move in batch. Every move the
    batched table made is replayed on the scalar match on the same dice: the opponents'
    moves are the scalar agents' and the learner sees what the scalar env would show."""
    n_dice = 5 if game == "dice_poker" else 6
    rules = DicePokerRules(n_dice=n_dice, **options)
    scalar = {"heuristic": make_agent("heuristic", game, **options)}
    scalar["optimal"] = make_agent("optimal", game, **options)
    names = ["heuristic", "optimal", "heuristic", "optimal", "heuristic"][: n_players - 1]
    batched = {k: make_agent(k, game, **options) for k in scalar}
    slots = 150
    table = BatchedDicePokerSingle(
        slots,
        rules,
        seed=7,
        n_players=n_players,
        opponents=[batched[k] for k in names],
        episode=episode,
    )
    core = table.core
    log = []
    step_rows = core._step_rows

    def recorded(rows, actions, numbers):
        log.append((rows.copy(), actions.copy(), core.faces_of_rolls(numbers, actions)))
        return step_rows(rows, actions, numbers)

    core._step_rows = recorded
    started = {}  # table -> (first player, first roll) as the core's reset left them
    core_reset = core.reset

    def recorded_reset(which=None, chance=None, seating=None):
        core_reset(which, chance, seating)
        for g in range(slots) if which is None else np.flatnonzero(which):
            started[g] = int(core.first[g]), core.dice[g].copy()

    core.reset = recorded_reset
    n_games_each = n_players if episode == "circle" else 1

    def new_match(g):
        first, dice = started[g]
        m = DicePokerMatch(n_players, None, rules, n_games_each, first, chance=dice)
        seats = [s for s in range(n_players) if s != table.agent_seat[g]]
        return m, dict(zip(seats, [scalar[k] for k in names], strict=True))

    def replay(matches, gained):
        for rows, actions, faces in log:
            for g, a, f in zip(rows, actions, faces, strict=True):
                m, seated = matches[g]
                seat = m.current_player
                if seat != table.agent_seat[g]:
                    o = observe(m.game, seat, m.games_left, m.chips[seat])
                    assert seated[seat].act(o, m.game.action_mask()) == a, f"table {g}"
                gained[g] += m.step(int(a), f).get(int(table.agent_seat[g]), 0)
        log.clear()

    rng = np.random.default_rng(0)
    table.reset()
    matches = [new_match(g) for g in range(slots)]
    replay(matches, np.zeros(slots, dtype=np.int64))  # the opponents before the learner
    finished = 0
    while finished < (600 if episode == "game" else 200):
        masks = table.action_masks()
        obs = table.observe()
        for g in range(slots):
            m, _ = matches[g]
            s = int(table.agent_seat[g])
            assert m.current_player == s
            want = observe(m.game, s, m.games_left, m.chips[s])
            np.testing.assert_array_equal(obs[g], want, err_msg=f"table {g}")
            np.testing.assert_array_equal(masks[g], m.game.action_mask())
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        reward = table.step(actions)
        gained = np.zeros(slots, dtype=np.int64)
        replay(matches, gained)
        np.testing.assert_array_equal(reward, gained)
        table_done = table.done
        np.testing.assert_array_equal(table_done, [m.done for m, _ in matches])
        if table_done.any():
            finished += int(table_done.sum())
            table.reset(table_done)
            for g in np.flatnonzero(table_done):
                matches[g] = new_match(g)
            replay(matches, np.zeros(slots, dtype=np.int64))
