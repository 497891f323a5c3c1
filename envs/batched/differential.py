"""The scalar rules == the batched engines, step by step, on the same chance.

What the differential tests (``tests/batched/test_*_differential.py``) and
``benchmarks/differential.py`` (the same groups at a larger scale) both run: each runner
feeds a batched engine and the scalar games the same chance and the same actions and
compares every observation (the envs' encoding), mask, reward or payoff and end bit for
bit, raising ``AssertionError`` (naming the game or table) at the first difference.

- :func:`run_scorecard` over :data:`SCORECARD_VARIANTS` (``BatchedScorecard`` against
  ``ScorecardGame``): actions hunt for the most common face, so Yahtzees, jokers and
  Yahtzee bonuses occur often.
- :func:`run_dice_poker` over :data:`DICE_FIVE` and :data:`DICE_SIX`
  (``BatchedDicePoker`` against ``DicePokerMatch``): actions stand 40% of the time, so
  ties and play-offs are common.
- :func:`run_card_poker` over :data:`CARD_GROUPS` (``BatchedCardPoker`` against
  ``CardPokerMatch``): weighted actions make big exchanges (stocks run short and
  reshuffle), passes, reveals and bids common.

Each group lists the suite's sizes (at least 10,000 games or deals per game and group).
"""

from __future__ import annotations

import numpy as np

from envs.batched.card_poker import BatchedCardPoker
from envs.batched.dice_poker import BatchedDicePoker
from envs.batched.scorecard import BatchedScorecard
from envs.obs.card_poker import observe as card_observe
from envs.obs.dice_poker import observe as dice_observe
from envs.obs.scorecard import observe as scorecard_observe
from envs.rules.card_poker import (
    FIRST_BID,
    N_DISCARDS,
    PASS,
    REVEAL,
    CardPokerMatch,
    CardPokerRules,
)
from envs.rules.dice_poker import DicePokerMatch, DicePokerRules
from envs.rules.scorecard import ScorecardGame, make_rules

# -- the scorecard games ------------------------------------------------------------------------

# (rules, options, games): 10,000 games per rule set, spread over its variants
SCORECARD_VARIANTS = [
    ("russian", {}, 6_000),
    ("russian", {"scratch": "any"}, 4_000),
    ("classic", {}, 4_000),
    ("classic", {"joker": "free"}, 2_000),
    ("classic", {"joker": "none"}, 2_000),
    ("classic", {"yahtzee_bonus": False}, 2_000),
]


def hunting_actions(rng: np.random.Generator, dice: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per game: half the time re-roll the dice that are not the most common face (when
    allowed), else a uniformly random legal action."""
    n = len(mask)
    counts = (dice[:, :, None] == np.arange(1, 7)).sum(axis=1)
    face = counts.argmax(axis=1) + 1
    hunt = ((dice != face[:, None]) * (1 << np.arange(5))).sum(axis=1)
    can = mask[np.arange(n), hunt] & (hunt > 0)
    scores = rng.random(mask.shape) * mask
    random = scores.argmax(axis=1)
    return np.where(can & (rng.random(n) < 0.5), hunt, random)


def run_scorecard(rules: str, options: dict, n_games: int, seed: int, slots: int = 500) -> int:
    """Play ``n_games`` games in ``slots`` side by side (a finished slot starts a new game
    in both engines); returns the steps and the games compared."""
    r = make_rules(rules, **options)
    rng = np.random.default_rng(seed)
    batch = BatchedScorecard(slots, r)
    first = rng.integers(1, 7, size=(slots, 5))
    batch.reset(chance=first)
    games = [ScorecardGame(np.random.default_rng(0), r, chance=c) for c in first]
    started, finished, steps = slots, 0, 0
    while finished < n_games:
        mask = batch.action_masks()
        obs = batch.observe()
        for g, game in enumerate(games):
            np.testing.assert_array_equal(obs[g], scorecard_observe(game), err_msg=f"game {g}")
            np.testing.assert_array_equal(mask[g], game.action_mask(), err_msg=f"game {g}")
        actions = hunting_actions(rng, batch.dice, mask)
        chance = rng.integers(1, 7, size=(slots, 5))
        points = batch.step(actions, chance)
        for g, game in enumerate(games):
            assert game.step(int(actions[g]), chance=chance[g]) == points[g]
            assert game.done == batch.done[g]
            assert game.card.total == batch.total[g]
        steps += slots
        done = batch.done
        if done.any():
            finished += int(done.sum())
            fresh = rng.integers(1, 7, size=(slots, 5))
            batch.reset(done, fresh)
            for g in np.flatnonzero(done):
                games[g] = ScorecardGame(np.random.default_rng(0), r, chance=fresh[g])
            started += int(done.sum())
    return steps, finished


# -- prison dice poker, multi-seat ------------------------------------------------------------

# (rules options, n_players, episode, first_player, games): >= 10,000 games per group
DICE_FIVE = [
    ({}, 3, "game", "roll", 2_500),
    ({"lock_kept_dice": False, "full_house_tiebreak": "triple"}, 2, "circle", 1, 2_000),
    ({"two_pairs_tiebreak": "high_pair", "ante": 3}, 6, "game", "roll", 2_000),
    (
        {"full_house_tiebreak": "triple", "two_pairs_tiebreak": "high_pair"},
        4,
        "circle",
        "roll",
        2_000,
    ),
    ({"lock_kept_dice": False}, 5, "game", 0, 1_500),
]
DICE_SIX = [
    ({}, 3, "game", "roll", 3_000),
    ({"pyramid": "ascending", "six_dice_low_hands": False}, 2, "circle", "roll", 2_000),
    ({"pyramid": "any", "lock_kept_dice": False}, 6, "game", 2, 2_000),
    ({"six_dice_low_hands": False, "ante": 2}, 4, "circle", "roll", 1_500),
    ({"lock_kept_dice": False, "pyramid": "ascending"}, 5, "game", "roll", 1_500),
]


def _scalar_obs(matches) -> np.ndarray:
    return np.stack(
        [
            dice_observe(m.game, m.current_player, m.games_left, m.chips[m.current_player])
            for m in matches
        ]
    )


def run_dice_poker(n_dice, options, n_players, episode, first_player, n_games, seed, slots=400):
    """Play until ``n_games`` games have ended; returns (games, table-steps in a play-off)."""
    rules = DicePokerRules(n_dice=n_dice, **options)
    rng = np.random.default_rng(seed)
    batch = BatchedDicePoker(
        slots, rules, n_players=n_players, episode=episode, first_player=first_player
    )
    n_games_each = n_players if episode == "circle" else 1
    first = None if first_player == "roll" else first_player

    def start(which):
        chance = rng.integers(1, 7, size=(slots, n_dice))
        seating = rng.integers(1, 7, size=(slots, 40, n_players))
        batch.reset(which, chance, seating)
        return [
            DicePokerMatch(n_players, None, rules, n_games_each, first, chance[g], seating[g])
            for g in range(slots)
        ]

    matches = start(None)
    games = playoffs = 0
    while games < n_games:
        seats = np.array([m.current_player for m in matches])
        np.testing.assert_array_equal(batch.current_player, seats)
        obs, mask = batch.observe(), batch.action_masks()
        want = _scalar_obs(matches)
        if not np.array_equal(obs, want):
            g = int(np.flatnonzero((obs != want).any(axis=1))[0])
            np.testing.assert_array_equal(obs[g], want[g], err_msg=f"observation, table {g}")
        want = np.stack([m.game.action_mask() for m in matches])
        np.testing.assert_array_equal(mask, want)
        random = (rng.random(mask.shape) * mask).argmax(axis=1)
        actions = np.where(rng.random(slots) < 0.4, 0, random)
        chance = rng.integers(1, 7, size=(slots, 2 * n_dice))
        pay = batch.step(actions, chance)
        want = np.zeros_like(pay)
        for g, m in enumerate(matches):
            for seat, chips in m.step(int(actions[g]), chance[g]).items():
                want[g, seat] = chips
        np.testing.assert_array_equal(pay, want)
        playoffs += int((batch.playoff > 0).sum())
        games += int((pay != 0).any(axis=1).sum()) if rules.ante else 0
        np.testing.assert_array_equal(batch.chips, np.array([m.chips for m in matches]))
        done = batch.done
        np.testing.assert_array_equal(done, [m.done for m in matches])
        if done.any():
            last = batch.observe()[done]
            want = [
                dice_observe(m.game, int(s), m.games_left, m.chips[int(s)])
                for m, s in zip(
                    np.array(matches, dtype=object)[done], batch.last_player[done], strict=True
                )
            ]
            np.testing.assert_array_equal(last, np.stack(want))
            fresh = start(done)
            matches = [fresh[g] if done[g] else m for g, m in enumerate(matches)]
    return games, playoffs


# -- card poker ---------------------------------------------------------------------------------


class NoShuffle:
    """The scalar match must take every shuffle from chance."""

    def permutation(self, x):
        raise AssertionError("the scalar match shuffled by itself")


def weighted_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A random legal action per row: exchanges evenly, then passes and reveals often
    enough that deals end after a few bids."""
    w = np.ones(mask.shape[1])
    w[N_DISCARDS - 1] = 6.0  # exchange all five: stocks run short
    w[PASS], w[REVEAL] = 3.0, 3.0
    w[FIRST_BID:] = 0.8
    scores = np.where(mask, rng.random(mask.shape) ** (1 / w), -1.0)
    return scores.argmax(axis=1)


def run_card_poker(
    rules_kw: dict,
    n_players: int,
    episode: str,
    max_deals: int,
    n_deals: int,
    seed: int,
    tables: int = 400,
) -> int:
    """Play until ``n_deals`` deals are done at ``tables`` tables side by side (finished
    matches restart in both engines); returns the number of deals compared."""
    rules = CardPokerRules(**rules_kw)
    rng = np.random.default_rng(seed)
    batch = BatchedCardPoker(
        tables, rules, seed=0, n_players=n_players, episode=episode, max_deals=max_deals
    )
    d = batch.n_cards

    def decks():
        return np.argsort(rng.random((tables, d)), axis=1)

    def new_match(deck):
        return CardPokerMatch(n_players, NoShuffle(), rules, episode, max_deals, deck_order=deck)

    first = decks()
    batch.reset(chance=first)
    matches = [new_match(first[g]) for g in range(tables)]
    deals = 0
    while deals < n_deals:
        seat = batch.to_act
        obs, mask = batch.observe(), batch.action_masks()
        want_obs = np.stack(
            [
                card_observe(m.game, m.current_player, m.deals_left, m.net[m.current_player])
                for m in matches
            ]
        )
        want_mask = np.stack([m.game.action_mask() for m in matches])
        assert seat.tolist() == [m.current_player for m in matches]
        np.testing.assert_array_equal(obs.view(np.uint32), want_obs.view(np.uint32))
        np.testing.assert_array_equal(mask, want_mask)
        actions = weighted_actions(rng, mask)
        chance = decks()
        paid = batch.step(actions, chance)
        for g, m in enumerate(matches):
            got = m.step(int(actions[g]), chance=chance[g])
            want = [got.get(s, 0) for s in range(n_players)]
            assert paid[g].tolist() == want, f"table {g}"
            deals += bool(got)
        done = batch.done
        assert done.tolist() == [m.done for m in matches]
        if done.any():
            ended = np.flatnonzero(done)
            for g in ended:
                assert batch.net[g].tolist() == matches[g].net
                assert batch.stacks[g].tolist() == matches[g].stacks()
            for s in range(n_players):  # the last observation of every seat
                got = batch.observe(s, ended)
                want = np.stack(
                    [
                        card_observe(matches[g].game, s, matches[g].deals_left, matches[g].net[s])
                        for g in ended
                    ]
                )
                np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
            fresh = decks()
            batch.reset(done, fresh)
            for g in np.flatnonzero(done):
                matches[g] = new_match(fresh[g])
    return deals


# variant groups: (rules, players, episode, max_deals, deals); >= 10,000 deals per group
CARD_GROUPS = {
    "36 cards": [
        ({}, 2, "deal", 1, 2_000),
        ({}, 3, "deal", 1, 2_000),
        ({}, 4, "deal", 1, 2_000),
        ({}, 5, "deal", 1, 2_000),
        ({}, 6, "deal", 1, 2_000),
    ],
    "36-card options": [
        ({"joker_card": None, "draw_fee": 1, "stack": 4}, 6, "deal", 1, 2_500),
        ({"joker_card": "AH", "categories": "short", "ante": 2}, 3, "deal", 1, 2_500),
        ({"swap_four_and_straight_flush": True, "ace_low_straight": True}, 4, "deal", 1, 2_500),
        ({"min_bid": 2, "max_bid": 5, "max_bids": 3, "stack": 9}, 5, "deal", 1, 2_500),
    ],
    "54 cards": [
        ({"deck": 54}, 6, "deal", 1, 3_000),
        ({"deck": 54, "joker_card": None, "categories": "short"}, 4, "deal", 1, 2_500),
        ({"deck": 54, "ace_low_straight": True, "draw_fee": 2}, 3, "deal", 1, 2_500),
        ({"deck": 54, "swap_four_and_straight_flush": True, "max_bids": 0}, 2, "deal", 1, 2_000),
    ],
    "sessions": [
        ({"stack": 6}, 3, "session", 100, 3_000),
        ({"stack": 12, "draw_fee": 1}, 6, "session", 5, 2_500),
        ({"deck": 54, "stack": 5, "ante": 2}, 4, "session", 8, 2_500),
        ({"stack": 3, "min_bid": 2, "max_bid": 3}, 2, "session", 100, 2_000),
    ],
}


__all__ = [
    "CARD_GROUPS",
    "DICE_FIVE",
    "DICE_SIX",
    "SCORECARD_VARIANTS",
    "NoShuffle",
    "hunting_actions",
    "run_card_poker",
    "run_dice_poker",
    "run_scorecard",
    "weighted_actions",
]
