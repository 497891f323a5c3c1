"""Cards and the two decks of card poker (docs/rules.md section 3).

A card is ``Card(rank, suit)``: rank 2..14 (J=11, Q=12, K=13, A=14), suit
0..3 for spades, hearts, diamonds, clubs (hearts and diamonds are red). The
printed joker ``X`` is :data:`JOKER` = ``Card(0, -1)``.

A :class:`Deck` numbers its cards ``0 .. size-1`` rank-major (index = (rank -
lowest rank) * 4 + suit), the jokers of the 54-card deck last. Game code works
with these indices; a hand sorted by index is sorted by rank, then suit. In
the 36-card deck the joker is one of the natural cards (``joker_card="6S"`` by
default), so its index stays that card's index and ``X`` is accepted as a
name for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"
RED_SUITS = frozenset({1, 2})  # hearts, diamonds
DECK_SIZES = (36, 54)


class Card(NamedTuple):
    """One card; :data:`JOKER` is ``Card(0, -1)``."""

    rank: int
    suit: int

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def colour(self) -> int:
        """0 black, 1 red (-1 for the printed joker)."""
        if self.is_joker:
            return -1
        return int(self.suit in RED_SUITS)

    def __str__(self) -> str:
        if self.is_joker:
            return "X"
        return RANK_CHARS[self.rank - 2] + SUIT_CHARS[self.suit]

    def __repr__(self) -> str:
        return f"Card({self})"


JOKER = Card(0, -1)


@cache
def parse_card(text: str) -> Card:
    """``"AS"``, ``"TH"``, ``"10H"``, ``"6s"``, ``"X"`` -> a :class:`Card`."""
    # cached: there are few distinct card names and parsing is on hot paths
    t = text.strip().upper()
    if t in ("X", "JOKER"):
        return JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
        raise ValueError(
            f"cannot read card {text!r}: expected a rank 2-9 T J Q K A (or 10) and a suit "
            f"S H D C, or X for a joker"
        )
    return Card(RANK_CHARS.index(t[0]) + 2, SUIT_CHARS.index(t[1]))


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """``parse_cards("AS TH 6S X 9D")`` -> five cards; also takes a list of strings or Cards."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [c if isinstance(c, Card) else parse_card(c) for c in items]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


@dataclass(frozen=True)
class Deck:
    """One of the two decks with its jokers. Build it with :func:`make_deck`."""

    size: int
    low_rank: int
    # Index -> card; in the 36-card deck the joker keeps its natural face here.
    cards: tuple[Card, ...]
    joker_indices: frozenset[int]

    @property
    def ranks(self) -> range:
        """The natural ranks of this deck, low to high."""
        return range(self.low_rank, 15)

    @property
    def n_jokers(self) -> int:
        return len(self.joker_indices)

    def is_joker(self, index: int) -> bool:
        return index in self.joker_indices

    def label(self, index: int) -> str:
        """A card's name; the 36-card deck's joker reads e.g. ``6S*``."""
        card = self.cards[index]
        if index in self.joker_indices and not card.is_joker:
            return f"{card}*"
        return str(card)

    def indices(self, cards: str | Iterable[str | Card]) -> list[int]:
        """Deck indices of distinct cards of this deck (``ValueError`` otherwise).

        ``X`` names a joker: the 36-card deck's joker card, or the next unused
        of the 54-card deck's two jokers.
        """
        out: list[int] = []
        free_jokers = sorted(self.joker_indices)
        cards = parse_cards(cards)
        for card in cards:
            if card.is_joker:
                free = [j for j in free_jokers if j not in out]
                if not free:
                    raise ValueError(
                        f"too many jokers for the {self.size}-card deck "
                        f"(it has {self.n_jokers}): {format_cards(cards)}"
                    )
                out.append(free[0])
                continue
            if card.rank < self.low_rank:
                raise ValueError(f"{card} is not in the {self.size}-card deck")
            index = (card.rank - self.low_rank) * 4 + card.suit
            if index in out:
                raise ValueError(
                    f"card {self.label(index)} appears twice in {format_cards(parse_cards(cards))}"
                )
            out.append(index)
        return out


@cache
def make_deck(deck: int = 36, joker_card: str | None = "6S") -> Deck:
    """The 36-card deck (6..A, ``joker_card`` plays the joker) or the 54-card deck (2..A + X X).

    ``joker_card`` is an option of the 36-card deck: any of its cards, or
    ``None`` for no joker. The 54-card deck's jokers are its two ``X``; there
    ``joker_card=None`` removes them (a plain 52-card deck) and any other card
    is an error.
    """
    if type(deck) is not int or deck not in DECK_SIZES:  # not 36.0, not True
        raise ValueError(f"deck must be 36 or 54, got {deck!r}")
    low = 6 if deck == 36 else 2
    naturals = tuple(Card(r, s) for r in range(low, 15) for s in range(4))
    if deck == 54:
        if joker_card not in ("6S", None):
            raise ValueError(
                f"joker_card={joker_card!r} applies to the 36-card deck; the 54-card deck's "
                f"jokers are its two X (joker_card=None removes them)"
            )
        if joker_card is None:
            return Deck(52, low, naturals, frozenset())
        return Deck(54, low, naturals + (JOKER, JOKER), frozenset({52, 53}))
    if joker_card is None:
        return Deck(36, low, naturals, frozenset())
    card = parse_card(joker_card) if isinstance(joker_card, str) else None
    if card is None or card.is_joker or card.rank < low:
        raise ValueError(
            f"joker_card must be a card of the 36-card deck (e.g. '6S') or None, got {joker_card!r}"
        )
    return Deck(36, low, naturals, frozenset({(card.rank - low) * 4 + card.suit}))


def check_hand_indices(deck: Deck, indices: Sequence[int]) -> tuple[int, ...]:
    """Five distinct valid indices of ``deck``, sorted."""
    hand = tuple(sorted(int(i) for i in indices))
    if len(hand) != 5 or len(set(hand)) != 5 or hand[0] < 0 or hand[-1] >= deck.size:
        raise ValueError(f"a hand is 5 distinct card indices of 0..{deck.size - 1}, got {hand}")
    return hand
