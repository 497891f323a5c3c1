"""Gymnasium environments ``DicePoker-v0`` (five dice) and ``DicePoker6-v0`` (six dice)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from envs import games
from envs.obs.dice_poker import (
    decode_observation,
    encoder,
    obs_fields,
    obs_size,
    obs_space,
    observe,
)
from envs.obs.dice_poker import layout as obs_layout
from envs.render.text import render_dice_poker as render_game  # the old name
from envs.rules.dice_poker import DicePokerMatch, DicePokerRules
from envs.table import Seated, TableEnv

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("dice_poker")

RULE_KWARGS = tuple(f.name for f in fields(DicePokerRules))


class DicePokerEnv(TableEnv):
    """
    ## Description

    Prison dice poker ("зарики", docs/rules.md sections 1 and 2) for one learning
    player against opponents that are Agents. Each player in turn rolls all
    dice, then may re-roll some of them twice; with the frozen-dice rule a
    die kept after the first roll may not be re-rolled at the third. The
    highest hand takes the pot; players tied for the best play a play-off
    among themselves (no new ante) until one wins. ``DicePoker-v0`` plays
    five dice, ``DicePoker6-v0`` six.

    ## Action Space

    ``Discrete(2**n_dice)``: the bit set of dice to re-roll, bit ``i`` = the
    ``i``-th die of the observation's ``dice`` (sorted ascending); ``0``
    stands. :meth:`action_masks` (and ``info["action_mask"]``) forbids
    re-rolling frozen dice. An illegal action raises ``ValueError`` and
    changes nothing (``illegal_action="raise"``, the default; see Arguments).

    ## Observation Space

    A flat ``Box(float32)`` of ``2*n_dice + 24`` values (34 for five dice),
    defined by the fields of :func:`envs.obs.dice_poker.layout` (five dice):

    {index_table}

    For six dice every index from ``frozen`` on shifts by one, from
    ``face_counts`` on by two.
    Hand ranks follow docs/rules.md sections 1 and 2 (five dice: nothing 0 .. poker 6; six dice:
    nothing 0 .. poker 10). :func:`decode_observation` splits a vector into
    these fields. Only the best finished hand matters for who wins, so the
    observation carries that rather than every earlier player's dice.

    ## Rewards

    Net chips of each game for the learning player, paid when the game ends:
    ``pot - ante`` to the winner, ``-ante`` otherwise (``+2``/``-1`` with
    three players and ``ante=1``). Zero on every other step.

    ## Episode End

    Terminates when the game (``episode="game"``) or the whole circle of
    ``n_players`` games (``episode="circle"``) is decided, play-offs
    included. Truncated only under ``illegal_action="penalize"``; ended at once by an
    illegal action under ``"terminate"``.

    ## Arguments

    - ``n_dice``: 5 or 6 (set by the id).
    - ``n_players`` (3): players at the table, 2-6.
    - ``opponents`` ("heuristic"): an agent spec or Agent for every opponent,
      or a list of ``n_players - 1`` of them in seat order skipping yours.
    - ``agent_seat`` ("random"): your seat, or ``"random"`` for a new one each episode.
    - ``first_player`` ("roll"): who starts the first game: decided by each
      player rolling one die (highest starts, ties re-roll), or a fixed seat.
    - ``episode`` ("game"): ``"game"`` or ``"circle"`` (one game started by each seat in turn).
    - Rules: ``ante`` (1), ``lock_kept_dice`` (True), ``full_house_tiebreak``
      ("sum" | "triple"), ``two_pairs_tiebreak`` ("sum" | "high_pair"),
      ``six_dice_low_hands`` (True), ``pyramid`` ("monotone" | "ascending" | "any").
    - ``render_mode``: ``"ansi"`` returns the table as text, ``"human"`` prints it,
      ``"rgb_array"`` returns it as a picture (H×W×3 uint8, one size per player count).
    - ``illegal_action`` ("raise"): what an illegal action does. ``"raise"``: a
      ``ValueError`` naming it and the legal actions; nothing changes. ``"terminate"``: the
      episode ends (``terminated``); you forfeit your stake in the game in play (the ante:
      the other seats take theirs back and share yours, so chips stay conserved) and the
      reward is that loss plus ``illegal_penalty``. ``"penalize"``: the action is ignored
      (nothing moves), the reward is ``illegal_penalty``, and ``max_illegal_steps`` (100)
      illegal actions in a row truncate the episode (the unfinished game is not paid).
      Either way ``info["illegal_action"]`` is True on that step
      (``envs.games.IllegalActions``).
    - ``illegal_penalty`` (-1.0): in chips.

    ## Version History

    - v0: first version.
    """

    def __init__(
        self,
        n_dice: int = 5,
        n_players: int = _TABLE.default_players,
        opponents: Seated | Sequence[Seated] | None = None,
        agent_seat: int | str = "random",
        first_player: int | str = "roll",
        episode: str = "game",
        render_mode: str | None = None,
        **rules,
    ) -> None:
        game = games.by_fixed("n_dice", n_dice).name
        self._setup_illegal(rules)
        self.rules = games.get(game).make_rules(**rules)
        self._setup_table(game, n_players, opponents, agent_seat)
        first_player = games.check_seat("first_player", first_player, n_players, "roll")
        if episode not in ("game", "circle"):
            raise ValueError(f"episode must be 'game' or 'circle', got {episode!r}")
        self._check_render_mode(render_mode)
        self.first_player = first_player
        self.episode = episode
        self.action_space = self._legal_space(self.rules.n_actions)
        self.observation_space = obs_space(n_dice)
        self.match: DicePokerMatch | None = None
        self._encoder = encoder(self.rules)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"DicePokerEnv.reset takes no options, got {options!r}")
        self._seat_players(self.np_random)
        self.match = DicePokerMatch(
            self.n_players,
            self.np_random,
            self.rules,
            n_games=self.n_players if self.episode == "circle" else 1,
            first=None if self.first_player == "roll" else self.first_player,
        )
        reward = self._advance()
        assert reward == 0, "the learning player plays in every main round"
        return self._observe(self.agent_seat), self._info()

    def _opening_mask(self) -> np.ndarray:
        # the first decision follows the first roll: nothing is frozen yet
        return np.ones(self.rules.n_actions, dtype=bool)

    def render_text(self) -> str:
        if self.match is None:
            return "(not started: call reset())"
        m = self.match
        labels = self._labels()
        header = (
            f"{games.by_fixed('n_dice', self.rules.n_dice).title}, {self.n_players} players, "
            f"game {min(m.games_played + 1, m.n_games)}/{m.n_games}; net chips "
            + ", ".join(f"{labels[s]} {c:+d}" for s, c in enumerate(m.chips))
        )
        return header + "\n" + render_game(m.game, labels)

    def render_rgb(self) -> np.ndarray:
        from envs.render import draw_dice_poker  # Pillow is loaded only when a frame is asked for

        if self.match is None:
            raise RuntimeError("call reset() before render()")
        return draw_dice_poker(self.match, self._labels())

    def _game_policy(self, agent):
        # an agent's game_policy(rules): act(game) on the rules' DicePokerGame, choosing what
        # its act chooses on the observation (agents.heuristic / agents.optimal dice_poker)
        make = getattr(agent, "game_policy", None)
        return make(self.rules) if callable(make) else None

    def _advance(self) -> int:
        """:meth:`TableEnv._advance`, an opponent whose game policy keeps a table of moves
        (``turn_moves(game)``, by ``DicePokerGame.decision``) playing each turn in one
        call (:meth:`DicePokerMatch.play_turn`: the same moves, the same dice drawn); from
        an opponent without one on, move by move as there."""
        reward = 0
        m = self.match
        me = self.agent_seat
        direct = self._direct
        while not m.done:
            seat = m.game.current_player
            if seat == me:
                break
            policy = direct.get(seat)
            tables = getattr(policy, "turn_moves", None)
            if tables is None:
                return reward + super()._advance()
            reward += m.play_turn(tables(m.game), policy).get(me, 0)
        return reward

    def _observe(self, seat: int) -> np.ndarray:
        m = self.match
        return self._encoder.observe(m.game, seat, m.games_left, m.chips[seat])

    def _info(self) -> dict:
        info = {
            "action_mask": self.action_masks(),
            "seat": self.agent_seat,
            "chips": self.match.chips[self.agent_seat],
        }
        if self.match.done:
            info["winner"] = self.match.game.winner
        return info


DicePokerEnv.__doc__ = obs_layout(5).document(DicePokerEnv.__doc__)

__all__ = [
    "DicePokerEnv",
    "decode_observation",
    "obs_fields",
    "obs_size",
    "obs_space",
    "observe",
    "render_game",
]
