"""Cards, decks and parse_cards (docs/rules.md section 3)."""

import pytest

from envs.rules.cards import JOKER, Card, check_hand_indices, make_deck, parse_card, parse_cards


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("AS", Card(14, 0)),
        ("TH", Card(10, 1)),
        ("10H", Card(10, 1)),
        ("10h", Card(10, 1)),
        ("6s", Card(6, 0)),
        ("2D", Card(2, 2)),
        ("KC", Card(13, 3)),
        ("JD", Card(11, 2)),
        ("QH", Card(12, 1)),
        ("X", JOKER),
        ("x", JOKER),
    ],
)
def test_parse_card(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "1S", "AX", "ASS", "11H", "ZZ", "A"])
def test_parse_card_rejects(text):
    with pytest.raises(ValueError, match="cannot read card"):
        parse_card(text)


def test_parse_cards_design_example():
    cards = parse_cards("AS TH 6S X 9D")
    assert cards == [Card(14, 0), Card(10, 1), Card(6, 0), JOKER, Card(9, 2)]
    assert [str(c) for c in cards] == ["AS", "TH", "6S", "X", "9D"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("AS,KD", ["AS", "KD"]),
        (["AS", "10C"], ["AS", "TC"]),
        ([Card(7, 3), "X"], ["7C", "X"]),
    ],
)
def test_parse_cards_forms(given, expected):
    assert [str(c) for c in parse_cards(given)] == expected


@pytest.mark.parametrize(
    ("card", "colour"),
    [("AS", 0), ("AH", 1), ("AD", 1), ("AC", 0), ("X", -1)],
)
def test_colours(card, colour):
    assert parse_card(card).colour == colour


@pytest.mark.parametrize(
    ("deck", "joker_card", "size", "low", "jokers"),
    [
        (36, "6S", 36, 6, ["6S*"]),
        (36, "7H", 36, 6, ["7H*"]),
        (36, None, 36, 6, []),
        (54, "6S", 54, 2, ["X", "X"]),
        (54, None, 52, 2, []),
    ],
)
def test_decks(deck, joker_card, size, low, jokers):
    d = make_deck(deck, joker_card)
    assert d.size == size == len(d.cards)
    assert d.low_rank == low
    assert len(set(d.cards)) == (size - 1 if deck == 54 and joker_card else size)
    assert [d.label(i) for i in sorted(d.joker_indices)] == jokers
    # rank-major order: sorting indices sorts by rank
    naturals = [c for c in d.cards if not c.is_joker]
    assert naturals == sorted(naturals)


@pytest.mark.parametrize(
    ("deck", "joker_card"), [(35, "6S"), (52, None), (36, "5S"), (36, "X"), (54, "7H"), (36, 6)]
)
def test_bad_decks(deck, joker_card):
    with pytest.raises(ValueError):
        make_deck(deck, joker_card)


@pytest.mark.parametrize(
    ("deck", "joker_card", "cards", "indices"),
    [
        (36, "6S", "6S 6H AC", [0, 1, 35]),
        (36, "6S", "X 7S", [0, 4]),  # X names the joker card
        (54, "6S", "X 2S X", [52, 0, 53]),
    ],
)
def test_indices(deck, joker_card, cards, indices):
    assert make_deck(deck, joker_card).indices(cards) == indices


@pytest.mark.parametrize(
    ("deck", "joker_card", "cards", "message"),
    [
        (36, "6S", "2S AS", "not in the 36-card deck"),
        (36, "6S", "AS AS", "twice"),
        (36, "6S", "X 6S", "twice"),
        (36, None, "X AS", "too many jokers"),
        (54, "6S", "X X X", "too many jokers"),
        (54, None, "X", "too many jokers"),
    ],
)
def test_indices_reject(deck, joker_card, cards, message):
    with pytest.raises(ValueError, match=message):
        make_deck(deck, joker_card).indices(cards)


@pytest.mark.parametrize(
    "hand", [(0, 1, 2, 3), (0, 1, 2, 3, 3), (0, 1, 2, 3, 36), (-1, 1, 2, 3, 4)]
)
def test_check_hand_indices(hand):
    with pytest.raises(ValueError):
        check_hand_indices(make_deck(36), hand)
    assert check_hand_indices(make_deck(36), (4, 3, 2, 1, 0)) == (0, 1, 2, 3, 4)
