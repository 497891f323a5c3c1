"""PettingZoo AEC environment of the scorecard dice games: every player is an agent."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from envs import games
from envs.multi.table import OrderEnforcing, TableAEC
from envs.obs.scorecard import obs_space, observe
from envs.render.text import render_scorecard as render_card
from envs.rules.scorecard import N_REROLL_ACTIONS, OPTION_NAMES, ScorecardGame, make_rules
from envs.rules.scorecard_match import ScorecardMatch

# the table defaults (players, opponents) are the registry's
_TABLE = games.get("yahtzee")

REWARDS = ("settlement", "points")


def env(**kwargs) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order-enforcing checks."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(TableAEC, EzPickle):
    """
    ## Description

    The scorecard dice game for 2 or more players ``player_0`` ..
    ``player_{n-1}``, each with their own card: "Покер на костях"
    (``rules="russian"``, docs/rules.md section 4) or classic Yahtzee
    (``rules="classic"``, section 5). Players take whole turns in seat order,
    ``player_0`` first; a turn is up to three rolls and ends when the player
    fills a row. After ``n_rows`` rounds (17 russian, 13 classic) every card
    is full.

    ## Action Space

    ``Discrete(32 + n_rows)`` per agent, as ``YahtzeeEnv``: 1..31 re-roll the
    dice whose bits are set (bit ``i`` = the ``i``-th smallest die), ``32 + k``
    fills row ``k``. ``action_mask`` holds the legal ones (all zeros for a
    waiting agent). An illegal action raises ``ValueError`` and changes nothing
    (``illegal_action="raise"``, the default; see Arguments).

    ## Observation Space

    ``{"observation": Box(float32), "action_mask": Box(int8)}``. The vector is
    ``YahtzeeEnv``'s (see its docstring and ``envs.obs.scorecard.decode_observation``
    with ``n_players``) for that agent's own card, followed by
    ``others_total``: the other players' totals in turn order after it. For
    a waiting agent the dice, face counts, rolls used, joker and fill points
    are zeros.

    ## Rewards

    ``reward="settlement"`` (default, the source's): when the game ends each
    player gets their total minus the mean total of all players (they sum to
    zero); nothing before. ``reward="points"``: each fill's points as it is
    made (``YahtzeeEnv``'s reward), nothing at the end. Times ``reward_scale``.

    ## Episode End

    All agents terminate when every card is full, or on an illegal action under
    ``illegal_action="terminate"``. Truncated only under ``illegal_action="penalize"``.

    ## Arguments

    ``n_players`` (2, 2-6), ``rules`` ("russian" | "classic"), the
    rule options of ``YahtzeeEnv`` (``scratch``; ``yahtzee_bonus``, ``joker``),
    ``reward`` ("settlement" | "points"), ``reward_scale`` (1.0),
    ``render_mode`` ("ansi" | "human" | "rgb_array").

    ``illegal_action`` ("raise" | "terminate" | "penalize"), ``illegal_penalty`` (-1.0, in
    points times ``reward_scale``) and ``max_illegal_steps`` (100). ``"raise"``: an illegal
    action raises ``ValueError`` and changes nothing. ``"terminate"``, as PettingZoo's
    ``TerminateIllegalWrapper``: every agent terminates, the offender is paid
    ``illegal_penalty``, the others 0 (no settlement is made). ``"penalize"``: nothing
    moves, the offender is paid ``illegal_penalty`` and stays to act;
    ``max_illegal_steps`` illegal actions in a row truncate every agent. The offender's
    info has ``illegal_action=True``.

    ## Version History

    - v0: first version.
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "yahtzee_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        n_players: int = _TABLE.default_players,
        rules: str = "russian",
        reward: str = "settlement",
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        **options,
    ) -> None:
        EzPickle.__init__(self, n_players, rules, reward, reward_scale, render_mode, **options)
        super().__init__()
        self._setup_illegal(options)
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(f"unknown argument(s) {unknown}; rule options are {OPTION_NAMES}")
        self.rules = make_rules(rules, **options)
        # at least 2 at a table of agents; at most what the registry seats at one table
        game = games.by_fixed("rules", rules)
        n_players = games.check_whole("n_players", n_players, 2, game.players[1])
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.reward = reward
        self.reward_scale = games.check_positive("reward_scale", reward_scale)
        self.n_actions = N_REROLL_ACTIONS + len(self.rules.rows)
        self._setup_table(
            n_players, obs_space(self.rules, n_players=n_players), self.n_actions, render_mode
        )
        self.match: ScorecardMatch | None = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._reset_table(seed, options)
        # every card rolls from the table's one generator, in playing order
        self.match = ScorecardMatch(self.n_players, self._np_random, self.rules)
        self._last: tuple[int, int] | None = None  # (seat, action) for the picture
        self.agent_selection = self.possible_agents[0]

    def _penalty(self) -> float:
        return self.illegal.penalty * self.reward_scale

    def _legal_actions(self) -> list[int]:
        return self.games[self._seat].legal_actions() if self.games and not self.done else []

    @property
    def games(self) -> list[ScorecardGame]:
        return self.match.games if self.match is not None else []

    @property
    def _seat(self) -> int:
        return self.match.current_player

    @property
    def done(self) -> bool:
        return self.match is not None and (self.match.done or self._ended)

    def totals(self) -> dict[str, int]:
        return {a: g.card.total for a, g in zip(self.possible_agents, self.games, strict=True)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        game = self.games[seat]
        others = self.match.others(seat)
        own_turn = seat == self._seat and not self.done
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if own_turn:
            mask[game.action_mask()] = 1
        return {"observation": observe(game, others, own_turn), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat
        action = self._action(action)
        if self._illegal_step(agent, action):  # illegal_action="terminate" or "penalize"
            return
        # raises on an illegal action, changing nothing
        points = self.match.step(action)
        self._last = (seat, action)
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.reward == "points":
            self.rewards[agent] = points * self.reward_scale
        if self.done:
            totals = self.totals()
            paid = self.match.settlements(self.reward_scale)
            pay = dict(zip(self.possible_agents, paid, strict=True))
            for a in self.agents:
                if self.reward == "settlement":
                    self.rewards[a] = pay[a]  # they sum to exactly zero
                self.infos[a] = {"total": totals[a], "totals": totals}
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self._seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render_text(self) -> str:
        name = games.by_fixed("rules", self.rules.rules).short_title
        parts = [f"{name}, {self.n_players} players"]
        for seat, (a, g) in enumerate(zip(self.possible_agents, self.games, strict=True)):
            title = f"== {a}" + (" (to act)" if seat == self._seat and not self.done else "")
            parts.append(render_card(g, title) if seat == self._seat else _summary(g, title))
        if self.done:
            totals = self.totals()
            mean = sum(totals.values()) / self.n_players
            parts.append(
                "result: " + ", ".join(f"{a} {t} ({t - mean:+.2f})" for a, t in totals.items())
            )
        return "\n".join(parts)

    def render_rgb(self, labels: dict[int, str] | None = None) -> np.ndarray:
        from envs.render import draw_scorecard  # Pillow is loaded only when a frame is asked for

        labels = labels or dict(enumerate(self.possible_agents))
        return draw_scorecard(self.games, self._seat, labels, self._last)


def _summary(game: ScorecardGame, title: str) -> str:
    card = game.card
    filled = ", ".join(
        f"{r} {s}" for r, s in zip(card.rows, card.scores, strict=True) if s is not None
    )
    return f"{title}: total {card.total}; {filled or 'nothing filled yet'}"
