"""The scorecard env's per-step outputs (envs.obs.scorecard.StepView and the info's per-card
part) against the reference forms: OwnView's observation, the game's action mask, the card;
and a fill's new card (``Scorecard._filled``, derived from the old card by one row) and its
info part (``envs.scorecard._card_info``, by one insertion) against the card built from its
scores."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from envs.obs.scorecard import StepView, own_view
from envs.rules.scorecard import Scorecard, ScorecardGame, make_rules
from envs.scorecard import _card_info

RULES = [
    ("russian", {}),
    ("russian", {"scratch": "any"}),
    ("classic", {}),
    ("classic", {"joker": "free", "yahtzee_bonus": False}),
    ("classic", {"joker": "none"}),
]


def _states(r, n_games: int, seed: int):
    """Every state of ``n_games`` random games (the game object, stepped in place)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_games):
        game = ScorecardGame(rng, r)
        while True:
            yield game
            if game.done:
                break
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])


@pytest.mark.parametrize(("rules", "options"), RULES)
def test_the_step_view_is_the_own_view_and_the_games_mask(rules, options):
    r = make_rules(rules, **options)
    view, own = StepView(r), own_view(r)
    handed_out = []
    for game in _states(r, 30, 3):
        obs, mask, legal = view(game)
        want_obs, want_legal = own(game)
        np.testing.assert_array_equal(obs, want_obs)
        np.testing.assert_array_equal(mask, game.action_mask())
        assert legal == want_legal == game.bits_view()[1]
        assert obs.dtype == np.float32 and mask.dtype == bool
        assert obs.flags.writeable and mask.flags.writeable
        handed_out.append((obs, obs.copy(), mask, mask.copy()))
    # the view writes its buffers again every call: what it handed out never moves
    for obs, obs_then, mask, mask_then in handed_out:
        np.testing.assert_array_equal(obs, obs_then)
        np.testing.assert_array_equal(mask, mask_then)


def test_writing_a_returned_array_changes_nothing_the_env_holds():
    env = gym.make("PokerNaKostyah-v0")
    obs, info = env.reset(seed=5)
    before = env.unwrapped._view(env.unwrapped.game)
    obs[:] = -7.0
    info["action_mask"][:] = False
    after = env.unwrapped._view(env.unwrapped.game)
    for a, b in zip(before, after[:2], strict=False):
        np.testing.assert_array_equal(a, b)
    assert info["action_mask"].sum() == 0 and env.unwrapped.action_masks().sum() > 0


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_step_view_has_buffers_of_its_own(how):
    r = make_rules("classic")
    view = StepView(r)
    twin = copy.deepcopy(view) if how == "deepcopy" else pickle.loads(pickle.dumps(view))
    assert twin._obs_buf is not view._obs_buf and twin._mask_buf is not view._mask_buf
    game = ScorecardGame(np.random.default_rng(1), r)
    for a, b in zip(view(game), twin(game), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("env_id", ["PokerNaKostyah-v0", "YahtzeeClassic-v0"])
def test_the_info_card_is_the_filled_rows_in_card_order(env_id):
    # the info's per-card part is built once per card: hold it to the card itself
    env = gym.make(env_id)
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(400):
        game = env.unwrapped.game
        card = game.card
        want = {r: s for r, s in zip(card.rows, card.scores, strict=True) if s is not None}
        assert info["card"] == want and list(info["card"]) == list(want)
        assert info["total"] == card.total and info["bonus"] == card.bonus
        assert info["yahtzee_bonus"] == card.yahtzee_bonus
        assert info["rolls_used"] == game.rolls_used
        np.testing.assert_array_equal(info["action_mask"], env.unwrapped.action_masks())
        info["card"]["edited"] = -1  # a user's edit of one info reaches no later info
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, _, info = env.step(int(legal[rng.integers(len(legal))]))
        if terminated:
            _, info = env.reset()


DERIVED = ("_stage", "_upper_sum", "_total", "_yahtzee_scored", "_open_bits")


@pytest.mark.parametrize(("rules", "options"), RULES)
def test_a_filled_card_is_the_card_its_scores_make(rules, options):
    r = make_rules(rules, **options)
    rng = np.random.default_rng(11)
    fills = 0
    for _ in range(60):
        game = ScorecardGame(rng, r)
        _card_info(game.card)
        while not game.done:
            before = game.card
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])
            card = game.card
            if card is before:
                continue
            fills += 1
            want = Scorecard(r, card.scores, card.bonus, card.yahtzee_bonus)
            assert card == want
            for name in DERIVED:
                assert card.__dict__[name] == want.__dict__[name], name
            # the info part by insertion into the previous card's is the one built anew
            head, filled, pairs = _card_info(card, before)
            fresh = _card_info(Scorecard(r, card.scores, card.bonus, card.yahtzee_bonus))
            assert list(filled.items()) == list(fresh[1].items()) == list(pairs)
            assert head == fresh[0]
            assert (head["total"], head["bonus"], head["yahtzee_bonus"]) == (
                card.total,
                card.bonus,
                card.yahtzee_bonus,
            )
    assert fills == 60 * len(r.rows)
