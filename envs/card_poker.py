"""Gymnasium environment ``CardPoker-v0``: card poker on 36 or 54 cards with jokers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from envs import games
from envs.obs.card_poker import (
    deck_size,
    decode_observation,
    obs_fields,
    obs_size,
    obs_space,
    observe,
)
from envs.obs.card_poker import layout as obs_layout
from envs.render.text import render_card_poker as render_game  # the old name
from envs.rules.card_poker import (
    N_DISCARDS,
    CardPokerMatch,
    CardPokerRules,
    Phase,
)
from envs.table import Seated, TableEnv

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("card_poker")

RULE_KWARGS = tuple(f.name for f in fields(CardPokerRules))
_PHASE_NAMES = tuple(p.name.lower() for p in Phase)  # info["phase"]


class CardPokerEnv(TableEnv):
    """
    ## Description

    Card poker from the Russian "commercial games" (docs/rules.md section 3), one
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
    action raises ``ValueError`` and changes nothing (``illegal_action="raise"``, the
    default; see Arguments).

    ## Observation Space

    A flat ``Box(float32)`` of ``D + 13 + 5n`` values for a ``D``-card deck
    and ``n`` players (64 for 36 cards and 3 players). Per-player fields list
    you first, then the seats to your left in order. The fields of
    :func:`envs.obs.card_poker.layout` define it (36 cards, 3 players):

    {index_table}

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
    ``max_deals`` deals. Truncated only under ``illegal_action="penalize"``; ended at
    once by an illegal action under ``"terminate"``.

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
    - ``illegal_action`` ("raise"): what an illegal action does. ``"raise"``: a ``ValueError``
      naming it and the legal actions; nothing changes. ``"terminate"``: the episode ends
      (``terminated``); you forfeit your stake in the deal in play (ante, draw fees, bids: the other
      seats take theirs back and share yours, so chips stay conserved) and the reward is that loss
      plus ``illegal_penalty``. ``"penalize"``: the action is ignored (nothing moves), the reward is
      ``illegal_penalty``, and ``max_illegal_steps`` (100) illegal actions in a row truncate the
      episode (the unfinished deal is not paid). Either way ``info["illegal_action"]`` is True on
      that step (``envs.games.IllegalActions``).
    - ``illegal_penalty`` (-1.0): in chips.

    ## Version History

    - v0: first version.
    """

    def __init__(
        self,
        n_players: int = _TABLE.default_players,
        opponents: Seated | Sequence[Seated] | None = None,
        agent_seat: int | str = "random",
        episode: str = "deal",
        max_deals: int = 100,
        render_mode: str | None = None,
        **rules,
    ) -> None:
        self._setup_illegal(rules)
        self.rules = games.get("card_poker").make_rules(**rules)
        self._setup_table("card_poker", n_players, opponents, agent_seat)
        if episode not in ("deal", "session"):
            raise ValueError(f"episode must be 'deal' or 'session', got {episode!r}")
        max_deals = games.check_whole("max_deals", max_deals, 1)
        self._check_render_mode(render_mode)
        self.episode = episode
        self.max_deals = max_deals
        self.n_cards = self.rules.deck_cards.size
        self.action_space = self._legal_space(self.rules.n_actions)
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

    def _opening_mask(self) -> np.ndarray:
        """The exchanges the learner can pay for in the draw that opens every episode."""
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
        title = games.get("card_poker").title
        header = (
            f"{title}, {r.deck} cards ({joker if r.joker_card else 'no joker'}), "
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

    def _game_policy(self, agent):
        # an agent's game_policy(rules): act(game) on the rules' CardPokerGame, choosing what
        # its act chooses on the observation (agents.heuristic.card_poker)
        make = getattr(agent, "game_policy", None)
        return make(self.rules) if callable(make) else None

    def _observe(self, seat: int) -> np.ndarray:
        m = self.match
        return observe(m.game, seat, m.deals_left, m.net[seat])

    def _info(self) -> dict:
        m = self.match
        info = {
            "action_mask": self.action_masks(),
            "seat": self.agent_seat,
            "net": m.net[self.agent_seat],
            "phase": _PHASE_NAMES[m.game.phase],
        }
        if m.done:
            info["winners"] = list(m.game.showdown.winners)
        return info


CardPokerEnv.__doc__ = obs_layout(36, 3).document(CardPokerEnv.__doc__)

__all__ = [
    "CardPokerEnv",
    "Phase",
    "decode_observation",
    "deck_size",
    "obs_fields",
    "obs_size",
    "obs_space",
    "observe",
    "render_game",
]
