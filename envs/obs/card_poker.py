"""What a seat of card poker sees, as numbers (``CardPoker-v0``, ``card_poker_v0``).

A flat float32 vector of ``D + 13 + 5n`` values for a ``D``-card deck and
``n`` players (64 for 36 cards and 3 players). Per-player fields list you
first, then the seats to your left in order. The fields of :func:`layout` define
it (36 cards, 3 players):

{index_table}

Deck index = (rank - 6) * 4 + suit for 36 cards, (rank - 2) * 4 + suit for 54
with the jokers at 52 and 53; suits S H D C = 0 1 2 3, ranks J Q K A = 11 12 13 14.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.obs.layout import Field, Layout
from envs.rules.card_hands import Category
from envs.rules.card_poker import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, CardPokerGame
from envs.rules.cards import make_deck


def deck_size(deck: int = 36, joker_card: str | None = "6S") -> int:
    """Cards in the deck of these rules (54, 52 without jokers, or 36)."""
    return make_deck(deck, joker_card).size


@cache
def layout(n_cards: int, n_players: int) -> Layout:
    """The observation layout for a deck of ``n_cards`` cards and ``n_players`` players
    (``n_players=0`` gives the fixed part only, used to read the count from a length; the
    table's default count is the registry's, ``envs.games``' ``default_players``)."""
    inf = np.inf
    n = n_players
    out = Layout(
        [
            Field("cards", n_cards, 0, 1, "own hand, one-hot over the deck (deck index below)"),
            Field("phase", 3, 0, 1, "one-hot: draw, bet, over"),
            Field(
                "hand_rank",
                None,
                0,
                len(Category) - 1,
                "own hand's category, its place in the variant's order (0 = high card)",
            ),
            Field(
                "hand_strength",
                None,
                0,
                1,
                "share of all 5-card hands of the deck it beats (ties count half)",
            ),
            Field("pot", None, 0, inf, "chips in the pot"),
            Field("bid", None, 0, inf, "the previous bid, 0 while nobody has bid"),
            Field("reveal_cost", None, 0, inf, "what revealing costs now"),
            Field("bids", None, 0, inf, "bids made this deal, all players"),
            Field("bids_left", None, 0, inf, "bids still allowed (``max_bids`` - bids)"),
            Field(
                "position",
                None,
                0,
                MAX_PLAYERS - 1,
                "your place in this deal's order (0 = first to draw and bid)",
            ),
            Field("deals_left", None, 0, inf, "deals still possible after this one (session)"),
            Field("net", None, -inf, inf, "your net chips from finished deals of this episode"),
            Field("stacks", n, 0, inf, "chips in hand of each player"),
            Field("drawn", n, -1, HAND_SIZE, "cards each player exchanged, -1 before their draw"),
            Field("in", n, 0, 1, "1 while the player has not passed"),
            Field("bids_by", n, 0, inf, "bids each player made this deal"),
            Field("bid_chips", n, 0, inf, "chips each player bid this deal"),
        ],
        what=f"card poker with {n_cards} cards and {n_players} players",
    )
    if out.names != _ORDER:
        raise AssertionError(f"observe writes the fields {_ORDER}, the layout has {out.names}")
    return out


# the order observe writes the fields in
_ORDER = (
    "cards",
    "phase",
    "hand_rank",
    "hand_strength",
    "pot",
    "bid",
    "reveal_cost",
    "bids",
    "bids_left",
    "position",
    "deals_left",
    "net",
    "stacks",
    "drawn",
    "in",
    "bids_by",
    "bid_chips",
)


def obs_fields(n_cards: int, n_players: int) -> list[tuple[str, int]]:
    """The observation's named slices, in order, as (name, length)."""
    return [(f.name, f.width) for f in layout(n_cards, n_players).fields]


def obs_size(n_cards: int, n_players: int) -> int:
    return layout(n_cards, n_players).size


def obs_space(n_cards: int, n_players: int):
    """The observation space (a ``gymnasium.spaces.Box``), with each field's bounds."""
    return layout(n_cards, n_players).box()


@cache
def _strength_fields(ev) -> list[tuple[int, float]]:
    """Per strength of the evaluator ``ev``: the observation's ``hand_rank`` and
    ``hand_strength`` (the category's place in the variant's order, the percentile)."""
    return [(ev._place[ev.categories[s]], float(ev.percentile[s])) for s in range(ev.n_strengths)]


_PHASES = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])  # one-hot by Phase


def observe(game: CardPokerGame, seat: int, deals_left: int = 0, net: float = 0.0) -> np.ndarray:
    """What ``seat`` knows of ``game``; per-player fields start at ``seat``, then to its left."""
    ev = game.evaluator
    hand = game.hands[seat]
    cards = [0.0] * game.deck.size  # plain values: the layout encodes them in one go
    for i in hand:
        cards[i] = 1.0
    place, percentile = _strength_fields(ev)[ev.strength(hand)]
    # the fields in layout order as one list (layout() checks the order)
    flat = (
        cards
        + _PHASES[game.phase]
        + [
            place,
            percentile,
            game.pot,
            game.level,
            game.reveal_cost,
            game.n_bids,
            game.bids_left,
            game.position(seat),
            deals_left,
            net,
        ]
    )
    # per-player fields from the seat on: each list rotated to start there
    for values in (game.stacks, game.drawn, game.in_play, game.bids_made, game.bid_chips):
        flat += values[seat:]
        flat += values[:seat]
    return np.array(flat, dtype=np.float32)


def decode_observation(obs: np.ndarray, n_cards: int = 36) -> dict[str, np.ndarray | float]:
    """Split an observation into its named fields (scalars as floats).

    ``n_cards`` is the deck's size (36, 54, or 52 for 54 cards without
    jokers); the number of players follows from the length.
    """
    obs = np.asarray(obs)
    rest = obs.shape[0] - obs_size(n_cards, 0) if obs.ndim == 1 else -1
    n_players, odd = divmod(rest, 5)
    if obs.ndim != 1 or odd or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise ValueError(f"not a card poker observation for a {n_cards}-card deck: {obs.shape}")
    out = layout(n_cards, n_players).decode(obs)
    out["n_players"] = float(n_players)
    return out


__doc__ = layout(36, 3).document(__doc__)
