"""What agents choose at their first decision of a deal: does a policy read its cards?

    python benchmarks/first_decisions.py --agents ppo:runs/card_poker__card_poker__0/model.zip \\
        ppo:runs/card_poker__card_poker_league__1/model.zip --deals 300

Each agent plays ``--deals`` deals of ``CardPoker-v0`` (3 players, careful opponents, the
env's default rules) in the learner's seat, deal ``i`` seeded ``--seed + i`` so every agent
sees the same deals. Printed per agent: how many deals its first decision was each action,
and how many distinct actions it took over all its decisions. A policy that always makes the
same first move whatever it is dealt (e.g. always stands pat) does not read its hand.
"""

from __future__ import annotations

import argparse
import collections

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401


def first_decisions(agent, deals: int, seed: int) -> tuple[collections.Counter, int]:
    """(first action -> deals, distinct actions over every decision) of ``agent``."""
    import gymnasium as gym

    import envs  # noqa: F401  (registers the ids)

    agent.seed(seed)
    env = gym.make("CardPoker-v0", n_players=3, opponents="heuristic")
    first: collections.Counter = collections.Counter()
    taken: set[int] = set()
    try:
        for deal in range(deals):
            obs, info = env.reset(seed=seed + deal)
            done, k = False, 0
            while not done:
                action = int(agent.act(obs, info["action_mask"]))
                taken.add(action)
                if k == 0:
                    first[action] += 1
                k += 1
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
    finally:
        env.close()
    return first, len(taken)


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be >= 1, got {args.deals}")
    from agents import make_agent

    lines = ["| agent | first decision: action (deals) | distinct actions |", "|---|---|---|"]
    for spec in args.agents:
        first, distinct = first_decisions(
            make_agent(spec, game="card_poker"), args.deals, args.seed
        )
        shown = ", ".join(f"{a} ({n})" for a, n in first.most_common())
        lines.append(f"| {spec} | {shown} | {distinct} |")
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
