"""Gymnasium environments of the scorecard family: ``PokerNaKostyah-v0`` ("Покер на костях") and
``YahtzeeClassic-v0`` (``envs.yahtzee`` is this module under its old name)."""

from __future__ import annotations

import numpy as np

from envs import games
from envs.obs.scorecard import (
    StepView,
    decode_observation,
    obs_fields,
    obs_size,
    obs_space,
    observe,
)
from envs.obs.scorecard import layout as obs_layout
from envs.render.text import render_scorecard as render_card  # the old name
from envs.rules.scorecard import (
    N_REROLL_ACTIONS,
    OPTION_NAMES,
    Scorecard,
    ScorecardGame,
    make_rules,
    rows_of,
)
from envs.table import TextRenderEnv


def card_dict(card: Scorecard) -> dict[str, int | None]:
    """The card as row -> score (None while open)."""
    return dict(zip(card.rows, card.scores, strict=True))


class YahtzeeEnv(TextRenderEnv):
    """
    ## Description

    One player's whole game of a scorecard dice game. ``PokerNaKostyah-v0`` is the
    Russian "Покер на костях" (docs/rules.md section 4): 17 turns, six stage-1
    rows (count of the face minus three, times the face; +50 at a stage-1
    sum >= 0) before eleven stage-2 rows that are doubled when filled right
    after the first roll. ``YahtzeeClassic-v0`` is classic Yahtzee
    (docs/rules.md section 5): 13 turns, upper bonus, Yahtzee bonus and the joker rule.
    Each turn starts with a roll of all five dice; up to two re-rolls of any
    dice follow; the turn ends when a row is filled.

    ## Action Space

    ``Discrete(32 + n_rows)`` (49 russian, 45 classic):

    - ``a`` in 1..31: re-roll the dice whose bits are set, bit ``i`` = the
      ``i``-th smallest die (the observation's ``dice``); legal while rolls
      remain (``rolls_used < 3``). ``0`` (re-roll nothing) is never legal.
    - ``32 + k``: fill row ``k`` of the card now (rows as in
      ``envs.rules.scorecard.RUSSIAN_ROWS`` / ``CLASSIC_ROWS``); legal when the
      rules allow it now (stage, open rows, scratch rule, forced joker).
      Filling right after the first roll is always allowed where the rules
      allow the row, since that earns the russian doubling.

    :meth:`action_masks` (and ``info["action_mask"]``) gives the legal
    actions. An illegal action raises ``ValueError`` and changes nothing
    (``illegal_action="raise"``, the default; see Arguments).

    ## Observation Space

    A flat ``Box(float32)`` of ``2*n_rows + 18`` values (52 russian, 44
    classic), defined by the fields of :func:`envs.obs.scorecard.layout`; for the
    russian card (17 rows):

    {index_table}

    Classic (13 rows) has 13 values of ``open_rows`` and of ``fill_points``, so
    every index after ``open_rows`` is 4 lower.

    Everything an exact player needs is here (the open rows, the upper sum,
    the Yahtzee-row state, the dice and rolls used); ``fill_points`` and
    ``total`` are conveniences. :func:`decode_observation` splits a vector.

    ## Rewards

    The points each fill adds to the card: the row's score (doubling and
    Poker's +50 included) plus any bonus it earns (the russian +50 on the
    fill that completes stage 1, the classic +35 on the fill that brings the
    upper sum to 63, +100 per extra Yahtzee). Re-rolls give 0. Multiplied by
    ``reward_scale``. The undiscounted return is the final total (times the
    scale). ``info`` carries ``total``, ``card`` (row -> score of the filled rows; an
    open row is absent, so ``card.get(row)`` is None, and Gymnasium's vector envs stack
    it with a ``_row`` mask), ``bonus``, ``yahtzee_bonus``, ``rolls_used`` and ``action_mask``.

    ## Episode End

    Terminates when every row is filled (17 turns russian, 13 classic), or at once on an
    illegal action under ``illegal_action="terminate"``. Truncated only under
    ``illegal_action="penalize"`` (``max_illegal_steps`` illegal actions in a row).

    ## Arguments

    - ``rules``: ``"russian"`` (``Yahtzee-v0``) or ``"classic"`` (``YahtzeeClassic-v0``).
    - russian: ``scratch`` ("only_if_nothing" | "any").
    - classic: ``yahtzee_bonus`` (True), ``joker`` ("forced" | "free" | "none").
    - ``reward_scale`` (1.0): rewards are points times this.
    - ``illegal_action`` ("raise"): what an illegal action does. ``"raise"``: a
      ``ValueError`` naming it and the legal actions; nothing changes. ``"terminate"``: the
      episode ends (``terminated``) with reward ``illegal_penalty``; the rows still open
      score nothing. ``"penalize"``: the action is ignored (nothing moves), the reward is
      ``illegal_penalty``, and ``max_illegal_steps`` (100) illegal actions in a row
      truncate the episode. Either way ``info["illegal_action"]`` is True on that step
      (``envs.games.IllegalActions``).
    - ``illegal_penalty`` (-1.0): in points, times ``reward_scale`` like every reward.
    - ``render_mode``: ``"ansi"`` returns the dice and the card as text, ``"human"`` prints it,
      ``"rgb_array"`` returns them as a picture (H×W×3 uint8, one size per rule set).

    ## Version History

    - v0: first version.
    """

    def __init__(
        self,
        rules: str = "russian",
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        **options,
    ) -> None:
        self._setup_illegal(options)
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(
                f"unknown argument(s) {unknown} for YahtzeeEnv; rule options are {OPTION_NAMES}"
            )
        self.rules = make_rules(rules, **options)
        self._check_render_mode(render_mode)
        self.reward_scale = games.check_positive("reward_scale", reward_scale)
        self.n_actions = N_REROLL_ACTIONS + len(self.rules.rows)
        self.action_space = self._legal_space(self.n_actions)
        self.observation_space = obs_space(self.rules)
        # the observation, the action mask and the legal rows of a step in one pass
        self._view = StepView(self.rules)
        self._raises = self.illegal.raises
        self.game: ScorecardGame | None = None

    # -- gymnasium API -------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if options:
            raise ValueError(f"YahtzeeEnv.reset takes no options, got {options!r}")
        self.game = ScorecardGame(self.np_random, self.rules)
        self._last: tuple[int, int] | None = None  # (seat, action) for the picture
        if self.render_mode == "human":
            print(self.render_text())
        obs, mask, _ = self._view(self.game)
        return obs, self._info(mask)

    def step(self, action):
        game = self.game
        # the common case, an int under illegal_action="raise" (never ``_ended``), goes
        # straight to the game, which checks the action itself
        if not (type(action) is int and self._raises and game is not None and game.card._open_bits):
            if game is None:
                raise RuntimeError("call reset() before step()")
            if self._ended or not game.card._open_bits:
                raise RuntimeError("the episode is over; call reset()")
            if type(action) is not int:
                action = self._action(action)
            if not self._raises:  # "terminate" or "penalize"
                if self._is_illegal(action):
                    penalty, terminated, truncated = self._illegal_outcome()
                    obs, mask, _ = self._view(game)
                    mask = self.action_masks() if self._ended else mask
                    info = {**self._info(mask), "illegal_action": True}
                    return obs, penalty * self.reward_scale, terminated, truncated, info
                self._illegal_run = 0
        before = game.card
        # raises on an illegal action, changing nothing
        points = game.step(action)
        self._last = (0, action)
        if self.render_mode == "human":
            print(self.render_text())
        obs, mask, _ = self._view(game)
        info = self._info(mask, before)
        return obs, points * self.reward_scale, not game.card._open_bits, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions now (all False before reset and once the episode is over)."""
        if self.game is None or self._ended:
            return np.zeros(self.n_actions, dtype=bool)
        return self.game.action_mask()

    def _opening_mask(self) -> np.ndarray:
        # a turn opens with roll 1 of 3: every re-roll is legal, the rows depend on the dice
        mask = np.zeros(self.n_actions, dtype=bool)
        mask[1:N_REROLL_ACTIONS] = True
        return mask

    def render_text(self) -> str:
        if self.game is None:
            return "(not started: call reset())"
        name = games.by_fixed("rules", self.rules.rules).short_title
        return render_card(self.game, f"{name} ({self.rules.rules}), turn {self._turn()}")

    def render_rgb(self) -> np.ndarray:
        from envs.render import draw_scorecard  # Pillow is loaded only when a frame is asked for

        if self.game is None:
            raise RuntimeError("call reset() before render()")
        return draw_scorecard([self.game], 0, {0: "you"}, self._last)

    # -- internals -------------------------------------------------------------
    def _turn(self) -> int:
        card = self.game.card
        return len(card.rows) - card.turns_left + (0 if self.game.done else 1)

    def _info(self, mask: np.ndarray, before: Scorecard | None = None) -> dict:
        """The step's info with the action mask ``mask``; ``before``: the card before the
        step (see :func:`_card_info`)."""
        game = self.game
        card = game.card
        head, filled, _ = card.__dict__.get("_info") or _card_info(card, before)
        info = head.copy()  # the card's part, in the info's key order
        info["action_mask"] = mask
        info["card"] = filled.copy()  # a user's edit of one info reaches no later info
        info["rolls_used"] = game.rolls_used
        return info


def _card_info(card: Scorecard, before: Scorecard | None = None) -> tuple:
    """What the info says of a card: ``(head, filled, pairs)``, ``head`` the info's keys in
    order with ``total``, ``bonus`` and ``yahtzee_bonus`` filled in (the step's own values
    None), ``filled`` the filled rows -> score in card order and ``pairs`` the same as
    ``(row, score)`` pairs; built once and kept on the card (``_info``; a card never
    changes). ``before``: the card it was filled from, whose pairs then give this card's
    with one row inserted."""
    d = card.__dict__
    out = d.get("_info")
    if out is not None:
        return out
    was = None if before is None else before.__dict__.get("_info")
    if was is not None:
        old_open = before.__dict__["_open_bits"]
        new = old_open ^ d["_open_bits"]  # game.step fills one open row of ``before``
        if new and new & old_open == new and not new & (new - 1):
            # one row filled: insert it after the filled rows above it (card order), and
            # the head is the old card's with the card's three values
            k = new.bit_length() - 1
            at = (~old_open & (new - 1)).bit_count()
            pairs = was[2]
            pairs = pairs[:at] + ((rows_of(d["rules"])[k], d["scores"][k]),) + pairs[at:]
            head = was[0].copy()
            head["total"] = d["_total"]
            head["bonus"] = d["bonus"]
            head["yahtzee_bonus"] = d["yahtzee_bonus"]
            out = d["_info"] = (head, dict(pairs), pairs)
            return out
    # filled rows only: a row absent where open stacks under gymnasium's vector envs
    # (a mask ``_row``), where None beside ints cannot
    pairs = tuple([(r, s) for r, s in zip(card.rows, d["scores"], strict=True) if s is not None])
    head = {
        "action_mask": None,
        "total": d["_total"],
        "card": None,
        "bonus": d["bonus"],
        "yahtzee_bonus": d["yahtzee_bonus"],
        "rolls_used": None,
    }
    out = d["_info"] = (head, dict(pairs), pairs)
    return out


YahtzeeEnv.__doc__ = obs_layout("russian").document(YahtzeeEnv.__doc__)

__all__ = [
    "YahtzeeEnv",
    "card_dict",
    "decode_observation",
    "obs_fields",
    "obs_size",
    "obs_space",
    "observe",
    "render_card",
]
