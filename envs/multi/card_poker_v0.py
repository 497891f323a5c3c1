"""PettingZoo AEC environment of card poker: every seat is an agent."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs import games
from envs.multi.table import MatchAEC, OrderEnforcing
from envs.obs.card_poker import obs_space, observe
from envs.render.text import render_card_poker as render_game
from envs.rules.card_poker import MAX_PLAYERS, MIN_PLAYERS, CardPokerMatch, CardPokerRules

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("card_poker")

RULE_KWARGS = tuple(f.name for f in fields(CardPokerRules))


def env(**kwargs) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order-enforcing checks."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(MatchAEC, EzPickle):
    """
    ## Description

    Card poker on 36 or 54 cards with jokers (docs/rules.md section 3) with every
    seat an agent ``player_0`` .. ``player_{n-1}`` (``player_i`` sits in seat
    ``i``; seat 0 draws and bids first in the first deal). Players who have
    passed wait for the deal to end.

    ## Action Space

    ``Discrete(34 + max_bid - min_bid + 1)`` per agent, as in
    ``CardPokerEnv``: 0-31 exchange sets in the draw, 32 pass, 33 reveal,
    34 + k bid ``min_bid + k``. An illegal action raises ``ValueError`` and
    changes nothing (``illegal_action="raise"``, the default; see Arguments).

    ## Observation Space

    ``{"observation": Box(float32), "action_mask": Box(int8)}``: the same
    vector as ``CardPokerEnv`` (see its docstring and
    ``envs.obs.card_poker.decode_observation``) from that agent's seat; the mask
    is all zeros when it is not that agent's turn.

    ## Rewards

    Net chips of each deal, given when the deal ends; they sum to zero.

    ## Episode End

    All agents terminate when the deal (``episode="deal"``) or the session
    (``episode="session"``: until a player cannot pay the ante, at most
    ``max_deals`` deals) ends.

    ## Arguments

    ``n_players`` (3, 2-6), ``episode`` ("deal" | "session"), ``max_deals``
    (100), ``render_mode`` ("ansi" | "human" | "rgb_array") and every rule option of
    ``CardPokerEnv``.

    ``illegal_action`` ("raise" | "terminate" | "penalize"), ``illegal_penalty`` (-1.0, chips) and
    ``max_illegal_steps`` (100). ``"raise"``: an illegal action raises ``ValueError`` and changes
    nothing. ``"terminate"``, as PettingZoo's ``TerminateIllegalWrapper``: every agent terminates;
    the offender forfeits its stake in the deal in play (ante, draw fees, bids) and is paid that
    loss plus ``illegal_penalty``; the other seats take their own stakes back and share the forfeit
    (odd chips to the seats right after the offender), so the chips of the deal still sum to zero.
    ``"penalize"``: nothing moves, the offender is paid ``illegal_penalty`` and stays to act;
    ``max_illegal_steps`` illegal actions in a row truncate every agent (the unfinished deal is not
    paid). The offender's info has ``illegal_action=True``.

    ## Version History

    - v0: first version.
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "card_poker_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        n_players: int = _TABLE.default_players,
        episode: str = "deal",
        max_deals: int = 100,
        render_mode: str | None = None,
        **rules,
    ) -> None:
        EzPickle.__init__(self, n_players, episode, max_deals, render_mode, **rules)
        super().__init__()
        self._setup_illegal(rules)
        self.rules = games.get("card_poker").make_rules(**rules)
        n_players = games.check_whole("n_players", n_players, MIN_PLAYERS, MAX_PLAYERS)
        if episode not in ("deal", "session"):
            raise ValueError(f"episode must be 'deal' or 'session', got {episode!r}")
        max_deals = games.check_whole("max_deals", max_deals, 1)
        self.episode = episode
        self.max_deals = max_deals
        self._setup_table(
            n_players,
            obs_space(self.rules.deck_cards.size, n_players),
            self.rules.n_actions,
            render_mode,
        )
        self.match: CardPokerMatch | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._reset_table(seed, options)
        self.match = CardPokerMatch(
            self.n_players, self._np_random, self.rules, self.episode, self.max_deals
        )
        self.agent_selection = self._agent_of(self.match.current_player)

    def _observation(self, seat: int) -> np.ndarray:
        m = self.match
        return observe(m.game, seat, m.deals_left, m.net[seat])

    def _final_info(self) -> dict:
        return {"winners": [self._agent_of(s) for s in self.match.game.showdown.winners]}

    def render_rgb(self, labels: dict[int, str] | None = None) -> np.ndarray:
        from envs.render import draw_card_poker  # Pillow is loaded only when a frame is asked for

        m = self.match
        labels = labels or dict(enumerate(self.possible_agents))
        # as the text: seen by the player to act; after the deal only shown hands
        return draw_card_poker(m, labels, -1 if m.done else m.current_player)

    def render_text(self) -> str:
        m = self.match
        labels = dict(enumerate(self.possible_agents))
        return "\n".join(
            [
                f"{games.get('card_poker').title}, {self.rules.deck} cards, "
                f"deal {m.deals_played + (not m.game.done)}/{m.max_deals}; net chips "
                + ", ".join(f"{labels[s]} {c:+d}" for s, c in enumerate(m.net)),
                # seen by the player to act; after the deal only shown hands
                render_game(m.game, labels, -1 if m.done else m.current_player),
            ]
        )
