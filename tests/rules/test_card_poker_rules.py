"""One deal of card poker and sessions (docs/rules.md section 3)."""

import numpy as np
import pytest

from envs.rules.card_poker import (
    FIRST_BID,
    PASS,
    REVEAL,
    CardPokerGame,
    CardPokerMatch,
    CardPokerRules,
    Phase,
)
from envs.rules.cards import make_deck


def rigged(hands, stock="", n_players=None, first=0, stacks=None, **rules):
    """A deal with the given hands (in turn order from ``first``) and stock on top."""
    r = CardPokerRules(**rules)
    deck = r.deck_cards
    top = [deck.indices(h) for h in hands] + ([deck.indices(stock)] if stock else [])
    order = [c for part in top for c in part]
    order += [c for c in range(deck.size) if c not in order]
    n = n_players or len(hands)
    return CardPokerGame(n, np.random.default_rng(0), r, stacks, first, order)


def bid(game, amount):
    game.step(game.rules.bid_action(amount))


def draw_all(game, action=0):
    while game.phase == Phase.DRAW:
        game.step(action)


def snapshot(game):
    return (
        list(game.stacks),
        game.pot,
        list(game.hands),
        list(game.stock),
        game.phase,
        game.current_player,
        game.level,
        game.n_bids,
        list(game.in_play),
        list(game.drawn),
    )


# -- the deal --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_players", "deck", "ante", "stack"),
    [(2, 36, 1, 100), (3, 36, 1, 100), (6, 36, 5, 20), (6, 54, 2, 10), (4, 54, 0, 3)],
)
def test_antes_and_deal(n_players, deck, ante, stack):
    g = CardPokerGame(
        n_players, np.random.default_rng(1), CardPokerRules(deck=deck, ante=ante, stack=stack)
    )
    assert g.pot == n_players * ante
    assert g.stacks == [stack - ante] * n_players
    cards = [c for h in g.hands for c in h]
    assert len(cards) == len(set(cards)) == 5 * n_players
    assert all(list(h) == sorted(h) for h in g.hands)
    assert len(g.stock) == g.deck.size - 5 * n_players
    assert g.phase == Phase.DRAW and g.current_player == 0


def test_who_cannot_pay_the_ante_cannot_be_dealt_in():
    with pytest.raises(ValueError, match="cannot pay the ante"):
        CardPokerGame(3, np.random.default_rng(0), CardPokerRules(ante=2), stacks=[5, 1, 5])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stack": -1}, "stack"),
        ({"ante": 1.5}, "ante"),
        ({"draw_fee": -1}, "draw_fee"),
        ({"min_bid": 0}, "min_bid"),
        ({"min_bid": 5, "max_bid": 4}, "max_bid"),
        ({"max_bids": -1}, "max_bids"),
        ({"deck": 52}, "deck"),
        ({"categories": "tiny"}, "categories"),
    ],
)
def test_bad_rules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CardPokerRules(**kwargs)


@pytest.mark.parametrize("n_players", [1, 7, "3"])
def test_player_count(n_players):
    with pytest.raises(ValueError, match="2-6 players"):
        CardPokerGame(n_players, np.random.default_rng(0))


# -- the draw --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "kept", "new"),
    [
        (0b00000, "AS KS QS JS 9H", ""),
        (0b00001, "KS QS JS AS", "7D"),  # bit 0 = lowest card by deck index (9H)
        (0b10001, "KS QS JS", "7D 8D"),
        (0b11111, "", "7D 8D 9D TD JD"),
    ],
)
def test_draw_exchanges_the_chosen_cards(action, kept, new):
    g = rigged(["AS KS QS JS 9H", "7C 7H 8C 8H TC"], stock="7D 8D 9D TD JD", draw_fee=2)
    g.step(action)
    deck = g.deck
    expected = sorted(deck.indices(kept + " " + new)) if kept or new else []
    assert list(g.hands[0]) == expected
    k = action.bit_count()
    assert g.drawn[0] == k and g.drawn[1] == -1
    assert g.stacks[0] == 99 - 2 * k and g.pot == 2 + 2 * k
    assert g.current_player == 1


def test_draw_fee_is_masked_by_the_stack():
    g = rigged(["AS KS QS JS 9H", "7C 7H 8C 8H TC"], stacks=[4, 100], draw_fee=1)
    # 3 chips after the ante: at most three cards
    assert g.legal_actions() == [a for a in range(32) if a.bit_count() <= 3]


def test_draw_order_and_then_betting_from_first():
    g = CardPokerGame(4, np.random.default_rng(3), first=2)
    seen = []
    while g.phase == Phase.DRAW:
        seen.append(g.current_player)
        g.step(0)
    assert seen == [2, 3, 0, 1]
    assert g.phase == Phase.BET and g.current_player == 2


def test_stock_running_out_reuses_earlier_discards():
    # 6 players x 5 cards leaves 6 cards of 36; everyone exchanges all five
    for seed in range(30):
        g = CardPokerGame(6, np.random.default_rng(seed))
        draw_all(g, 0b11111)
        cards = [c for h in g.hands for c in h]
        assert len(set(cards)) == 30, "no card is in two hands"
        assert g.drawn == [5] * 6


# -- betting ---------------------------------------------------------------------------


def bids(lo, hi, min_bid=1):
    return [FIRST_BID + b - min_bid for b in range(lo, hi + 1)]


@pytest.mark.parametrize(
    ("rules", "stacks", "moves", "legal"),
    [
        ({}, None, [], [PASS, REVEAL, *bids(1, 8)]),
        ({}, None, [3], [PASS, REVEAL, *bids(3, 8)]),
        ({}, None, [3, 5], [PASS, REVEAL, *bids(5, 8)]),
        ({}, None, [8], [PASS, REVEAL, *bids(8, 8)]),
        ({"min_bid": 2, "max_bid": 4}, None, [], [PASS, REVEAL, *bids(2, 4, 2)]),
        ({"max_bids": 2}, None, [1, 1], [PASS, REVEAL]),
        ({"max_bids": 0}, None, [], [PASS, REVEAL]),
        # no credit: seat 1 holds 4 chips after the ante
        ({}, [100, 5, 100], [3], [PASS, REVEAL, *bids(3, 4)]),
        ({}, [100, 5, 100], [5], [PASS]),
        ({}, [100, 1, 100], [1], [PASS]),  # nothing left after the ante
    ],
)
def test_legal_bets(rules, stacks, moves, legal):
    g = CardPokerGame(3, np.random.default_rng(0), CardPokerRules(**rules), stacks)
    draw_all(g)
    for amount in moves:
        bid(g, amount)
    if stacks and g.current_player != 1:
        pytest.fail("the scenario should leave seat 1 to act")
    assert g.legal_actions() == legal
    assert g.action_mask().sum() == len(legal)


def test_bids_are_paid_each_turn():
    g = CardPokerGame(3, np.random.default_rng(0))
    draw_all(g)
    for amount in (2, 2, 3, 3):
        bid(g, amount)
    assert g.stacks == [99 - 5, 99 - 2, 99 - 3]
    assert g.pot == 3 + 10
    assert g.bids_made == [2, 1, 1] and g.bid_chips == [5, 2, 3]
    assert g.n_bids == 4 and g.level == 3 and g.current_player == 1


def test_pass_skips_the_player_afterwards():
    g = CardPokerGame(4, np.random.default_rng(0))
    draw_all(g)
    bid(g, 1)  # 0
    g.step(PASS)  # 1
    bid(g, 2)  # 2
    bid(g, 2)  # 3
    assert g.current_player == 0
    bid(g, 2)
    assert g.current_player == 2


@pytest.mark.parametrize(
    ("hands", "moves", "winners", "won", "stacks"),
    [
        # seat 2 reveals paying the bid of 2; three kings beat two pairs
        (
            ["AS AH 8C 8D 7H", "KS KH KD 9C 7C", "QS QH JC TD 9D"],
            [2, 2, "R"],
            [1],
            {1: 9},
            [97, 106, 97],
        ),
        # revealing with no bid costs min_bid
        (
            ["AS AH 8C 8D 7H", "KS KH KD 9C 7C", "QS QH JC TD 9D"],
            ["R"],
            [0, 1],
            None,
            None,
        ),
        # a passed player does not show; the best of the rest wins
        (
            ["AS AH 8C 8D 7H", "KS KH KD 9C 7C", "QS QH JC TD 9D"],
            [1, "P", "R"],
            [0],
            {0: 5},
            [103, 99, 98],
        ),
    ],
)
def test_reveal_and_showdown(hands, moves, winners, won, stacks):
    g = rigged(hands, joker_card=None)
    draw_all(g)
    for m in moves:
        if m == "R":
            g.step(REVEAL)
        elif m == "P":
            g.step(PASS)
        else:
            bid(g, m)
    assert g.done
    if won is None:  # the reveal with nobody bidding: everyone shows
        assert g.revealer == 0 and g.stacks[0] == 98
        assert set(g.showdown.hands) == {0, 1, 2}
        assert g.showdown.winners == [1] and g.stacks == [98, 103, 99]
        return
    assert g.showdown.winners == winners
    assert g.showdown.won == won
    assert g.stacks == stacks
    assert sum(g.payoffs().values()) == 0


def test_unseen_win_when_all_others_pass():
    g = rigged(["7S 8H 9D JC QH", "AS AH AD AC KH", "KS KD KC QS QD"], joker_card=None)
    draw_all(g)
    bid(g, 4)
    g.step(PASS)
    g.step(PASS)
    assert g.done and g.showdown.hands == {} and g.showdown.winners == [0]
    assert g.payoffs() == {0: 2, 1: -1, 2: -1}


def test_everyone_passing_leaves_the_last_player_the_pot():
    g = CardPokerGame(3, np.random.default_rng(0))
    draw_all(g)
    g.step(PASS)
    g.step(PASS)
    assert g.done and g.showdown.winners == [2] and g.payoffs()[2] == 2


@pytest.mark.parametrize(
    ("first", "pot_bids", "won"),
    [
        # equal straights split 3 + 1 + the reveal 1 = 5: odd chip to the earliest in turn order
        (0, [1], {0: 3, 1: 2}),
        (1, [1], {1: 3, 0: 2}),
        # 3 + 2 + 2 + the reveal 2 = 9 -> 5 and 4
        (0, [2, 2], {0: 5, 1: 4}),
    ],
)
def test_split_pot_odd_chips_to_earliest(first, pot_bids, won):
    # seats 0 and 1 hold equal straights (suits differ); seat 2 a pair
    hands = {0: "6S 7H 8D 9C TH", 1: "6H 7D 8C 9S TD", 2: "AS AH KD QC JH"}
    order = [hands[s] for s in [first, (first + 1) % 3, (first + 2) % 3]]
    g = rigged(order, first=first, joker_card=None)
    draw_all(g)
    for amount in pot_bids:
        bid(g, amount)
    g.step(REVEAL)
    assert sorted(g.showdown.winners) == [0, 1]
    assert g.showdown.won == won
    assert sum(g.payoffs().values()) == 0


def test_joker_counts_at_showdown():
    g = rigged(["6S AH AD 9C 7H", "KS KH KD 9D 7C"])  # 6S is the joker: three aces
    draw_all(g)
    g.step(REVEAL)
    assert g.showdown.winners == [0] and g.showdown.hands[0].name == "three"


@pytest.mark.parametrize("action", [PASS, REVEAL, 99, -1, 1.0, "0", True, None], ids=repr)
def test_illegal_actions_raise_and_change_nothing(action):
    g = CardPokerGame(3, np.random.default_rng(0))
    before = snapshot(g)
    with pytest.raises(ValueError, match="legal actions now are"):
        g.step(action)
    assert snapshot(g) == before


def test_illegal_bet_raises_and_changes_nothing():
    g = CardPokerGame(3, np.random.default_rng(0))
    draw_all(g)
    bid(g, 5)
    before = snapshot(g)
    for action in (0, FIRST_BID, FIRST_BID + 3):  # a draw, bid 1, bid 4 < 5
        with pytest.raises(ValueError, match="illegal action"):
            g.step(action)
        assert snapshot(g) == before


def test_no_action_after_the_deal():
    g = CardPokerGame(2, np.random.default_rng(0))
    draw_all(g)
    g.step(PASS)
    assert g.legal_actions() == [] and not g.action_mask().any()
    with pytest.raises(ValueError, match="deal is over"):
        g.step(PASS)


# -- sessions --------------------------------------------------------------------------


def test_session_rotates_the_first_seat_and_carries_stacks():
    m = CardPokerMatch(3, np.random.default_rng(0), episode="session", max_deals=4)
    firsts = []
    while not m.done:
        if m.game.phase == Phase.DRAW and not m.game.events:
            firsts.append(m.game.first)
        legal = m.game.legal_actions()
        m.step(REVEAL if REVEAL in legal else legal[0])
        assert sum(m.game.stacks) + m.game.pot == 300
    assert firsts == [0, 1, 2, 0] and m.deals_played == 4
    assert sum(m.net) == 0
    assert [100 + n for n in m.net] == m.game.stacks


def test_session_ends_when_someone_cannot_pay_the_ante():
    r = CardPokerRules(stack=3)
    m = CardPokerMatch(2, np.random.default_rng(1), r, episode="session", max_deals=1000)
    while not m.done:
        legal = m.game.legal_actions()
        m.step(legal[-1])  # the highest bid, else reveal
    assert m.deals_played < 1000
    assert min(m.game.stacks) < r.ante or min(m.game.stacks) == 0
    assert sum(m.game.stacks) == 6
    with pytest.raises(ValueError, match="over"):
        m.step(PASS)


@pytest.mark.parametrize(
    ("kwargs", "message"), [({"episode": "game"}, "episode"), ({"max_deals": 0}, "max_deals")]
)
def test_bad_match(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CardPokerMatch(3, np.random.default_rng(0), **kwargs)


# -- 20,000 random deals ---------------------------------------------------------------

RANDOM_RULES = [
    {},
    {"deck": 54, "draw_fee": 1, "stack": 12},
    {"joker_card": None, "ante": 2, "stack": 9, "max_bids": 3},
    {"deck": 54, "categories": "short", "min_bid": 2, "max_bid": 5, "stack": 6},
]


def test_twenty_thousand_random_deals():
    """Chips are conserved, stacks never go negative, every deal ends."""
    rng = np.random.default_rng(2024)
    rules = [CardPokerRules(**r) for r in RANDOM_RULES]
    outcomes = {"unseen": 0, "showdown": 0, "split": 0}
    for i in range(20000):
        r = rules[i % len(rules)]
        n = 2 + i % 5
        stacks = rng.integers(r.ante, r.stack + 1, size=n).tolist()
        g = CardPokerGame(n, rng, r, stacks, first=int(rng.integers(n)))
        total = sum(stacks)
        limit = n + r.max_bids + n + 1  # draws, bids, then at most one pass each and a reveal
        for _ in range(limit):
            if g.done:
                break
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
            assert min(g.stacks) >= 0
            assert sum(g.stacks) + g.pot == total
        assert g.done, f"deal {i} did not end within {limit} actions"
        assert sum(g.stacks) == total and g.pot == 0
        assert sum(g.payoffs().values()) == 0
        if not g.showdown.hands:
            outcomes["unseen"] += 1
        else:
            outcomes["showdown"] += 1
            outcomes["split"] += len(g.showdown.winners) > 1
    assert all(outcomes.values()), outcomes


def test_same_seed_same_deal():
    def play(seed):
        rng = np.random.default_rng(seed)
        g = CardPokerGame(4, rng, CardPokerRules(deck=54))
        while not g.done:
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
        return [(e.seat, e.action) for e in g.events], g.hands, g.stacks

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_deck_order_must_be_a_permutation():
    with pytest.raises(ValueError, match="permutation"):
        CardPokerGame(2, np.random.default_rng(0), deck_order=list(range(35)) + [0])
    assert make_deck(36).size == 36


# -- chance as an input ----------------------------------------------------------------


class _NoShuffle:
    """A Generator stand-in that fails if the game shuffles by itself."""

    def permutation(self, x):
        raise AssertionError("the game shuffled although chance was given")


def test_reshuffle_follows_chance():
    # 6 players draw five each: seat 1 runs the stock short and takes seat 0's discards
    # in the order they appear in chance
    g = CardPokerGame(6, _NoShuffle(), deck_order=list(range(36)))
    g.step(0b11111, chance=list(range(36)))  # takes 30..34 from the stock; 35 is left
    assert g.hands[0] == (30, 31, 32, 33, 34) and g.stock == [35]
    reverse = list(range(35, -1, -1))
    g.step(0b11111, chance=reverse)  # stock [35] + seat 0's discards 4, 3, 2, 1, 0
    assert g.hands[1] == (1, 2, 3, 4, 35)
    assert g.stock == [0] and g.discards == [5, 6, 7, 8, 9]


def test_chance_is_not_read_when_no_shuffle_is_needed():
    g = CardPokerGame(2, _NoShuffle(), deck_order=list(range(36)))
    g.step(0b00001, chance=list(range(36)))
    assert g.hands[0] == (1, 2, 3, 4, 10) and g.stock[:2] == [11, 12]


def test_session_deals_the_next_deal_from_chance():
    m = CardPokerMatch(3, _NoShuffle(), episode="session", deck_order=list(range(36)))
    assert m.game.hands[0] == (0, 1, 2, 3, 4)
    for _ in range(3):
        m.step(0)
    m.step(PASS)
    nxt = list(range(35, -1, -1))
    payoffs = m.step(PASS, chance=nxt)  # ends the deal; the next one is dealt from nxt
    assert payoffs and m.deals_played == 1 and m.game.first == 1
    assert m.game.hands[1] == (31, 32, 33, 34, 35) and m.game.hands[2] == (26, 27, 28, 29, 30)


def test_scripted_decks_replay_a_seeded_session():
    """Two players never run the stock short, so a seeded session draws only its decks:
    the same decks fed as chance give the same session."""
    rules = CardPokerRules(stack=6)
    seeded = CardPokerMatch(2, np.random.default_rng(7), rules, "session", 30)
    twin = np.random.default_rng(7)
    scripted = CardPokerMatch(
        2, _NoShuffle(), rules, "session", 30, deck_order=twin.permutation(36)
    )
    moves = np.random.default_rng(3)
    while not seeded.done:
        assert scripted.game.hands == seeded.game.hands
        assert scripted.game.legal_actions() == seeded.game.legal_actions()
        legal = seeded.game.legal_actions()
        a = legal[int(moves.integers(len(legal)))]
        ended = seeded.game.phase == Phase.BET and a in (PASS, REVEAL)
        chance = twin.permutation(36) if ended and seeded.deals_left > 0 else None
        assert scripted.step(a, chance=chance) == seeded.step(a)
    assert scripted.done and scripted.net == seeded.net and seeded.deals_played > 1


@pytest.mark.parametrize(
    ("chance", "message"),
    [(list(range(35)), "permutation"), ([0] * 36, "permutation"), (list(range(1, 37)), "0..35")],
)
def test_bad_chance(chance, message):
    g = CardPokerGame(3, np.random.default_rng(0))
    before = snapshot(g)
    with pytest.raises(ValueError, match=message):
        g.step(0, chance=chance)
    assert snapshot(g) == before
    m = CardPokerMatch(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        m.step(0, chance=chance)
    with pytest.raises(ValueError, match=message):
        CardPokerMatch(3, np.random.default_rng(0), deck_order=chance)


def test_seeded_sessions_are_unchanged_by_the_chance_seam():
    """Without chance the match shuffles with its Generator exactly as before the seam
    (the digest was taken on the code before it: same hands, payoffs and nets)."""
    import hashlib

    h = hashlib.sha256()
    for seed, (n, kw) in enumerate([(6, {}), (6, {"deck": 54}), (3, {"stack": 5})]):
        m = CardPokerMatch(n, np.random.default_rng(seed), CardPokerRules(**kw), "session", 6)
        moves = np.random.default_rng(100 + seed)
        while not m.done:
            legal = m.game.legal_actions()
            big = m.game.phase == Phase.DRAW and moves.random() < 0.5  # reshuffles too
            a = legal[-1] if big else legal[int(moves.integers(len(legal)))]
            h.update(repr((m.game.hands, m.step(a))).encode())
        h.update(repr(m.net).encode())
    assert h.hexdigest() == "7b4096889dc0feb4f7ed03f6d65e4e172d91fc180d845f911901ee719d4154e1"


def test_legal_actions_as_the_rules_state_them_and_masks_are_fresh():
    """The legal actions (listed once per rule set by stack, bid level and bids made) are
    what docs/rules.md says in every state of many random deals, and each action_mask is
    a new array: writing to one changes no later mask."""
    rng = np.random.default_rng(5)
    for i in range(600):
        r = CardPokerRules(**RANDOM_RULES[i % len(RANDOM_RULES)])
        n = 2 + i % 5
        stacks = rng.integers(r.ante, r.stack + 1, size=n).tolist()
        g = CardPokerGame(n, rng, r, stacks, first=int(rng.integers(n)))
        while not g.done:
            stack = g.stacks[g.current_player]
            if g.phase == 0:
                want = [a for a in range(32) if a.bit_count() * r.draw_fee <= stack]
            else:
                cost = g.level or r.min_bid
                want = [PASS] + ([REVEAL] if cost <= stack else [])
                if g.n_bids < r.max_bids:
                    bids = range(max(g.level, r.min_bid), min(r.max_bid, stack) + 1)
                    want += [r.bid_action(b) for b in bids]
            assert g.legal_actions() == want
            mask = g.action_mask()
            assert np.flatnonzero(mask).tolist() == want
            mask[:] = True
            assert np.flatnonzero(g.action_mask()).tolist() == want
            g.step(want[int(rng.integers(len(want)))])
