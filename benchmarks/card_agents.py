"""Card-poker agents head to head: chips per deal with 95% confidence intervals.

    python benchmarks/card_agents.py --deals 20000
    python benchmarks/card_agents.py --tables careful,random --deals 2000 --deck 54

Every table is played for ``--deals`` independent deals (fresh stacks of
``stack`` chips each deal); the agents' seats are rotated through every seat
order, so each agent plays each position equally often (when ``--deals`` is a
multiple of the number of orders). The interval is mean ± 1.96 standard errors
of the agent's net chips per deal.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from tqdm import tqdm

from agents import make_agent
from envs.card_poker import observe
from envs.rules.card_poker import CardPokerGame, CardPokerRules

DEFAULT_TABLES = [
    "careful,bluffer,random",
    "careful,bluffer",
    "careful,random",
    "bluffer,random",
]


def play_table(
    names: list[str], deals: int, seed: int = 0, progress: bool = True, **rules
) -> dict[str, np.ndarray]:
    """Net chips of every deal for each agent (by name; names must differ)."""
    r = CardPokerRules(**rules)
    agents = [make_agent(n, "card_poker", **rules) for n in names]
    rng = np.random.default_rng(seed)
    for agent in agents:
        agent.seed(int(rng.integers(2**63)))
    orders = list(itertools.permutations(range(len(agents))))
    chips = {n: np.zeros(deals) for n in names}
    for d in tqdm(range(deals), desc=" v ".join(names), disable=not progress):
        order = orders[d % len(orders)]  # order[seat] = agent index
        game = CardPokerGame(len(agents), rng, r)
        while not game.done:
            seat = game.current_player
            obs = observe(game, seat)
            game.step(agents[order[seat]].act(obs, game.action_mask()))
        for seat, gain in game.payoffs().items():
            chips[names[order[seat]]][d] = gain
    return chips


def ci95(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=DEFAULT_TABLES)
    parser.add_argument("--deals", type=int, default=20000)
    parser.add_argument("--deck", type=int, choices=(36, 54), default=36)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{args.deck} cards, {args.deals} deals per table, seats rotated, seed {args.seed}")
    rows = ["| table | agent | chips per deal (95% CI) |", "|---|---|---|"]
    start = time.perf_counter()
    for table in args.tables:
        names = table.split(",")
        chips = play_table(names, args.deals, seed=args.seed, deck=args.deck)
        for name in names:
            mean, half = ci95(chips[name])
            rows.append(f"| {' v '.join(names)} | {name} | {mean:+.3f} ± {half:.3f} |")
    print("\n".join(rows))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
