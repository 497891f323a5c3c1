"""Agents against agents at the dice-poker table, every seat order played equally."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from agents import Agent, make_agent
from envs.dice_poker import observe
from envs.rules.dice_poker import DicePokerGame, DicePokerRules


def wilson_interval(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


@dataclass
class SeatStats:
    games: int = 0
    wins: int = 0
    chips: list[int] = field(default_factory=list)


@dataclass
class DicePokerResult:
    """Per agent and per position in the turn order: games, wins, chips."""

    names: list[str]
    by_position: dict[tuple[int, int], SeatStats]  # (agent index, position) -> stats

    def total(self, agent: int) -> SeatStats:
        out = SeatStats()
        for (a, _), s in self.by_position.items():
            if a == agent:
                out.games += s.games
                out.wins += s.wins
                out.chips += s.chips
        return out

    def table(self) -> str:
        """A markdown table: win rate with 95% CI, overall and by position, chips per game."""
        n_pos = 1 + max(p for _, p in self.by_position)
        head = ["agent", "win rate (95% CI)", *(f"pos {p + 1}" for p in range(n_pos)), "chips/game"]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for a, name in enumerate(self.names):
            t = self.total(a)
            lo, hi = wilson_interval(t.wins, t.games)
            cells = [name, f"{t.wins / t.games:.3f} ({lo:.3f}-{hi:.3f})"]
            for p in range(n_pos):
                s = self.by_position.get((a, p), SeatStats())
                cells.append(f"{s.wins / s.games:.3f}" if s.games else "-")
            chips = np.array(t.chips, dtype=float)
            ci = 1.96 * chips.std(ddof=1) / np.sqrt(len(chips)) if len(chips) > 1 else float("nan")
            cells.append(f"{chips.mean():+.3f} ± {ci:.3f}")
            rows.append("| " + " | ".join(cells) + " |")
        return "\n".join(rows)


def play_dice_poker(
    specs: list[str | Agent],
    n_games: int,
    n_dice: int = 5,
    seed: int = 0,
    progress: bool = True,
    **rules,
) -> DicePokerResult:
    """Play ``n_games`` games among the agents, cycling through every seat order.

    Each game draws a turn order from the permutations of the agents in turn,
    so every agent plays every position equally often (when ``n_games`` is a
    multiple of ``len(specs)!``). The play-off is part of the game.
    """
    game_name = "dice_poker" if n_dice == 5 else "dice_poker6"
    agents = [make_agent(s, game_name, **rules) for s in specs]
    names = [s if isinstance(s, str) else s.name for s in specs]
    rng = np.random.default_rng(seed)
    for agent in agents:
        agent.seed(int(rng.integers(2**63)))
    rules_obj = DicePokerRules(n_dice=n_dice, **rules)
    orders = list(itertools.permutations(range(len(agents))))
    stats: dict[tuple[int, int], SeatStats] = {}
    for g in tqdm(range(n_games), desc="games", disable=not progress):
        order = list(orders[g % len(orders)])
        game = DicePokerGame(order, rng, rules_obj)
        while not game.done:
            seat = game.current_player
            game.step(agents[seat].act(observe(game, seat), game.action_mask()))
        for pos, a in enumerate(order):
            s = stats.setdefault((a, pos), SeatStats())
            s.games += 1
            s.wins += game.winner == a
            s.chips.append(game.payoffs()[a])
    return DicePokerResult(names, stats)
