"""Hands of card poker on 36 or 54 cards with jokers (docs/rules.md section 3).

``evaluate_hand(cards, **variant)`` returns a :class:`CardHand`; hands compare
by ``(rank, tiebreak)`` where ``rank`` is the category's place in the
variant's order: ``a < b`` means ``b`` wins, ``a == b`` splits the pot.

Variant options (defaults are those of docs/rules.md):

- ``deck`` 36 | 54, ``joker_card`` "6S" (36 cards: any of its cards, or None);
- ``categories`` "full" | "short" (no colour, suit, straight, straight colour);
- ``swap_four_and_straight_flush`` False | True (four ranks just below straight suit);
- ``ace_low_straight`` False | True (A 6 7 8 9, or A 2 3 4 5, is the lowest straight).

A joker may become any card of any rank and suit, a card already in the hand
included, and takes the assignment that makes the best hand. Ties: first the
ranks that make the category (pair; high then low pair; triple then pair;
quad; the top card of a straight, which is 9 or 5 for an ace-low one), then
the other cards high to low; colour and suit compare all five ranks high to
low. Suits never break ties.

The fast path is :class:`HandEvaluator`: a table of every 5-card hand of the
deck (by combination index), built once per variant with numpy from the far
smaller table of rank patterns. It answers single hands in about a
microsecond and arrays of hands at numpy speed. Each value of a variant is one
:class:`CardHand` object (:attr:`HandEvaluator.values`), so valuing a hand builds
nothing. :func:`evaluate_hand` on five :class:`Card` values reads the same pattern
strengths without sorting: a product of per-card primes gives the rank multiset
with its jokers, an AND of per-card bits the flush class, an OR of card bits a
distinctness check, and two lookups give the hand (:class:`_Lookup`).
:func:`hand_evaluator` binds one variant's options once, for many hands.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache, cached_property, total_ordering
from itertools import combinations_with_replacement
from math import comb

import numpy as np

from envs.rules.cards import DECK_SIZES, JOKER, RED_SUITS, Card, Deck, make_deck, parse_cards
from envs.rules.hand_order import KeyOrdered


class Category(IntEnum):
    """Card hands in the source's order (docs/rules.md section 3, ``categories="full"``);
    higher wins."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIRS = 2
    THREE = 3
    FULL_HOUSE = 4
    COLOUR = 5
    SUIT = 6
    STRAIGHT = 7
    STRAIGHT_COLOUR = 8
    STRAIGHT_SUIT = 9
    FOUR = 10
    POKER = 11


CATEGORY_SETS = ("full", "short")
SHORT_DROPPED = frozenset(
    {Category.COLOUR, Category.SUIT, Category.STRAIGHT, Category.STRAIGHT_COLOUR}
)
HAND_OPTIONS = (
    "deck",
    "joker_card",
    "categories",
    "swap_four_and_straight_flush",
    "ace_low_straight",
)

# Flush classes of a hand's natural cards: none, all one colour, all one suit.
NO_FLUSH, COLOUR_FLUSH, SUIT_FLUSH = 0, 1, 2
_BASE = 15  # ranks 0..14 as digits of the pattern and score codes


def check_variant(
    deck: int = 36,
    joker_card: str | None = "6S",
    categories: str = "full",
    swap_four_and_straight_flush: bool = False,
    ace_low_straight: bool = False,
) -> tuple:
    """Validate the hand options; return them as a tuple in :data:`HAND_OPTIONS` order."""
    if type(deck) is not int:  # 36.0 and True would hit make_deck's cache for 36 and 1
        raise ValueError(f"deck must be 36 or 54, got {deck!r}")
    make_deck(deck, joker_card)  # validates deck and joker_card
    if categories not in CATEGORY_SETS:
        raise ValueError(f"categories={categories!r} is not allowed; choose one of {CATEGORY_SETS}")
    for name, value in (
        ("swap_four_and_straight_flush", swap_four_and_straight_flush),
        ("ace_low_straight", ace_low_straight),
    ):
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    return (deck, joker_card, categories, swap_four_and_straight_flush, ace_low_straight)


def category_order(categories: str = "full", swap_four_and_straight_flush: bool = False):
    """The categories played, lowest first."""
    order = [c for c in Category if categories == "full" or c not in SHORT_DROPPED]
    if swap_four_and_straight_flush:
        i, j = order.index(Category.FOUR), order.index(Category.STRAIGHT_SUIT)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def hand_names(categories: str = "full", swap_four_and_straight_flush: bool = False):
    """Names of the hands played, lowest first."""
    return tuple(c.name.lower() for c in category_order(categories, swap_four_and_straight_flush))


@total_ordering
@dataclass(frozen=True, eq=False)
class CardHand(KeyOrdered):
    """A hand's value: ``category``, its ``tiebreak`` ranks and ``rank`` (place in the order).

    One object per value of a variant: equal hands get the very same ``CardHand``
    (:attr:`HandEvaluator.values`), so valuing a hand builds nothing. The cards are the
    caller's; the value does not hold them.
    """

    category: Category
    tiebreak: tuple[int, ...]
    rank: int
    # Index of this hand's value among all values of the variant (0 = weakest).
    strength: int = field(compare=False)
    variant: tuple = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.category.name.lower()

    @property
    def key(self) -> tuple[int, ...]:
        return (self.rank, *self.tiebreak)

    @property
    def family(self) -> tuple:
        return self.variant

    def _mismatch(self, other: CardHand) -> str:
        return (
            f"cannot compare hands valued under different rules: {self.variant} and {other.variant}"
        )

    def __repr__(self) -> str:
        return f"CardHand({self.name}, tiebreak={self.tiebreak})"


def natural_value(
    ranks: Sequence[int],
    flush: int,
    low_rank: int,
    place: dict[Category, int],
    ace_low: bool,
) -> tuple[Category, tuple[int, ...]]:
    """Category and tie-break of five jokerless ranks (repeats up to five allowed).

    ``flush`` is the hand's flush class; ``place`` maps each category played
    to its place in the order. The best category the hand holds wins.
    """
    desc = tuple(sorted(ranks, reverse=True))
    counts = Counter(desc)
    groups = sorted(((c, r) for r, c in counts.items()), reverse=True)
    shape = tuple(c for c, _ in groups)
    top = None
    if len(counts) == 5:
        if desc[0] - desc[4] == 4:
            top = desc[0]
        elif ace_low and desc == (14, low_rank + 3, low_rank + 2, low_rank + 1, low_rank):
            top = low_rank + 3
    found: list[tuple[Category, tuple[int, ...]]] = []
    if shape[0] == 5:
        found.append((Category.POKER, (desc[0],)))
    if shape[0] >= 4:
        kicker = tuple(r for r in desc if r != groups[0][1])[:1] or (groups[0][1],)
        found.append((Category.FOUR, (groups[0][1], *kicker)))
    if top is not None:
        found.append((Category.STRAIGHT, (top,)))
        if flush >= COLOUR_FLUSH:
            found.append((Category.STRAIGHT_COLOUR, (top,)))
        if flush == SUIT_FLUSH:
            found.append((Category.STRAIGHT_SUIT, (top,)))
    if flush >= COLOUR_FLUSH:
        found.append((Category.COLOUR, desc))
    if flush == SUIT_FLUSH:
        found.append((Category.SUIT, desc))
    if shape == (3, 2):
        found.append((Category.FULL_HOUSE, (groups[0][1], groups[1][1])))
    if shape[0] == 3:
        t = groups[0][1]
        found.append((Category.THREE, (t, *(r for r in desc if r != t))))
    if shape[:2] == (2, 2):
        hi, lo = groups[0][1], groups[1][1]
        found.append((Category.TWO_PAIRS, (hi, lo, *(r for r in desc if r not in (hi, lo)))))
    if shape[0] == 2:
        p = groups[0][1]
        found.append((Category.PAIR, (p, *(r for r in desc if r != p))))
    found.append((Category.HIGH_CARD, desc))
    return max((f for f in found if f[0] in place), key=lambda f: (place[f[0]], f[1]))


class _DeckPatterns:
    """What every 5-card hand of a deck looks like to the rules: its rank pattern.

    A hand's value depends only on its naturals' ranks, how many jokers it
    holds and its naturals' flush class, so each hand gets a pattern code
    ``digits(ranks descending, jokers as 0) * 3 + flush class``. The codes are
    shared by every variant of the deck; a variant only values the patterns.
    """

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        size = deck.size
        joker = np.array([deck.is_joker(i) for i in range(size)])
        rank = np.array([c.rank for c in deck.cards], dtype=np.int32)
        suit = np.array([c.suit for c in deck.cards], dtype=np.int64)
        self.rank = np.where(joker, 0, rank).astype(np.int32)
        # For the flush test the jokers are neutral: huge as a minimum, tiny as a maximum.
        red = np.isin(suit, (1, 2))
        self._flush_tables = [
            np.where(joker, lo_hi, attr).astype(np.int8)
            for attr in (suit, red)
            for lo_hi in (9, -9)
        ]
        # binom[k][x] = C(x, k): the combination index of sorted a<b<c<d<e is
        # C(a,1) + C(b,2) + C(c,3) + C(d,4) + C(e,5).
        self.binom = np.array([[comb(x, k) for x in range(size)] for k in range(6)], np.int64)
        self.binom_lists = [self.binom[k].tolist() for k in range(6)]
        # Hands in combination-index (colex) order, a chunk per largest card.
        self.codes = np.empty(comb(size, 5), dtype=np.int32)
        four = _colex_combinations(size, 4)
        for e in range(4, size):
            lo, hi = comb(e, 5), comb(e + 1, 5)
            chunk = np.empty((hi - lo, 5), dtype=np.int64)
            chunk[:, :4] = four[: hi - lo]
            chunk[:, 4] = e
            self.codes[lo:hi] = self.pattern_codes(chunk)

    def combo_index(self, sorted_hands: np.ndarray) -> np.ndarray:
        h = sorted_hands.astype(np.int64)
        return sum(self.binom[k + 1][h[:, k]] for k in range(5))

    def pattern_codes(self, hands: np.ndarray) -> np.ndarray:
        # Small integer types keep the one-off pass over millions of hands quick.
        ranks = np.sort(self.rank[hands], axis=1)  # ascending, jokers (0) first
        code = np.zeros(len(hands), dtype=np.int32)
        for k in range(5):  # digits high to low = ranks descending
            code = code * _BASE + ranks[:, 4 - k]
        # Column-wise minima and maxima: much faster than reducing over axis 1.
        s_lo, s_hi, r_lo, r_hi = (t[hands] for t in self._flush_tables)
        for k in range(1, 5):
            np.minimum(s_lo[:, 0], s_lo[:, k], out=s_lo[:, 0])
            np.maximum(s_hi[:, 0], s_hi[:, k], out=s_hi[:, 0])
            np.minimum(r_lo[:, 0], r_lo[:, k], out=r_lo[:, 0])
            np.maximum(r_hi[:, 0], r_hi[:, k], out=r_hi[:, 0])
        same_suit = s_lo[:, 0] == s_hi[:, 0]
        same_colour = r_lo[:, 0] == r_hi[:, 0]
        flush = np.where(same_suit, SUIT_FLUSH, np.where(same_colour, COLOUR_FLUSH, NO_FLUSH))
        return code * 3 + flush.astype(np.int32)


@cache
def _deck_patterns(deck: Deck) -> _DeckPatterns:
    return _DeckPatterns(deck)


class HandEvaluator:
    """Every 5-card hand of one variant's deck, valued once.

    ``strength`` values are dense: 0 is the weakest value, equal hands have
    equal strength, a higher strength wins. Build with :func:`get_evaluator`.
    """

    def __init__(self, variant: tuple) -> None:
        deck_size, joker_card, categories, swap, ace_low = variant
        self.variant = variant
        self.deck: Deck = make_deck(deck_size, joker_card)
        self.order = category_order(categories, swap)
        self._place = place = {c: i for i, c in enumerate(self.order)}
        ranks = list(self.deck.ranks)

        def value(rs: Sequence[int], flush: int) -> int:
            cat, tb = natural_value(rs, flush, self.deck.low_rank, place, ace_low)
            return _score(place[cat], tb)

        # Score of every rank pattern: naturals' ranks (desc, jokers as 0) x flush class.
        flushes = (NO_FLUSH, COLOUR_FLUSH, SUIT_FLUSH)
        natural = {
            rs: tuple(value(rs, f) for f in flushes)
            for rs in combinations_with_replacement(ranks, 5)
        }
        pattern_codes, pattern_scores = [], []
        for n_jokers in range(self.deck.n_jokers + 1):
            extras = list(combinations_with_replacement(ranks, n_jokers))
            for rs in combinations_with_replacement(ranks, 5 - n_jokers):
                if max(Counter(rs).values()) > 4:
                    continue
                # A joker can always join the naturals' suit or colour, so only
                # its rank is a choice: the best completion per flush class.
                completions = [natural[tuple(sorted(rs + extra))] for extra in extras]
                code = _digits(sorted(rs, reverse=True) + [0] * n_jokers) * 3
                for f, best in zip(flushes, map(max, zip(*completions, strict=True)), strict=True):
                    pattern_codes.append(code + f)
                    pattern_scores.append(best)
        scores = np.unique(np.array(pattern_scores, dtype=np.int64))
        lookup = np.full(_BASE**5 * 3, -1, dtype=np.int32)
        pattern_strengths = np.searchsorted(scores, pattern_scores)
        lookup[np.array(pattern_codes)] = pattern_strengths
        # every pattern code that occurs with its strength (evaluate_hand's lookup reads it)
        self.pattern_strengths = dict(zip(pattern_codes, pattern_strengths.tolist(), strict=True))
        self.n_strengths = len(scores)
        self.categories = [self.order[s // _BASE**5] for s in scores.tolist()]
        self.tiebreaks = [_undigits(s % _BASE**5, self.categories[i]) for i, s in enumerate(scores)]
        # the one CardHand of each strength
        self.values = [
            CardHand(cat, tb, place[cat], s, variant)
            for s, (cat, tb) in enumerate(zip(self.categories, self.tiebreaks, strict=True))
        ]

        self._patterns = patterns = _deck_patterns(self.deck)
        self._binom_lists = patterns.binom_lists
        table = lookup[patterns.codes]
        assert (table >= 0).all(), "a hand pattern is missing from the table"
        self.table = table
        self._table_array = array("i", table.tobytes())
        counts = np.bincount(table, minlength=self.n_strengths).astype(np.float64)
        below = np.concatenate([[0.0], np.cumsum(counts)[:-1]])
        # P(a random hand of the deck is weaker) + half P(equal)
        self.percentile = (below + counts / 2) / counts.sum()
        self.hand_counts = counts.astype(np.int64)

    # -- public ----------------------------------------------------------------
    def strength(self, hand: Iterable[int]) -> int:
        """Strength of one hand given as 5 distinct deck indices (any order, not checked)."""
        a, b, c, d, e = sorted(hand)
        bl = self._binom_lists
        return self._table_array[bl[1][a] + bl[2][b] + bl[3][c] + bl[4][d] + bl[5][e]]

    def strengths(self, hands: np.ndarray) -> np.ndarray:
        """Strengths of an ``(n, 5)`` array of hands (deck indices, rows in any order)."""
        hands = np.sort(np.asarray(hands), axis=1)
        return self.table[self._patterns.combo_index(hands)]

    @property
    def binom(self) -> np.ndarray:
        """``binom[k][x] = C(x, k)`` (k = 0..5): a sorted hand ``a < b < c < d < e`` is row
        ``C(a,1) + C(b,2) + C(c,3) + C(d,4) + C(e,5)`` of :attr:`table`."""
        return self._patterns.binom

    def describe(self, strength: int) -> tuple[Category, tuple[int, ...]]:
        return self.categories[strength], self.tiebreaks[strength]

    def hand(self, indices: Sequence[int]) -> CardHand:
        """The value of one hand given as 5 distinct deck indices (not checked)."""
        return self.values[self.strength(indices)]

    @cached_property
    def lookup(self) -> _Lookup:
        """What :func:`evaluate_hand` reads for this variant (built on first use)."""
        return _Lookup(self)

    @cached_property
    def sums(self) -> HandSums:
        """Hands as sums of per-card integers (:class:`HandSums`, built on first use)."""
        return HandSums(self)

    def __getstate__(self) -> dict:
        # the lookup's bound evaluator is a closure, which pickle cannot write: a copy
        # (a pickled env's game holds its evaluator) builds its own on first use
        state = self.__dict__.copy()
        state.pop("lookup", None)
        return state


def _colex_combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n), sorted within rows, in combination-index order."""
    rows = np.arange(n, dtype=np.int64).reshape(-1, 1)
    for j in range(2, k + 1):
        parts = []
        for e in range(j - 1, n):
            head = rows[: comb(e, j - 1)]
            parts.append(np.hstack([head, np.full((len(head), 1), e, dtype=np.int64)]))
        rows = np.vstack(parts)
    return rows


def _digits(values: Sequence[int]) -> int:
    out = 0
    for v in values:
        out = out * _BASE + v
    return out


def _score(place: int, tiebreak: Sequence[int]) -> int:
    padded = list(tiebreak) + [0] * (5 - len(tiebreak))
    return place * _BASE**5 + _digits(padded)


_TIEBREAK_LEN = {
    Category.HIGH_CARD: 5,
    Category.PAIR: 4,
    Category.TWO_PAIRS: 3,
    Category.THREE: 3,
    Category.FULL_HOUSE: 2,
    Category.COLOUR: 5,
    Category.SUIT: 5,
    Category.STRAIGHT: 1,
    Category.STRAIGHT_COLOUR: 1,
    Category.STRAIGHT_SUIT: 1,
    Category.FOUR: 2,
    Category.POKER: 1,
}


def _undigits(code: int, category: Category) -> tuple[int, ...]:
    digits = []
    for _ in range(5):
        code, d = divmod(int(code), _BASE)
        digits.append(d)
    return tuple(reversed(digits))[: _TIEBREAK_LEN[category]]


def get_evaluator(**variant) -> HandEvaluator:
    """The (cached) evaluator of a variant; see the module docstring for the options."""
    return _evaluator(check_variant(**variant))


@cache
def _evaluator(variant: tuple) -> HandEvaluator:
    return HandEvaluator(variant)


# The prime of each rank for evaluate_hand's rank products: a joker 2, rank r (2..14) the
# (r - 1)-th prime after it. Five of them multiply to under 2**30, a one-digit Python int.
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43)
# a card's flush bits: one per suit (bits 0-3), one per colour (4 black, 5 red); a joker all
_SUIT_BITS, _COLOUR_BITS, _JOKER_FLUSH_BITS = 0x0F, 0x30, 0x3F


class _Lookup:
    """What the lookup of five :class:`Card` values reads for one variant: Python ints,
    tuples and dicts, and the variant's bound evaluator, :attr:`evaluate`.

    Each card of the deck is three small ints, ``cards[card]``: the prime of its rank
    (:data:`_PRIMES`), its flush bits and its bit ``1 << deck index``. Over five cards,
    without sorting: the product of the primes is the hand's rank multiset with its jokers,
    the AND of the flush bits its naturals' flush class (jokers neutral, as in
    :class:`_DeckPatterns`; ``flush`` reads it) and the OR of the card bits has five bits
    set iff the cards are distinct (the 54-card deck's two ``X`` are one card value with the
    first joker's bit: four bits and a product with two factors 2). ``by_flush[flush
    class][product]`` is the hand's :class:`CardHand`, from the evaluator's own strength of
    every rank pattern (:attr:`HandEvaluator.pattern_strengths`): one dict per flush class,
    not a list per product, so that a lookup touches one object fewer (on the 54-card
    deck's 8,450 products a cache miss fewer).
    """

    def __init__(self, ev: HandEvaluator) -> None:
        self.evaluator = ev
        deck = ev.deck

        def ints(i: int) -> tuple[int, int, int]:
            card = deck.cards[i]
            if deck.is_joker(i):
                return _PRIMES[0], _JOKER_FLUSH_BITS, 1 << i
            red = card.suit in RED_SUITS
            return _PRIMES[card.rank - 1], 1 << card.suit | 1 << (4 + red), 1 << i

        # a card -> its ints, numbered as Deck.indices numbers it: X is the first joker
        self.cards = {card: ints(i) for i, card in enumerate(deck.cards) if card != JOKER}
        if deck.joker_indices:
            self.cards[JOKER] = ints(min(deck.joker_indices))
        by_flush: tuple[dict[int, CardHand], ...] = ({}, {}, {})
        # the commonest patterns first, so that their entries (and key ints) lie together
        codes, counts = np.unique(ev._patterns.codes, return_counts=True)
        hands = dict(zip(codes.tolist(), counts.tolist(), strict=True))
        for code in sorted(ev.pattern_strengths, key=lambda c: -hands.get(c, 0)):
            s = ev.pattern_strengths[code]
            digits, flush = divmod(code, 3)
            product = 1
            for _ in range(5):
                digits, r = divmod(digits, _BASE)
                product *= _PRIMES[r - 1 if r else 0]  # rank r, or a joker (0)
            by_flush[flush][product] = ev.values[s]
        self.by_flush = by_flush
        self.flush = [
            SUIT_FLUSH if bits & _SUIT_BITS else COLOUR_FLUSH if bits & _COLOUR_BITS else NO_FLUSH
            for bits in range(_JOKER_FLUSH_BITS + 1)
        ]
        self.evaluate = _bind(self.cards, self.flush, by_flush, self._general)

    def _general(self, cards, unpacked: list | None = None) -> CardHand:
        """The value of what the lookup did not take (strings, a card not of the deck, a
        repeat, which raise as :meth:`Deck.indices` says), and of two ``X``."""
        if unpacked is not None and iter(cards) is cards:  # an iterator the unpacking read
            cards = unpacked
        cards = parse_cards(cards)
        if len(cards) != 5:
            raise ValueError(f"a hand is five cards, got {len(cards)}: {' '.join(map(str, cards))}")
        ev = self.evaluator
        return ev.values[ev.strength(ev.deck.indices(cards))]


# HandSums' word, low bits first: the rank-count code of the low half of the symbols (base 5,
# a digit per symbol), the flush code (the count of each suit, a joker counting in each,
# base 6; then the jokers), the rank-count code of the high half
_HALF_BITS = 17  # 5**7 < 2**17: a half holds up to 7 symbols (14 on the 54-card deck)
_FLUSH_SHIFT = _HALF_BITS
_FLUSH_CODES = 6**4 * 3  # four suit counts 0..5, up to two jokers
_HIGH_SHIFT = _FLUSH_SHIFT + _FLUSH_CODES.bit_length()


def _most(symbols: tuple) -> int:
    return max(Counter(symbols).values(), default=0)


class HandSums:
    """Every 5-card hand of one variant as the sum of its cards' integers (``words``).

    Many hands that share cards are valued by adding: the careful player's draw values
    each exchange as the word sum of the cards it keeps plus the sum of its replacements,
    with no sort and no combination index. A word holds the hand's rank multiset with its
    jokers (one base-5 digit per symbol, the joker and each natural rank, in two halves of
    at most seven symbols) and its flush code (a base-6 count per suit, a joker counting in
    every suit, and the jokers). The sum of five distinct cards' words is the hand's
    total; :meth:`index` maps totals to rows of :attr:`percentile` and :attr:`strength`,
    read from the evaluator's own strength of every rank pattern (the
    :class:`_Lookup`'s ``by_flush``), so the sums value every hand as the table does.
    """

    def __init__(self, ev: HandEvaluator) -> None:
        deck = ev.deck
        ranks = list(deck.ranks)
        n_symbols = len(ranks) + 1  # 0 the joker, then the natural ranks low to high
        half = (n_symbols + 1) // 2
        if 5**half >= 1 << _HALF_BITS:
            raise AssertionError(f"{n_symbols} symbols do not fit the word's halves")

        def digit(symbol: int) -> int:
            return 5**symbol if symbol < half else 5 ** (symbol - half) << _HIGH_SHIFT

        def word(i: int) -> int:
            if deck.is_joker(i):
                return digit(0) + (1 + 6 + 36 + 216 + 6**4 << _FLUSH_SHIFT)
            card = deck.cards[i]
            return digit(ranks.index(card.rank) + 1) + (6**card.suit << _FLUSH_SHIFT)

        self.words = np.array([word(i) for i in range(deck.size)], dtype=np.int64)
        # dense rows: every rank multiset of five symbols (a natural at most four times) is
        # row lo_row[its low half's code] + hi_row[its high half's code]; the sizes of the
        # halves add up to five, so the low half picks a block per size
        halves = [range(half), range(half, n_symbols)]
        subsets = [
            [
                [m for m in combinations_with_replacement(symbols, size) if _most(m) < 5]
                for size in range(6)
            ]
            for symbols in halves
        ]
        lo_row = np.zeros(5**half, dtype=np.int64)
        hi_row = np.zeros(5 ** (n_symbols - half), dtype=np.int64)
        multisets = []
        for size in range(6):
            highs = subsets[1][5 - size]
            for low in subsets[0][size]:
                lo_row[sum(digit(s) for s in low)] = len(multisets)
                multisets += [low + high for high in highs]
        for size in range(6):
            for j, high in enumerate(subsets[1][size]):
                hi_row[sum(digit(s) for s in high) >> _HIGH_SHIFT] = j
        # three rows a multiset, one per flush class: SUIT_FLUSH when a suit counts five,
        # else COLOUR_FLUSH when the suits of one colour do (jokers counted once)
        self._lo_row, self._hi_row = 3 * lo_row, 3 * hi_row
        flush = np.zeros(_FLUSH_CODES, dtype=np.int64)
        for code in range(_FLUSH_CODES):
            counts = [code // 6**k % 6 for k in range(4)]
            jokers = code // 6**4
            if 5 in counts:
                flush[code] = SUIT_FLUSH
            elif 5 in (counts[0] + counts[3] - jokers, counts[1] + counts[2] - jokers):
                flush[code] = COLOUR_FLUSH
        self._flush = flush
        strength = np.full(3 * len(multisets), -1, dtype=np.int64)
        primes = [_PRIMES[0]] + [_PRIMES[r - 1] for r in ranks]
        by_flush = ev.lookup.by_flush
        for row, symbols in enumerate(multisets):
            product = 1
            for s in symbols:
                product *= primes[s]
            for f in (NO_FLUSH, COLOUR_FLUSH, SUIT_FLUSH):
                hand = by_flush[f].get(product)
                if hand is not None:
                    strength[3 * row + f] = hand.strength
        #: per row, the hand's strength (-1: no hand has that rank multiset and flush class)
        self.strength = strength
        #: per row, the hand's percentile (:attr:`HandEvaluator.percentile`; NaN: no hand)
        self.percentile = np.where(strength >= 0, ev.percentile[strength], np.nan)

    def index(self, totals: np.ndarray) -> np.ndarray:
        """Rows of :attr:`strength` and :attr:`percentile` of hand totals (int64)."""
        row = self._lo_row.take(totals & ((1 << _HALF_BITS) - 1))
        row += self._hi_row.take(totals >> _HIGH_SHIFT)
        row += self._flush.take((totals >> _FLUSH_SHIFT) & ((1 << _FLUSH_CODES.bit_length()) - 1))
        return row

    def total(self, hand: Iterable[int]) -> int:
        """The total of one hand given as deck indices."""
        return sum(int(self.words[i]) for i in hand)


def _bind(ints: dict, flush: list, by_flush: tuple, general: Callable) -> Callable:
    """The evaluator of one variant as a function of the cards alone (:class:`_Lookup`)."""

    def evaluate(cards: Iterable[str | Card]) -> CardHand:
        try:
            c0, c1, c2, c3, c4 = cards
        except (TypeError, ValueError):
            if iter(cards) is cards:  # an iterator of more or fewer than five, now read
                raise ValueError(
                    "a hand is five cards, got an iterator of another length"
                ) from None
            return general(cards)
        try:
            p0, f0, b0 = ints[c0]
            p1, f1, b1 = ints[c1]
            p2, f2, b2 = ints[c2]
            p3, f3, b3 = ints[c3]
            p4, f4, b4 = ints[c4]
            if (b0 | b1 | b2 | b3 | b4).bit_count() == 5:
                return by_flush[flush[f0 & f1 & f2 & f3 & f4]][p0 * p1 * p2 * p3 * p4]
            product = p0 * p1 * p2 * p3 * p4
            if (b0 | b1 | b2 | b3 | b4).bit_count() == 4 and not product & 3:  # X X: 4 bits
                return by_flush[flush[f0 & f1 & f2 & f3 & f4]][product]
        except (KeyError, TypeError):  # not a card of the deck, or more jokers than it has
            pass
        return general(cards, [c0, c1, c2, c3, c4])

    return evaluate


# Each spelling of the options -> its variant's bound evaluator (_lookup)
_BOUND: dict[tuple, Callable] = {}
# the default options (check_variant's), as evaluate_hand's defaults
_DECK, _JOKER_CARD, _CATEGORIES, _SWAP, _ACE_LOW = check_variant.__defaults__
_SMALL_DECK, _LARGE_DECK = DECK_SIZES


def _lookup(options: tuple) -> _Lookup:
    """The lookup of these options (in :data:`HAND_OPTIONS` order)."""
    return _evaluator(check_variant(*options)).lookup


def hand_evaluator(**variant) -> Callable[[Iterable[str | Card]], CardHand]:
    """``evaluate_hand`` of one variant, bound once: ``value = hand_evaluator(deck=54)``, then
    ``value(cards)`` is ``evaluate_hand(cards, deck=54)`` without reading the options on each
    call (the quick way to value many hands of a variant other than the default)."""
    return _lookup(check_variant(**variant)).evaluate


def evaluate_hand(
    cards: str | Iterable[str | Card],
    deck: int = _DECK,
    joker_card: str | None = _JOKER_CARD,
    categories: str = _CATEGORIES,
    swap_four_and_straight_flush: bool = _SWAP,
    ace_low_straight: bool = _ACE_LOW,
) -> CardHand:
    """Value five cards: ``evaluate_hand(parse_cards("AS AH X KD 9C"))`` is three aces.

    ``cards`` may be a string, card strings or :class:`Card` values; ``X`` is a
    joker (in the 36-card deck the joker card itself, e.g. ``6S``, plays the
    joker too). The options, given by keyword, are those of :func:`check_variant`
    (module docstring). Raises ``ValueError`` for anything but five distinct cards of
    the variant's deck. Equal hands of one variant return the same :class:`CardHand`.
    Many hands of one variant: :func:`hand_evaluator` binds the options once.
    """
    # Plain parameters, not keyword-only ones: Python fills their defaults from a tuple,
    # keyword-only defaults by a dict lookup each. The defaults are passed as the very
    # default objects, and 36 and 54 are CPython's cached small ints: one identity test
    # each (36.0, True or a NumPy int are not them and take the checked way below).
    if (
        joker_card is _JOKER_CARD
        and categories is _CATEGORIES
        and swap_four_and_straight_flush is _SWAP
        and ace_low_straight is _ACE_LOW
        and (deck is _SMALL_DECK or deck is _LARGE_DECK)
    ):
        evaluate = _DEFAULT_BOUND.get(deck)
        if evaluate is None:
            evaluate = _DEFAULT_BOUND[deck] = _lookup(
                (deck, _JOKER_CARD, _CATEGORIES, _SWAP, _ACE_LOW)
            ).evaluate
        return evaluate(cards)
    options = (deck, joker_card, categories, swap_four_and_straight_flush, ace_low_straight)
    # keyed with the types of the numbers and flags too, so that deck=36.0 or
    # ace_low_straight=1 (equal to valid values) still raise
    key = (*options, type(deck), type(swap_four_and_straight_flush), type(ace_low_straight))
    evaluate = _BOUND.get(key)
    if evaluate is None:
        evaluate = _BOUND[key] = _lookup(options).evaluate
    return evaluate(cards)


# the bound evaluators of the two decks with the other options at their defaults
_DEFAULT_BOUND: dict[int, Callable] = {}
