"""PettingZoo AEC environment of prison dice poker: every seat is an agent."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs import games
from envs.multi.table import MatchAEC, OrderEnforcing
from envs.obs.dice_poker import obs_space, observe
from envs.render.text import render_dice_poker as render_game
from envs.rules.dice_poker import DicePokerMatch, DicePokerRules

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("dice_poker")

RULE_KWARGS = tuple(f.name for f in fields(DicePokerRules))


def env(**kwargs) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order-enforcing checks."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(MatchAEC, EzPickle):
    """
    ## Description

    Prison dice poker (docs/rules.md sections 1 and 2) with every seat an agent
    ``player_0`` .. ``player_{n-1}`` (``player_i`` sits in seat ``i``). The
    agent to act is the one rolling; players not in a play-off just wait.

    ## Action Space

    ``Discrete(2**n_dice)`` per agent: the bit set of dice to re-roll over
    the observation's sorted dice, 0 = stand; ``action_mask`` forbids frozen
    dice. An illegal action raises ``ValueError`` and changes nothing
    (``illegal_action="raise"``, the default; see Arguments).

    ## Observation Space

    ``{"observation": Box(float32), "action_mask": Box(int8)}``: the same
    vector as ``DicePokerEnv`` (see its docstring and
    ``envs.obs.dice_poker.decode_observation``) from that agent's seat; the own
    dice are zeros and the mask is all zeros when it is not that agent's turn.

    ## Rewards

    Net chips of each game, given when the game is decided: ``pot - ante``
    to the winner, ``-ante`` to the others. Every game's rewards sum to zero.

    ## Episode End

    All agents terminate when the game (``episode="game"``) or the circle
    (``episode="circle"``: one game started by each seat) is decided.

    ## Arguments

    ``n_dice`` (5 or 6), ``n_players`` (3, 2-6), ``episode`` ("game" |
    "circle"), ``first_player`` ("roll" | a seat), ``render_mode`` ("ansi" |
    "human" | "rgb_array") and every rule option of ``DicePokerEnv``.

    ``illegal_action`` ("raise" | "terminate" | "penalize"), ``illegal_penalty``
    (-1.0, chips) and ``max_illegal_steps`` (100). ``"raise"``: an illegal action raises
    ``ValueError`` and changes nothing. ``"terminate"``, as PettingZoo's
    ``TerminateIllegalWrapper``: every agent terminates; the offender forfeits its stake in
    the game in play (the ante) and is paid that loss plus ``illegal_penalty``; the other
    seats take their own stakes back and share the forfeit (odd chips to the seats right
    after the offender), so the chips of the game still sum to zero. ``"penalize"``:
    nothing moves, the offender is paid ``illegal_penalty`` and stays to act;
    ``max_illegal_steps`` illegal actions in a row truncate every agent (the unfinished
    game is not paid). The offender's info has ``illegal_action=True``.

    ## Version History

    - v0: first version.
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "dice_poker_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        n_dice: int = 5,
        n_players: int = _TABLE.default_players,
        episode: str = "game",
        first_player: int | str = "roll",
        render_mode: str | None = None,
        **rules,
    ) -> None:
        EzPickle.__init__(self, n_dice, n_players, episode, first_player, render_mode, **rules)
        super().__init__()
        self._setup_illegal(rules)
        game = games.by_fixed("n_dice", n_dice).name
        self.rules = games.get(game).make_rules(**rules)
        n_players = games.check_whole("n_players", n_players, *games.get(game).players)
        if episode not in ("game", "circle"):
            raise ValueError(f"episode must be 'game' or 'circle', got {episode!r}")
        first_player = games.check_seat("first_player", first_player, n_players, "roll")
        self.episode = episode
        self.first_player = first_player
        self._setup_table(n_players, obs_space(n_dice), self.rules.n_actions, render_mode)
        self.match: DicePokerMatch | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._reset_table(seed, options)
        self.match = DicePokerMatch(
            self.n_players,
            self._np_random,
            self.rules,
            n_games=self.n_players if self.episode == "circle" else 1,
            first=None if self.first_player == "roll" else self.first_player,
        )
        self.agent_selection = self._agent_of(self.match.current_player)

    def _observation(self, seat: int) -> np.ndarray:
        m = self.match
        return observe(m.game, seat, m.games_left, m.chips[seat])

    def _final_info(self) -> dict:
        return {"winner": self._agent_of(self.match.game.winner)}

    def render_rgb(self, labels: dict[int, str] | None = None) -> np.ndarray:
        from envs.render import draw_dice_poker  # Pillow is loaded only when a frame is asked for

        return draw_dice_poker(self.match, labels or dict(enumerate(self.possible_agents)))

    def render_text(self) -> str:
        labels = dict(enumerate(self.possible_agents))
        chips = ", ".join(f"{labels[s]} {c:+d}" for s, c in enumerate(self.match.chips))
        head = f"{games.by_fixed('n_dice', self.rules.n_dice).title}; chips {chips}"
        return head + "\n" + render_game(self.match.game, labels)
