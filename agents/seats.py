"""Dice poker by seat: an agent in each place of the turn order against fixed players, and
the solver's chance of each place (``tools/dice_poker_seats.py`` prints the table;
``train/handvalue.py`` evaluates its tables with :func:`seat_results`)."""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.arena import Z95, display_name, wilson_interval
from agents.optimal.dice_poker import win_probabilities
from agents.tables import play_games
from envs import games
from envs.rules.dice_poker import DicePokerRules


def seat_results(
    agent,
    game: str,
    opponents: str,
    games_per_seat: int,
    seed: int = 0,
    n_players: int | None = None,
    **rules,
) -> dict:
    """``agent`` (an Agent or a spec) in each place against ``opponents`` in the others, at
    a table of ``n_players`` (default the registry's ``default_players``).

    Returns ``chips`` and ``chips_ci95`` (random seat), and per place lists ``seat_chips``,
    ``seat_chips_ci95``, ``seat_win``, ``seat_win_lo``, ``seat_win_hi``; ``win`` the
    random-seat win rate."""
    games.rules_for(game, DicePokerRules, "seat_results", **rules)
    n_players = games.get(game).default_players if n_players is None else n_players
    agent = make_agent(agent, game, **rules)
    gym_id = games.get(game).gym_id
    means, ses, wins, lo, hi = [], [], [], [], []
    for place in range(n_players):
        chips = play_games(
            agent.act_batch,
            gym_id,
            games_per_seat,
            seed=seed * 1009 + place,
            n_players=n_players,
            opponents=opponents,
            agent_seat=place,
            first_player=0,
            **rules,
        )
        means.append(float(chips.mean()))
        ses.append(float(chips.std(ddof=1) / np.sqrt(len(chips))))
        w = int((chips > 0).sum())
        wins.append(w / len(chips))
        a, b = wilson_interval(w, len(chips))
        lo.append(a)
        hi.append(b)
    return {
        "agent": display_name(agent),
        "opponents": opponents,
        "games_per_seat": games_per_seat,
        "chips": float(np.mean(means)),
        "chips_ci95": float(Z95 * np.sqrt(np.sum(np.square(ses))) / n_players),
        "win": float(np.mean(wins)),
        "seat_chips": means,
        "seat_chips_ci95": [Z95 * s for s in ses],
        "seat_win": wins,
        "seat_win_lo": lo,
        "seat_win_hi": hi,
    }


def exact_seats(game: str, n_players: int | None = None, **rules) -> list[float]:
    """``win_probabilities`` of the solver for the rules of ``game`` (places in turn order)
    at a table of ``n_players`` (default the registry's ``default_players``)."""
    r = games.rules_for(game, DicePokerRules, "exact_seats", **rules)
    n_players = games.get(game).default_players if n_players is None else n_players
    variant = {k: v for k, v in rules.items() if k != "ante"}
    return win_probabilities(n_players, r.n_dice, **variant)
