"""Gymnasium environment ``CardPoker-v0``: card poker on 36 or 54 cards with jokers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import numpy as np
from gymnasium import spaces

from agents import Agent
from envs.rules.card_hands import Category
from envs.rules.card_poker import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_DISCARDS,
    CardPokerGame,
    CardPokerMatch,
    CardPokerRules,
    Phase,
)
from envs.rules.cards import make_deck
from envs.spaces import LegalDiscrete
from envs.table import TableEnv

RULE_KWARGS = tuple(f.name for f in fields(CardPokerRules))


def deck_size(deck: int = 36, joker_card: str | None = "6S") -> int:
    """Cards in the deck of these rules (54, 52 without jokers, or 36)."""
    return make_deck(deck, joker_card).size


# (name, length, low, high) of each slice of the observation, in order.
def _obs_layout(n_cards: int, n_players: int) -> list[tuple[str, int, float, float]]:
    inf = np.inf
    n = n_players
    return [
        ("cards", n_cards, 0, 1),
        ("phase", 3, 0, 1),
        ("hand_rank", 1, 0, len(Category) - 1),
        ("hand_strength", 1, 0, 1),
        ("pot", 1, 0, inf),
        ("bid", 1, 0, inf),
        ("reveal_cost", 1, 0, inf),
        ("bids", 1, 0, inf),
        ("bids_left", 1, 0, inf),
        ("position", 1, 0, MAX_PLAYERS - 1),
        ("deals_left", 1, 0, inf),
        ("net", 1, -inf, inf),
        ("stacks", n, 0, inf),
        ("drawn", n, -1, HAND_SIZE),
        ("in", n, 0, 1),
        ("bids_by", n, 0, inf),
        ("bid_chips", n, 0, inf),
    ]


def obs_fields(n_cards: int, n_players: int) -> list[tuple[str, int]]:
    """The observation's named slices, in order, as (name, length)."""
    return [(name, k) for name, k, _, _ in _obs_layout(n_cards, n_players)]


def obs_size(n_cards: int, n_players: int) -> int:
    return sum(k for _, k in obs_fields(n_cards, n_players))


def obs_space(n_cards: int, n_players: int) -> spaces.Box:
    """The observation space, with each field's bounds."""
    layout = _obs_layout(n_cards, n_players)
    low = np.concatenate([[lo] * k for _, k, lo, _ in layout]).astype(np.float32)
    high = np.concatenate([[hi] * k for _, k, _, hi in layout]).astype(np.float32)
    return spaces.Box(low, high, dtype=np.float32)


def observe(game: CardPokerGame, seat: int, deals_left: int = 0, net: float = 0.0) -> np.ndarray:
    """What ``seat`` knows of ``game``; per-player fields start at ``seat``, then to its left."""
    n = game.n_players
    ev = game.evaluator
    cards = np.zeros(game.deck.size, dtype=np.float32)
    cards[list(game.hands[seat])] = 1.0
    phase = [0.0, 0.0, 0.0]
    phase[int(game.phase)] = 1.0
    strength = ev.strength(game.hands[seat])
    seats = [(seat + k) % n for k in range(n)]
    vec = [
        cards,
        phase,
        [ev.order.index(ev.categories[strength]), ev.percentile[strength]],
        [
            game.pot,
            game.level,
            game.reveal_cost,
            game.n_bids,
            game.bids_left,
            game.position(seat),
            deals_left,
            net,
        ],
        [game.stacks[s] for s in seats],
        [game.drawn[s] for s in seats],
        [float(game.in_play[s]) for s in seats],
        [game.bids_made[s] for s in seats],
        [game.bid_chips[s] for s in seats],
    ]
    return np.concatenate([np.asarray(v, dtype=np.float32) for v in vec])


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
    out: dict[str, np.ndarray | float] = {}
    i = 0
    for name, length in obs_fields(n_cards, n_players):
        part = obs[i : i + length]
        out[name] = float(part[0]) if length == 1 and name != "cards" else part.copy()
        i += length
    out["n_players"] = float(n_players)
    return out


def render_game(game: CardPokerGame, labels: dict[int, str], viewer: int | None) -> str:
    """A text table of one deal; only ``viewer``'s cards show before a showdown."""
    deck = game.deck
    shown = game.showdown.hands if game.showdown else {}
    lines = [
        f"pot {game.pot}  bid {game.level}  bids {game.n_bids}/{game.rules.max_bids}  "
        f"phase {game.phase.name.lower()}"
    ]
    for seat in game.order:
        if seat == viewer or seat in shown or viewer is None:
            cards = " ".join(f"{deck.label(c):<3}" for c in game.hands[seat])
            hand = game.hand(seat).name
        else:
            cards, hand = " ".join(["?? "] * HAND_SIZE), ""
        drew = "-" if game.drawn[seat] < 0 else str(game.drawn[seat])
        status = "in " if game.in_play[seat] else "out"
        mark = ""
        if game.showdown and seat in game.showdown.won:
            mark = f" <- wins {game.showdown.won[seat]}" + ("" if shown else " unseen")
        elif seat == game.current_player:
            mark = " <- to act"
        lines.append(
            f"  seat {seat} {labels.get(seat, ''):<10} stack {game.stacks[seat]:>4}  drew {drew}  "
            f"{status} bids {game.bids_made[seat]} ({game.bid_chips[seat]:>2})  "
            f"{cards} {hand}{mark}"
        )
    if game.events:
        log = "; ".join(f"{e.seat}: {e.text}" for e in game.events[-2 * game.n_players :])
        lines.append(f"  last actions: {log}")
    return "\n".join(lines)


class CardPokerEnv(TableEnv):
    """
    ## Description

    Card poker from the Russian "commercial games" (RULES.md section 3), one
    learning player against opponents that are Agents. A 36-card deck (6 to
    A; the six of spades plays the joker) or 54 cards (2 to A and two
    jokers); a joker takes whatever value makes the best hand. Each deal:
    everyone antes and gets five cards; once, in turn order, each player may
    exchange 0-5 cards (paying ``draw_fee`` per card); then in turn order each
    player still in passes (folds), bids at least the previous bid (each bid
    is paid into the pot), or pays the previous bid to reveal: everyone still
    in shows and the best hand takes the pot (equal best hands split it).
    When everyone else has passed, the last player takes the pot unseen. No
    credit: nobody may take an action they cannot pay for.

    ## Action Space

    ``LegalDiscrete(34 + max_bid - min_bid + 1)`` (42 by default) with a mask:

    | action | meaning |
    |---|---|
    | 0-31 | draw phase: the bit set of cards to exchange (bit ``i`` = ``i``-th own card) |
    | 32 | pass (fold) |
    | 33 | reveal: pay the previous bid (``min_bid`` if none) and show down |
    | 34 + k | bid ``min_bid + k`` chips |

    Own cards are numbered in deck-index order, the order of ``cards`` below.
    :meth:`action_masks` (and ``info["action_mask"]``) allows what the phase,
    the bid level, ``max_bids`` and the player's stack permit. An illegal
    action raises ``ValueError`` and changes nothing.

    ## Observation Space

    A flat ``Box(float32)`` of ``D + 13 + 5n`` values for a ``D``-card deck
    and ``n`` players (64 for 36 cards and 3 players). Per-player fields list
    you first, then the seats to your left in order.

    | index (36 cards) | field | meaning |
    |---|---|---|
    | 0-35 | cards | own hand, one-hot over the deck (see below) |
    | 36-38 | phase | one-hot: draw, bet, over |
    | 39 | hand_rank | own hand's category, its place in the variant's order (0 = high card) |
    | 40 | hand_strength | share of all 5-card hands of the deck it beats (ties count half) |
    | 41 | pot | chips in the pot |
    | 42 | bid | the previous bid, 0 while nobody has bid |
    | 43 | reveal_cost | what revealing costs now |
    | 44 | bids | bids made this deal, all players |
    | 45 | bids_left | bids still allowed (``max_bids`` - bids) |
    | 46 | position | your place in this deal's order (0 = first to draw and bid) |
    | 47 | deals_left | deals still possible after this one (session) |
    | 48 | net | your net chips from finished deals of this episode |
    | 49 + | stacks (n) | chips in hand of each player |
    | … | drawn (n) | cards each player exchanged, -1 before their draw |
    | … | in (n) | 1 while the player has not passed |
    | … | bids_by (n) | bids each player made this deal |
    | … | bid_chips (n) | chips each player bid this deal |

    Deck index = (rank - 6) * 4 + suit for 36 cards, (rank - 2) * 4 + suit
    for 54 with the jokers at 52 and 53; suits S H D C = 0 1 2 3, ranks
    J Q K A = 11 12 13 14. :func:`decode_observation` splits a vector into
    these fields.

    ## Rewards

    Net chips of each deal for the learning player (final stack minus stack
    before the ante), paid when the deal ends; zero on other steps. Over an
    episode the rewards add up to the chips won or lost.

    ## Episode End

    ``episode="deal"``: when the deal ends. ``episode="session"``: when a
    player cannot pay the next ante (or holds no chips), or after
    ``max_deals`` deals. Never truncated.

    ## Arguments

    - ``n_players`` (3): 2-6 players.
    - ``opponents`` ("heuristic"): an agent spec or Agent for every opponent,
      or a list of ``n_players - 1`` of them in seat order skipping yours.
    - ``agent_seat`` ("random"): your seat, or ``"random"`` for a new one each episode.
    - ``episode`` ("deal"): ``"deal"`` or ``"session"``; ``max_deals`` (100) caps a session.
    - Rules: ``deck`` (36 | 54), ``joker_card`` ("6S" | another card of the
      36-card deck | None), ``categories`` ("full" | "short"),
      ``swap_four_and_straight_flush`` (False), ``ace_low_straight`` (False),
      ``stack`` (100), ``ante`` (1), ``draw_fee`` (0), ``min_bid`` (1),
      ``max_bid`` (8), ``max_bids`` (12).
    - ``render_mode``: ``"ansi"`` returns the table as text, ``"human"`` prints it,
      ``"rgb_array"`` returns it as a picture (H×W×3 uint8, one size per player count).

    ## Version History

    - v0: first version.
    """

    def __init__(
        self,
        n_players: int = 3,
        opponents: str | Agent | Sequence[str | Agent] = "heuristic",
        agent_seat: int | str = "random",
        episode: str = "deal",
        max_deals: int = 100,
        render_mode: str | None = None,
        **rules,
    ) -> None:
        unknown = sorted(set(rules) - set(RULE_KWARGS))
        if unknown:
            raise TypeError(
                f"unknown argument(s) {unknown} for CardPokerEnv; rule options are {RULE_KWARGS}"
            )
        self.rules = CardPokerRules(**rules)
        self._setup_table("card_poker", n_players, opponents, agent_seat, rules)
        if episode not in ("deal", "session"):
            raise ValueError(f"episode must be 'deal' or 'session', got {episode!r}")
        if not isinstance(max_deals, int) or max_deals < 1:
            raise ValueError(f"max_deals must be a whole number >= 1, got {max_deals!r}")
        self._check_render_mode(render_mode)
        self.episode = episode
        self.max_deals = max_deals
        self.n_cards = self.rules.deck_cards.size
        self.action_space = LegalDiscrete(self.rules.n_actions, self._sample_mask)
        self.observation_space = obs_space(self.n_cards, n_players)
        self.match: CardPokerMatch | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"CardPokerEnv.reset takes no options, got {options!r}")
        self._seat_players(self.np_random)
        self.match = CardPokerMatch(
            self.n_players, self.np_random, self.rules, self.episode, self.max_deals
        )
        reward = self._advance()
        assert reward == 0, "the learning player draws in every deal"
        return self._observe(self.agent_seat), self._info()

    def _sample_mask(self) -> np.ndarray:
        """What ``action_space.sample()`` draws from: the legal actions, or between
        episodes those of the draw that opens the next one (checkers sample
        an action before they reset)."""
        if self.match is not None and not self.match.done:
            return self.match.game.action_mask()
        r = self.rules
        mask = np.zeros(r.n_actions, dtype=bool)
        mask[[a for a in range(N_DISCARDS) if r.draw_fee * a.bit_count() <= r.stack - r.ante]] = 1
        return mask

    def render_text(self) -> str:
        if self.match is None:
            return "(not started: call reset())"
        m = self.match
        labels = self._labels()
        deal_no = m.deals_played + (0 if m.game.done else 1)
        r = self.rules
        joker = "two jokers" if r.deck == 54 else f"joker {r.joker_card}"
        header = (
            f"Card poker, {r.deck} cards ({joker if r.joker_card else 'no joker'}), "
            f"{self.n_players} players, deal {deal_no}/{m.max_deals}; net chips "
            + ", ".join(f"{labels[s]} {c:+d}" for s, c in enumerate(m.net))
        )
        parts = [header]
        if m.previous is not None and not m.game.events:
            parts += ["last deal:", render_game(m.previous, labels, self.agent_seat)]
            parts.append("this deal:")
        parts.append(render_game(m.game, labels, self.agent_seat))
        return "\n".join(parts)

    def render_rgb(self) -> np.ndarray:
        from envs.render import draw_card_poker  # Pillow is loaded only when a frame is asked for

        if self.match is None:
            raise RuntimeError("call reset() before render()")
        return draw_card_poker(self.match, self._labels(), self.agent_seat)

    def _observe(self, seat: int) -> np.ndarray:
        m = self.match
        return observe(m.game, seat, m.deals_left, m.net[seat])

    def _info(self) -> dict:
        m = self.match
        info = {
            "action_mask": self.action_masks(),
            "seat": self.agent_seat,
            "net": m.net[self.agent_seat],
            "phase": m.game.phase.name.lower(),
        }
        if m.done:
            info["winners"] = list(m.game.showdown.winners)
        return info


__all__ = ["CardPokerEnv", "Phase", "decode_observation", "deck_size", "obs_size", "observe"]
