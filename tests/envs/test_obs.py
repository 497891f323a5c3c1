"""The observation layer: every layout round-trips reachable states, holds its bounds,
and encodes a batch the same as one vector at a time."""

from __future__ import annotations

import numpy as np
import pytest

from envs.obs import Field, Layout
from envs.obs import card_poker as card_obs
from envs.obs import dice_poker as dice_obs
from envs.obs import yahtzee as yahtzee_obs
from envs.rules.card_poker import CardPokerGame, CardPokerRules
from envs.rules.dice_poker import DicePokerGame, DicePokerRules
from envs.rules.scorecard import ScorecardGame


def _dice_states(n_dice: int, n_players: int, seed: int):
    rng = np.random.default_rng(seed)
    rules = DicePokerRules(n_dice=n_dice)
    for _ in range(20):
        game = DicePokerGame(range(n_players), rng, rules)
        while not game.done:
            for seat in range(n_players):
                yield dice_obs.layout(n_dice), dice_obs.observe(game, seat, 1, -3)
            game.step(int(rng.choice(game.legal_actions())))
        yield dice_obs.layout(n_dice), dice_obs.observe(game, 0)


def _card_states(deck: int, n_players: int, seed: int):
    rng = np.random.default_rng(seed)
    rules = CardPokerRules(deck=deck, joker_card="6S" if deck == 36 else None)
    for _ in range(20):
        game = CardPokerGame(n_players, rng, rules)
        size = game.deck.size
        while not game.done:
            for seat in range(n_players):
                yield card_obs.layout(size, n_players), card_obs.observe(game, seat, 2, 5)
            game.step(int(rng.choice(game.legal_actions())))
        yield card_obs.layout(size, n_players), card_obs.observe(game, 0)


def _scorecard_states(rules: str, n_players: int, seed: int):
    rng = np.random.default_rng(seed)
    games = [ScorecardGame(rng, rules) for _ in range(n_players)]
    layout = yahtzee_obs.layout(rules, n_players)
    turn = 0
    while not all(g.done for g in games):
        for seat in range(n_players):
            others = [games[(seat + k) % n_players] for k in range(1, n_players)]
            obs = yahtzee_obs.observe(games[seat], others or None, seat == turn)
            yield layout, obs
        legal = np.flatnonzero(games[turn].action_mask())
        action = int(rng.choice(legal))
        games[turn].step(action)
        if action >= 32:
            turn = (turn + 1) % n_players


CASES = {
    "dice5x3": lambda: _dice_states(5, 3, 0),
    "dice6x4": lambda: _dice_states(6, 4, 1),
    "card36x3": lambda: _card_states(36, 3, 2),
    "card54x6": lambda: _card_states(54, 6, 3),
    "card52x2": lambda: _card_states(54, 2, 4),
    "russian": lambda: _scorecard_states("russian", 1, 5),
    "classic": lambda: _scorecard_states("classic", 1, 6),
    "classic3": lambda: _scorecard_states("classic", 3, 7),
}


@pytest.mark.parametrize("case", CASES)
def test_reachable_states_round_trip_and_hold_their_bounds(case):
    seen = []
    for layout, obs in CASES[case]():
        assert obs.dtype == np.float32 and obs.shape == (layout.size,)
        assert (obs >= layout.low).all() and (obs <= layout.high).all(), layout.decode(obs)
        assert layout.box().contains(obs)
        again = layout.encode(**layout.decode(obs))
        np.testing.assert_array_equal(again, obs)
        seen.append(obs)
    # the same layout object encodes the whole batch at once, bit for bit
    batch = np.stack(seen)
    fields = layout.decode(batch)
    assert all(np.shape(v)[0] == len(seen) for v in fields.values())
    np.testing.assert_array_equal(layout.encode(**fields), batch)


def test_batch_fields_broadcast_with_plain_ones():
    layout = Layout([Field("a", None, 0, 9), Field("v", 2, 0, 9)], "toy")
    out = layout.encode(a=np.array([1, 2, 3]), v=[7, 8])
    assert out.shape == (3, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 7, 8], [2, 7, 8], [3, 7, 8]])
    out = layout.encode(a=4, v=np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(out, [[4, 1, 2], [4, 3, 4]])


def test_encode_names_missing_and_unknown_fields():
    layout = Layout([Field("a", None, 0, 9), Field("v", 2, 0, 9)], "toy")
    with pytest.raises(ValueError, match=r"missing fields \['v'\], unknown fields \['w'\]"):
        layout.encode(a=1, w=2)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        layout.decode(np.zeros(4))


def test_layouts_match_the_documented_sizes():
    assert dice_obs.layout(5).size == 34 and dice_obs.layout(6).size == 36
    assert card_obs.layout(36, 3).size == 64
    assert yahtzee_obs.layout("russian").size == 52 and yahtzee_obs.layout("classic").size == 44
    assert yahtzee_obs.layout("classic", 3).size == 46
    table = dice_obs.layout(5).index_table()
    assert "| 28 | pot | chips in the pot |" in table


def test_old_import_paths_still_decode():
    from envs.card_poker import decode_observation as card_decode
    from envs.dice_poker import decode_observation as dice_decode
    from envs.scorecard import decode_observation as yahtzee_decode

    assert dice_decode is dice_obs.decode_observation
    assert card_decode is card_obs.decode_observation
    assert yahtzee_decode is yahtzee_obs.decode_observation


def test_the_old_env_module_name_is_the_scorecard_module():
    import gymnasium as gym

    from envs import scorecard, yahtzee

    assert yahtzee is scorecard and yahtzee.YahtzeeEnv is scorecard.YahtzeeEnv
    assert type(gym.make("Yahtzee-v0").unwrapped) is scorecard.YahtzeeEnv


def test_docstring_tables_are_the_layouts():
    """The index tables of the env and observation docstrings are generated from the
    layouts' fields (one place): each shows its layout's table and no marker is left."""
    import envs.card_poker
    import envs.dice_poker
    import envs.scorecard

    for doc, table in [
        (envs.dice_poker.DicePokerEnv.__doc__, dice_obs.layout(5).index_table()),
        (dice_obs.__doc__, dice_obs.layout(5).index_table()),
        (envs.card_poker.CardPokerEnv.__doc__, card_obs.layout(36, 3).index_table()),
        (card_obs.__doc__, card_obs.layout(36, 3).index_table()),
        (envs.scorecard.YahtzeeEnv.__doc__, yahtzee_obs.layout("russian").index_table()),
        (yahtzee_obs.__doc__, yahtzee_obs.layout("russian", 2).index_table()),
    ]:
        assert table in doc and "{index_table}" not in doc


def _scorecard_fields(game: ScorecardGame, others: list[ScorecardGame]) -> dict:
    """The observation's fields read from the game's public state, as the layout names them."""
    card, dice = game.card, game.dice
    values = {
        "face_counts": [dice.count(f) for f in range(1, 7)],
        "dice": list(dice),
        "rolls_used": game.rolls_used,
        "open_rows": [s is None for s in card.scores],
        "stage": card.stage,
        "upper_sum": card.upper_sum,
        "bonus": card.bonus,
        "yahtzee_scored": card.yahtzee_scored,
        "joker": card.rules.rules == "classic"
        and len(set(dice)) == 1
        and card.score_of("yahtzee") is not None,
        "total": card.total,
        "fill_points": game.fill_points(),
    }
    if others:
        values["others_total"] = [g.card.total for g in others]
    return values


@pytest.mark.parametrize(
    ("rules", "options", "n_players"),
    [
        ("russian", {}, 1),
        ("russian", {"scratch": "any"}, 2),
        ("classic", {}, 1),
        ("classic", {"joker": "free", "yahtzee_bonus": False}, 1),
        ("classic", {"joker": "none"}, 3),
    ],
)
def test_the_fast_own_view_is_the_layouts_encoding(rules, options, n_players):
    # OwnView writes bytes by tables (and the legal rows as a bit set); Layout.encode of the
    # fields read from the game's state is the reference, on every state of 40 games
    from envs.obs.scorecard import own_view
    from envs.rules.scorecard import make_rules

    r = make_rules(rules, **options)
    view, layout = own_view(r), yahtzee_obs.layout(r, n_players)
    rng = np.random.default_rng(8)
    plain = {True: 0, False: 0}
    for _ in range(40):
        games = [ScorecardGame(rng, r) for _ in range(n_players)]
        others = games[1:]
        game = games[0]
        while True:
            obs, legal = view(game, others or None)
            want = layout.encode(**_scorecard_fields(game, others))
            np.testing.assert_array_equal(obs, want)
            assert obs.dtype == np.float32 and obs.flags.writeable
            assert legal == game.bits_view()[1]
            plain[game.bits_view()[2]] += 1
            if game.done:
                break
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])
            for g in others:  # the others' totals move too
                if not g.done:
                    g.step(g.legal_row_actions()[0])
    assert plain[True] and plain[False]
