"""The coach of ``tools/play.py``: every decision of the person valued by an exact player.

Dice poker: each move's chance to win the pot with everyone after playing optimally
(``agents.optimal.dice_poker.action_values``); the scorecard games: each move's expected
final score with optimal play from then on (``agents.optimal.scorecard.action_values``).
Card poker has no exact player, so its coach says so once and stays silent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from envs import games as registry
from envs.obs.yahtzee import observe
from envs.rules.dice_poker import DicePokerRules
from envs.rules.scorecard import N_REROLL_ACTIONS, ScorecardGame, ScorecardRules
from tools.playing.base import Table, percent
from tools.playing.dice_poker import DicePokerTable
from tools.playing.scorecard import ScorecardTable


def scorecard_action_values(game: ScorecardGame, solution) -> dict[int, float]:
    """Each legal action's expected final total, every later decision optimal.

    ``solution``: ``agents.optimal.scorecard.solve(rules)``; the points to come
    (``agents.optimal.scorecard.action_values``) plus the card's total so far.
    """
    from agents.optimal.scorecard import action_values

    values = action_values(solution, observe(game), game.action_mask())
    return {a: game.card.total + v for a, v in values.items()}


@dataclass
class Advice:
    """The coach's view of one decision: every legal action's value and the optimal one."""

    values: dict[int, float]
    best: int
    described: str  # the optimal move in the person's words


class Coach:
    """Values the person's decisions with an exact player where the game has one."""

    unit = ""

    def __init__(self) -> None:
        self.decisions = self.misses = 0
        self.lost = 0.0

    def advise(self, table: Table) -> Advice | None:
        return None

    def intro(self) -> str:
        return "coach: card poker has no exact player, so there is no advice in it."

    def fmt(self, value: float) -> str:
        return f"{value:.1f}"

    def judge(self, advice: Advice, action: int, mine: str) -> str:
        """One line on the person's move ``action`` (``mine``: its words)."""
        values = advice.values
        best, yours = values[advice.best], values[action]
        self.decisions += 1
        # float noise of the solvers is far below a thousandth of a point
        cost = max(best - yours, 0.0)
        if cost < 1e-9:
            return f"coach: optimal ({self.unit} {self.fmt(yours)})"
        self.misses += 1
        self.lost += cost
        return (
            f"coach: optimal was {advice.described} ({self.unit} {self.fmt(best)}); "
            f"your {mine}: {self.fmt(yours)}, cost {self.fmt_cost(cost)}"
        )

    def fmt_cost(self, cost: float) -> str:
        return f"{cost:.2f} points"

    def report(self) -> list[str]:
        if not self.decisions:
            return []
        return [
            f"coach: {self.decisions} decisions, {self.decisions - self.misses} optimal; "
            f"total cost {self.fmt_cost(self.lost)} of {self.unit}"
        ]


class DicePokerCoach(Coach):
    unit = "win chance"

    def __init__(self, game: str, rules: DicePokerRules) -> None:
        super().__init__()
        from agents.optimal.dice_poker import DicePokerOptimal

        options = {k: getattr(rules, k) for k in registry.get(game).rule_options}
        self.optimal = DicePokerOptimal(game, **options)

    def fmt(self, value: float) -> str:
        return percent(value)

    def fmt_cost(self, cost: float) -> str:
        return f"{100 * cost:.1f} percentage points"

    def advise(self, table: Table) -> Advice:
        obs = table.observation(table.current_seat)
        values = self.optimal.action_values(obs)
        best = self.optimal.act(obs, table.mask())
        return Advice(values, best, table.describe(best))

    def intro(self) -> str:
        return (
            "coach: after each move, the optimal move and each move's chance to win the pot "
            "(everyone after you playing optimally)."
        )


class ScorecardCoach(Coach):
    unit = "expected final score"

    def fmt(self, value: float) -> str:
        return f"{value:.2f}"

    def __init__(self, solution) -> None:
        super().__init__()
        self.solution = solution

    def advise(self, table: Table) -> Advice:
        assert isinstance(table, ScorecardTable)
        values = scorecard_action_values(table.now, self.solution)
        # ties: stop rather than re-roll, then the lower action (the optimal agent's order)
        best = max(values, key=lambda a: (values[a], a >= N_REROLL_ACTIONS, -a))
        return Advice(values, best, table.describe(best))

    def intro(self) -> str:
        return (
            "coach: after each move, the optimal move and each move's expected final score "
            "(optimal play from then on)."
        )


def solving_note(rules, game: str, say: Callable[..., None] | None) -> None:
    """Warn before the first (slow) exact solve of a scorecard game (other rules: no note)."""
    if say is None or not isinstance(rules, ScorecardRules):
        return
    from agents.optimal.scorecard import cache_path

    if not cache_path(rules).exists():
        say(
            f"Solving {registry.get(game).title} exactly for the optimal player (the first "
            "time only; the classic game takes about a minute)..."
        )


def build_coach(table: Table, say: Callable[..., None]) -> Coach:
    """The coach of ``table``'s game (a silent one for card poker)."""
    if isinstance(table, DicePokerTable):
        return DicePokerCoach(table.game, table.rules)
    if isinstance(table, ScorecardTable):
        from agents.optimal.scorecard import solve

        solving_note(table.rules, table.game, say)
        return ScorecardCoach(solve(table.rules))
    return Coach()
