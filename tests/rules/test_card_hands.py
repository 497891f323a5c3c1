"""Card hands (docs/rules.md section 3): every category, jokers, tie-breaks, variants.

The fast evaluator is checked against a slow reference written here straight
from docs/rules.md section 3: a jokerless hand is tested for every category; a hand with
jokers tries every card of every rank and suit for each joker.
"""

from itertools import combinations

import numpy as np
import pytest

from envs.rules.card_hands import (
    CardHand,
    Category,
    category_order,
    evaluate_hand,
    get_evaluator,
    hand_evaluator,
    hand_names,
)
from envs.rules.card_hands_reference import FULL_ORDER, ref_evaluate, ref_order
from envs.rules.cards import JOKER, parse_cards


def assert_same_as_reference(hands, ev, ref):
    """Same category for every hand, and the same order: equal iff equal, less iff less."""
    fast = ev.strengths(np.array(hands))
    keys = [ref(h) for h in hands]
    names = [ev.categories[s].name.lower() for s in fast.tolist()]
    bad = [(h, n, k) for h, n, k in zip(hands, names, keys, strict=True) if n != k[2]][:5]
    assert not bad, f"categories differ (hand, fast, reference): {bad}"
    # Sort by the reference; the fast strengths must then be non-decreasing and
    # change exactly where the reference key changes.
    order = sorted(range(len(hands)), key=lambda i: keys[i][:2])
    ks = [keys[i][:2] for i in order]
    fs = fast[order]
    key_up = np.array([a != b for a, b in zip(ks, ks[1:], strict=False)])
    assert (np.diff(fs) >= 0).all(), "the fast order disagrees with the reference"
    assert ((np.diff(fs) > 0) == key_up).all(), "ties differ from the reference"


VARIANTS_36 = [
    dict(categories=c, swap_four_and_straight_flush=s, ace_low_straight=a)
    for c in ("full", "short")
    for s in (False, True)
    for a in (False, True)
]


def _ref_for(variant, deck=36, joker_card="6S"):
    return lambda h: ref_evaluate(
        h,
        deck,
        joker_card,
        variant.get("categories", "full"),
        variant.get("swap_four_and_straight_flush", False),
        variant.get("ace_low_straight", False),
    )


@pytest.mark.heavy
def test_every_36_card_hand_matches_reference():
    """All 376,992 hands of the 36-card deck with its joker, default rules."""
    ev = get_evaluator()
    assert_same_as_reference(list(combinations(range(36), 5)), ev, _ref_for({}))


def test_jokerless_36_card_deck_matches_reference_on_a_sample():
    rng = np.random.default_rng(35)
    hands = [tuple(rng.choice(36, 5, replace=False)) for _ in range(20000)]
    assert_same_as_reference(hands, get_evaluator(joker_card=None), _ref_for({}, joker_card=None))


@pytest.mark.parametrize("variant", VARIANTS_36[1:], ids=str)
def test_36_card_variants_match_reference_on_a_sample(variant):
    rng = np.random.default_rng(36)
    ev = get_evaluator(**variant)
    hands = [tuple(rng.choice(36, 5, replace=False)) for _ in range(6000)]
    # every hand holding the joker, too, with the first four cards of the deck
    hands += [h for h in combinations(range(14), 5) if 0 in h]
    assert_same_as_reference(hands, ev, _ref_for(variant))


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"categories": "short", "ace_low_straight": True},
    ],
    ids=str,
)
def test_54_card_deck_matches_reference_on_a_large_sample(variant):
    rng = np.random.default_rng(54)
    ev = get_evaluator(deck=54, **variant)
    hands = [tuple(rng.choice(54, 5, replace=False)) for _ in range(12000)]
    # plus hands made to hold one and two jokers, which a uniform sample rarely does
    hands += [(52, *rng.choice(52, 4, replace=False)) for _ in range(1500)]
    hands += [(52, 53, *rng.choice(52, 3, replace=False)) for _ in range(80)]
    assert_same_as_reference(hands, ev, _ref_for(variant, deck=54))


def test_single_and_batch_lookups_agree():
    ev = get_evaluator(deck=54)
    rng = np.random.default_rng(0)
    hands = np.array([rng.permutation(54)[:5] for _ in range(500)])
    assert ev.strengths(hands).tolist() == [ev.strength(h) for h in hands.tolist()]


# -- every category, with and without jokers -------------------------------------------


@pytest.mark.parametrize(
    ("cards", "name", "tiebreak", "variant"),
    [
        # 36 cards, no joker in hand (6S is the joker: keep it out)
        ("AS KH 9D 8C 7H", "high_card", (14, 13, 9, 8, 7), {}),
        ("AS AH 9D 8C 7H", "pair", (14, 9, 8, 7), {}),
        ("AS AH 9D 9C 7H", "two_pairs", (14, 9, 7), {}),
        ("AS AH AD 9C 7H", "three", (14, 9, 7), {}),
        ("AS AH AD 9C 9H", "full_house", (14, 9), {}),
        ("AH KD 9H 8D 7H", "colour", (14, 13, 9, 8, 7), {}),
        ("AS KC 9S 8C 7C", "colour", (14, 13, 9, 8, 7), {}),
        ("AH KH 9H 8H 7H", "suit", (14, 13, 9, 8, 7), {}),
        ("TS JH QD KC AH", "straight", (14,), {}),
        ("6H 7D 8S 9C TH", "straight", (10,), {}),
        ("9H TD JH QD KH", "straight_colour", (13,), {}),
        ("9C TC JC QC KC", "straight_suit", (13,), {}),
        ("AS AH AD AC 7H", "four", (14, 7), {}),
        # 36 cards with the joker 6S: it takes its best value
        ("AS 6S 9D 8C 7H", "pair", (14, 9, 8, 7), {}),
        ("AS AH 6S 8C 7H", "three", (14, 8, 7), {}),
        ("AS AH 9D 9C 6S", "full_house", (14, 9), {}),
        ("AH KD 9H 8D 6S", "colour", (14, 14, 13, 9, 8), {}),
        ("AH KH 9H 8H 6S", "suit", (14, 14, 13, 9, 8), {}),
        ("TS JH QD KC 6S", "straight", (14,), {}),
        ("7S 8H 9D JC 6S", "straight", (11,), {}),
        ("9H TD JH QD 6S", "straight_colour", (13,), {}),
        ("9C TC JC KC 6S", "straight_suit", (13,), {}),
        ("AS AH AD 7C 6S", "four", (14, 7), {}),
        ("AS AH AD AC 6S", "poker", (14,), {}),
        ("6S 7H 7D 7C 7S", "poker", (7,), {}),
        # X names the 36-card deck's joker
        ("AS AH AD AC X", "poker", (14,), {}),
        # without a joker 6S is a plain six
        ("6S 7H 8D 9C TH", "straight", (10,), {"joker_card": None}),
        ("6S 6H AD KC 9H", "pair", (6, 14, 13, 9), {"joker_card": None}),
        # another card may play the joker
        ("6S 6H AD KC 9H", "pair", (14, 13, 9, 6), {"joker_card": "6H"}),
        # 54 cards
        ("2S 3H 4D 5C 7H", "high_card", (7, 5, 4, 3, 2), {"deck": 54}),
        ("2S 2H 4D 5C 7H", "pair", (2, 7, 5, 4), {"deck": 54}),
        ("2S 3H 4D 5C 6H", "straight", (6,), {"deck": 54}),
        ("2S 3S 4S 5S 6S", "straight_suit", (6,), {"deck": 54}),
        ("2S 3H X 5C 6H", "straight", (6,), {"deck": 54}),
        ("2S 3H X X 6H", "straight", (6,), {"deck": 54}),
        ("2S 2H X X 6H", "four", (2, 6), {"deck": 54}),
        ("2S 2H 2D X X", "poker", (2,), {"deck": 54}),
        ("AS AH AD AC X", "poker", (14,), {"deck": 54}),
        ("2S 5S 9S X X", "suit", (14, 14, 9, 5, 2), {"deck": 54}),
        ("KS QS JS X X", "straight_suit", (14,), {"deck": 54}),
        ("AH 2D 3H 4D 5H", "colour", (14, 5, 4, 3, 2), {"deck": 54}),
        ("AH 2D 3H 4D 5H", "straight_colour", (5,), {"deck": 54, "ace_low_straight": True}),
        ("AH 2D 3C 4D X", "straight", (5,), {"deck": 54, "ace_low_straight": True}),
        ("AH 2D 3C 4D X", "pair", (14, 4, 3, 2), {"deck": 54}),
    ],
)
def test_categories(cards, name, tiebreak, variant):
    hand = evaluate_hand(parse_cards(cards), **variant)
    assert hand.name == name
    assert hand.tiebreak == tiebreak
    assert hand.category == Category[name.upper()]


# -- tie-breaks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "variant"),
    [
        # the source's examples
        ("QS QH 9D 8C 7H", "KS KH 9D 8C 7H", {}),
        ("KS KH QD QC 9H", "AS AH 7D 7C 9H", {}),
        ("9S TH JD QC KH", "TS JH QD KC AH", {}),
        # pair: the pair first, then the other cards high to low
        ("KS KH AD 8C 7H", "AS AH 9D 8C 7D", {}),
        ("AS AH 9D 8C 7H", "AS AD TC 8D 7D", {}),
        ("AS AH TD 8C 7H", "AD AC TH 9S 7D", {}),
        ("AS AH TD 9C 7H", "AD AC TH 9S 8D", {}),
        # two pairs: higher pair, then lower pair, then the odd card
        ("KS KH QD QC AH", "AS AH 7D 7C 8H", {}),
        ("AS AH 7D 7C KH", "AD AC 8D 8C 9H", {}),
        ("AS AH 8D 8C 9H", "AD AC 8H 8S TH", {}),
        # three: the triple, then the rest
        ("KS KH KD AC QH", "AS AH AD 7C 8H", {}),
        ("AS AH AD 7C 8H", "AS AH AD 7C 9H", {}),
        # full house: triple before pair
        ("KS KH KD AC AH", "AS AH AD 7C 7H", {}),
        ("AS AH AD 7C 7H", "AS AH AD 8C 8H", {}),
        # colour and suit: all five high to low
        ("AH KD 9H 8D 7H", "AD KH TD 8H 7D", {}),
        ("AH KH 9H 8H 7H", "AS KS TS 8S 7S", {}),
        # straights by the top card
        ("6S 7H 8D 9C TH", "7S 8H 9D TC JH", {"joker_card": None}),
        ("9H TD JH QD KH", "TH JD QH KD AH", {}),
        ("9C TC JC QC KC", "TS JS QS KS AS", {}),
        # four: the quad, then the odd card
        ("KS KH KD KC AH", "AS AH AD AC 7H", {}),
        ("AS AH AD AC 7H", "AS AH AD AC 8H", {}),
        # poker by rank
        ("KS KH KD KC 6S", "AS AH AD AC 6S", {}),
        # ace-low straight is the lowest straight
        ("AS 6H 7D 8C 9H", "6H 7D 8C 9H TD", {"ace_low_straight": True, "joker_card": None}),
        ("AS 2H 3D 4C 5H", "2H 3D 4C 5H 6D", {"ace_low_straight": True, "deck": 54}),
        # a joker makes the best hand, not merely a good one
        ("AS AH KD KC QH", "AS AH KD 6S QH", {}),
    ],
)
def test_tie_breaks(low, high, variant):
    a = evaluate_hand(low, **variant)
    b = evaluate_hand(high, **variant)
    assert a < b and b > a and a != b


@pytest.mark.parametrize(
    ("a", "b", "variant"),
    [
        # suits never break ties
        ("AS KH 9D 8C 7H", "AH KS 9C 8D 7S", {}),
        ("AS AH 9D 8C 7H", "AD AC 9S 8H 7C", {}),
        ("TS JH QD KC AH", "TH JS QC KD AC", {}),
        ("AH KH 9H 8H 7H", "AS KS 9S 8S 7S", {}),
        ("9C TC JC QC KC", "9H TH JH QH KH", {}),
        # the joker equals the card it copies
        ("AS AH AD 7C 6S", "AS AH AD AC 7H", {}),
        ("TS JH QD KC 6S", "TH JS QC KD AC", {}),
        ("2S 3H X 5C 6H", "2D 3S 4C 5H 6S", {"deck": 54}),
    ],
)
def test_equal_hands_tie(a, b, variant):
    ha, hb = evaluate_hand(a, **variant), evaluate_hand(b, **variant)
    assert ha == hb and not ha < hb and not hb < ha
    assert ha.strength == hb.strength


# -- variants --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("categories", "swap", "names"),
    [
        ("full", False, FULL_ORDER),
        ("short", False, ref_order("short")),
        ("full", True, ref_order("full", True)),
        ("short", True, ref_order("short", True)),
    ],
)
def test_orders(categories, swap, names):
    assert list(hand_names(categories, swap)) == names
    assert [c.name.lower() for c in category_order(categories, swap)] == names


def test_swap_is_the_two_categories_only():
    assert ref_order("full", True)[8:] == ["straight_colour", "four", "straight_suit", "poker"]
    assert ref_order("short", True)[4:] == ["full_house", "four", "straight_suit", "poker"]


@pytest.mark.parametrize(
    ("cards", "full", "short"),
    [
        ("AH KD 9H 8D 7H", "colour", "high_card"),
        ("AH AD 9H 8D 7H", "colour", "pair"),
        ("AH KH 9H 8H 7H", "suit", "high_card"),
        ("TS JH QD KC AH", "straight", "high_card"),
        ("9H TD JH QD KH", "straight_colour", "high_card"),
        ("9C TC JC QC KC", "straight_suit", "straight_suit"),
        ("AH KD 9H 8D 6S", "colour", "pair"),
        ("TS JH QD KC 6S", "straight", "pair"),
        ("AS AH AD AC 6S", "poker", "poker"),
    ],
)
def test_short_categories_fall_back(cards, full, short):
    assert evaluate_hand(cards).name == full
    assert evaluate_hand(cards, categories="short").name == short


@pytest.mark.parametrize(
    ("lower", "higher", "swap"),
    [
        ("9C TC JC QC KC", "AS AH AD AC 7H", False),
        ("AS AH AD AC 7H", "9C TC JC QC KC", True),
        ("9H TD JH QD KH", "AS AH AD AC 7H", True),  # straight colour stays below four
        ("9C TC JC QC KC", "AS AH AD AC 6S", True),  # poker stays on top
    ],
)
def test_swap_four_and_straight_flush(lower, higher, swap):
    v = {"swap_four_and_straight_flush": swap}
    assert evaluate_hand(lower, **v) < evaluate_hand(higher, **v)


@pytest.mark.parametrize(
    ("cards", "variant", "default_name", "ace_low_name"),
    [
        ("AS 6H 7D 8C 9H", {"joker_card": None}, "high_card", "straight"),
        ("AS 7H 8D 9C 6S", {}, "pair", "straight"),  # the joker fills the six
        ("AS 2H 3D 4C 5H", {"deck": 54}, "high_card", "straight"),
        ("AS 2S 3S 4S 5S", {"deck": 54}, "suit", "straight_suit"),
        ("KS AH 6D 7C 8H", {"joker_card": None}, "high_card", "high_card"),  # no wrap-around
    ],
)
def test_ace_low_straight(cards, variant, default_name, ace_low_name):
    assert evaluate_hand(cards, **variant).name == default_name
    assert evaluate_hand(cards, ace_low_straight=True, **variant).name == ace_low_name


def test_ace_low_straight_tops_at_its_fourth_card():
    h = evaluate_hand("AS 6H 7D 8C 9H", ace_low_straight=True, joker_card=None)
    assert h.tiebreak == (9,)


# -- errors and the CardHand value -----------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "variant", "message"),
    [
        ("AS KS QS JS", {}, "five cards"),
        ("AS KS QS JS TS 9S", {}, "five cards"),
        ("AS AS QS JS TS", {}, "twice"),
        ("2S KS QS JS TS", {}, "not in the 36-card deck"),
        ("X KS QS JS TS", {"joker_card": None}, "too many jokers"),
        ("X X X JS TS", {"deck": 54}, "too many jokers"),
        ("AS KS QS JS TS", {"deck": 40}, "deck must be"),
        ("AS KS QS JS TS", {"categories": "long"}, "categories"),
        ("AS KS QS JS TS", {"ace_low_straight": 1}, "ace_low_straight"),
        ("AS KS QS JS TS", {"swap_four_and_straight_flush": "yes"}, "swap"),
    ],
)
def test_bad_input(cards, variant, message):
    with pytest.raises(ValueError, match=message):
        evaluate_hand(cards, **variant)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="jokers"):
        evaluate_hand("AS KS QS JS TS", jokers=2)


def test_hands_of_different_rules_do_not_compare():
    with pytest.raises(ValueError, match="different rules"):
        _ = evaluate_hand("AS KS QS JS TS") < evaluate_hand("AS KS QS JS TS", categories="short")


def test_max_picks_the_winner_and_hands_hash():
    hands = [evaluate_hand(h) for h in ("AS AH 9D 8C 7H", "KS KH KD 8C 7D", "AD AC 9S 8H 7C")]
    assert max(hands).name == "three"
    assert len(set(hands)) == 2
    assert hands[0] is hands[2]  # one object per value
    assert repr(hands[1]) == "CardHand(three, tiebreak=(13, 8, 7))"


def test_percentile_is_a_distribution():
    ev = get_evaluator()
    assert ev.hand_counts.sum() == 376992
    seen = ev.hand_counts > 0  # some rank patterns cannot occur in this deck
    assert np.all(np.diff(ev.percentile[seen]) > 0)
    assert 0 < ev.percentile[0] < ev.percentile[-1] < 1


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"deck": 54},
        {"deck": 54, "joker_card": None},
        {"joker_card": None},
        {"joker_card": "AH", "categories": "short", "ace_low_straight": True},
    ],
)
def test_fast_lookup_equals_the_general_path(variant):
    """evaluate_hand on a list of Cards (the table lookup) gives the hand the general path
    (card strings) gives: the very same CardHand, X included."""
    deck = get_evaluator(**variant).deck
    rng = np.random.default_rng(3)
    for _ in range(3000):
        cards = [deck.cards[i] for i in rng.choice(deck.size, 5, replace=False)]
        fast = evaluate_hand(cards, **variant)
        slow = evaluate_hand(" ".join(map(str, cards)), **variant)
        assert fast is slow
        assert type(fast) is CardHand


def _same_as_the_table(ev, hands, variant, as_x=()):
    """evaluate_hand on each hand (deck indices) as Cards, the deck indices in ``as_x``
    written X, is the evaluator's table value of the hand (HandEvaluator.strengths)."""
    cards = [
        [JOKER if i in as_x else ev.deck.cards[i] for i in h] for h in np.asarray(hands).tolist()
    ]
    got = np.array([evaluate_hand(c, **variant).strength for c in cards])
    want = ev.strengths(hands)
    bad = np.flatnonzero(got != want)[:5]
    assert not len(bad), f"hands {np.asarray(hands)[bad].tolist()}: {got[bad]} != {want[bad]}"


@pytest.mark.heavy
def test_evaluate_hand_is_the_table_on_every_36_card_hand():
    """All 376,992 hands of the 36-card deck, its joker card as 6S and as X."""
    ev = get_evaluator()
    hands = np.array(list(combinations(range(ev.deck.size), 5)))
    _same_as_the_table(ev, hands, {})
    (joker,) = ev.deck.joker_indices
    _same_as_the_table(ev, hands[(hands == joker).any(axis=1)], {}, as_x={joker})


def test_evaluate_hand_is_the_table_on_54_card_hands():
    """200,000 random hands of the 54-card deck (its jokers X), and every hand of the
    first 16 cards with one or both jokers."""
    variant = {"deck": 54}
    ev = get_evaluator(**variant)
    rng = np.random.default_rng(54)
    hands = np.argsort(rng.random((200_000, ev.deck.size)), axis=1)[:, :5]
    jokers = sorted(ev.deck.joker_indices)
    small = [h for h in combinations([*range(16), *jokers], 5) if set(h) & set(jokers)]
    # X names the first free joker: a hand's first X is the lower joker, a second the other
    hands = np.sort(np.vstack([hands, np.array(small)]), axis=1)
    _same_as_the_table(ev, hands, variant, as_x=set(jokers))


@pytest.mark.parametrize(
    ("cards", "variant"),
    [
        ("AS AS KD QC JH", {}),
        ("AS X 6S QC JH", {}),
        ("AS KD QC JH", {}),
        ("AS KD QC JH TS 9S", {}),
        ("X X X KD QC", {"deck": 54}),
        ("X KD QC JH TS", {"joker_card": None}),
        ("2S KD QC JH TS", {}),
    ],
)
def test_fast_lookup_raises_as_before(cards, variant):
    with pytest.raises(ValueError):
        evaluate_hand(parse_cards(cards), **variant)
    with pytest.raises(ValueError):
        evaluate_hand(tuple(parse_cards(cards)), **variant)


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"deck": 54},
        {"deck": 54, "joker_card": None},
        {"joker_card": "AH", "ace_low_straight": True},
    ],
    ids=str,
)
def test_hand_evaluator_is_evaluate_hand_and_the_reference(variant):
    """hand_evaluator(**variant) values Cards, card strings and a string as evaluate_hand does
    (the very same CardHand), and as the reference does, jokers included: a seeded sample
    of the deck's hands plus hands made to hold one and (54 cards) two jokers."""
    value = hand_evaluator(**variant)
    assert hand_evaluator(**variant) is value  # bound once per variant
    deck = get_evaluator(**variant).deck
    ref = _ref_for(variant, variant.get("deck", 36), variant.get("joker_card", "6S"))
    rng = np.random.default_rng(26)
    hands = [sorted(rng.choice(deck.size, 5, replace=False).tolist()) for _ in range(1500)]
    jokers = sorted(deck.joker_indices)
    naturals = [i for i in range(deck.size) if i not in deck.joker_indices]
    for k in range(1, len(jokers) + 1):
        hands += [
            sorted([*jokers[:k], *rng.choice(naturals, 5 - k, replace=False).tolist()])
            for _ in range(300)
        ]
    for h in hands:
        # X names the first free joker (Deck.indices), so the jokers sorted last read as X
        cards = [JOKER if deck.size == 54 and i in deck.joker_indices else deck.cards[i] for i in h]
        hand = value(cards)
        assert (
            hand
            is evaluate_hand(cards, **variant)
            is evaluate_hand(" ".join(map(str, cards)), **variant)
        )
        assert value(tuple(cards)) is hand and value(iter(cards)) is hand
        assert (hand.rank, hand.tiebreak, hand.name) == ref(h), (cards, hand)


@pytest.mark.parametrize(
    ("cards", "variant", "message"),
    [
        ("AS AS QS JS TS", {}, "twice"),
        ("6S X QS JS TS", {}, "too many jokers"),
        ("X X X JS TS", {"deck": 54}, "too many jokers"),
        ("X X AS AS TS", {"deck": 54}, "twice"),
        ("X KS QS JS TS", {"joker_card": None}, "too many jokers"),
        ("2S KS QS JS TS", {}, "not in the 36-card deck"),
        ("AS KS QS JS", {}, "five cards"),
        ("AS KS QS JS TS 9S", {}, "five cards"),
    ],
)
def test_hand_evaluator_raises_as_evaluate_hand(cards, variant, message):
    """The same ValueError from the lookup's every way in: Cards in a list, a tuple or an
    iterator (one of more or fewer than five cards says so), and the string."""
    value = hand_evaluator(**variant)
    listed = parse_cards(cards)
    for given in (listed, tuple(listed), cards):
        with pytest.raises(ValueError, match=message):
            value(given)
        with pytest.raises(ValueError, match=message):
            evaluate_hand(given, **variant)
    with pytest.raises(ValueError, match=message if len(listed) == 5 else "five cards"):
        value(iter(listed))


def test_hand_evaluator_checks_its_options():
    with pytest.raises(ValueError, match="deck must be"):
        hand_evaluator(deck=36.0)
    with pytest.raises(TypeError, match="jokers"):
        hand_evaluator(jokers=2)


def test_options_of_the_wrong_type_still_raise_after_a_lookup():
    evaluate_hand(parse_cards("AS KD QC JH TS"), deck=36)
    with pytest.raises(ValueError):
        evaluate_hand(parse_cards("AS KD QC JH TS"), deck=36.0)
    with pytest.raises(ValueError):
        evaluate_hand(parse_cards("AS KD QC JH TS"), ace_low_straight=1)


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"joker_card": None},
        {"joker_card": "AH", "categories": "short", "swap_four_and_straight_flush": True},
        {"ace_low_straight": True},
        {"deck": 54},
        {"deck": 54, "joker_card": None, "ace_low_straight": True},
    ],
)
def test_evaluate_hand_equals_the_reference_on_every_hand_class(variant):
    """evaluate_hand's lookup (a rank multiset with its jokers, a flush class) gives the
    reference's place, tie-break and name: up to 40 hands of every category the deck holds,
    with no joker, one and two, from a sample of the deck's hands."""
    ev = get_evaluator(**variant)
    deck = ev.deck
    ref = _ref_for(variant, variant.get("deck", 36), variant.get("joker_card", "6S"))
    rng = np.random.default_rng(7)
    hands = np.argsort(rng.random((200_000, deck.size)), axis=1)[:, :5]
    strengths = ev.strengths(hands)
    jokers = np.isin(hands, sorted(deck.joker_indices)).sum(axis=1)
    cats = np.array([ev.categories[s] for s in range(ev.n_strengths)])[strengths]
    seen = set()
    for cat in ev.order:
        for n_jokers in range(deck.n_jokers + 1):
            rows = np.flatnonzero((cats == cat) & (jokers == n_jokers))[:40]
            for h in hands[rows].tolist():
                hand = evaluate_hand([deck.cards[i] for i in h], **variant)
                assert (hand.rank, hand.tiebreak, hand.name) == ref(h), (h, hand)
                seen.add(cat)
    held = {
        c for c, n in zip(ev.categories, ev.hand_counts, strict=True) if n
    }  # no joker: no poker
    assert seen == held, f"no hand drawn of {held - seen}"


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"joker_card": None},
        {"joker_card": "AH", "categories": "short", "ace_low_straight": True},
        {"deck": 54},
        {"deck": 54, "joker_card": None, "swap_four_and_straight_flush": True},
    ],
    ids=str,
)
def test_hand_sums_value_every_hand_as_the_table(variant):
    """HandSums (a hand as the sum of its cards' words) gives every hand the table's strength
    and percentile: all 376,992 hands of the 36-card deck, 200,000 of the 54-card deck's
    (two jokers included), in any card order."""
    from envs.rules.card_hands import _colex_combinations

    ev = get_evaluator(**variant)
    sums = ev.sums
    rng = np.random.default_rng(11)
    if ev.deck.size == 36:
        hands = _colex_combinations(36, 5)
    else:
        hands = np.argsort(rng.random((200_000, ev.deck.size)), axis=1)[:, :5]
        if ev.deck.n_jokers:  # hands with both jokers: three naturals and X X
            hands[:50, :3] = np.argsort(rng.random((50, 52)), axis=1)[:, :3]
            hands[:50, 3:] = sorted(ev.deck.joker_indices)
    rows = sums.index(sums.words[rng.permuted(hands, axis=1)].sum(axis=1))
    want = ev.strengths(hands)
    assert np.array_equal(sums.strength[rows], want)
    assert np.array_equal(sums.percentile[rows], ev.percentile[want])
    assert sums.total(hands[0].tolist()) == int(sums.words[hands[0]].sum())
