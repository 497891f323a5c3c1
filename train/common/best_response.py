"""What ``train/best_response.py`` and the benchmarks share (a module, not a script): the
table a best response plays, its config and the frozen agent, checked, and the evaluation
on duplicate deals that the full game and mini card poker (``benchmarks/mini_br_curve.py``)
both use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import Agent, make_agent
from agents.arena import check_fits, check_spec, display_name, mean_interval
from envs import games
from train.common.config import ConfigError, is_int
from train.common.sb3 import RunConfig, load_env_run, ppo_arguments


def games_with_engine() -> tuple[str, ...]:
    """The betting games (chips) with a batched engine: those a best response can train at."""
    return tuple(n for n in games.of_kind("chips") if games.get(n).batched_engine is not None)


# the run: fields a best response reads (train/ppo.py reads the others)
RUN_FIELDS = (
    "seed",
    "n_envs",
    "total_timesteps",
    "eval_every",
    "eval_episodes",
    "final_eval_episodes",
    "checkpoint_every",
    "torch_threads",
    "out_dir",
)


@dataclass
class Table:
    """What the best response plays: the game, the seats, the frozen agent, the rules."""

    game: str
    players: int
    against: str | Agent
    rules: dict[str, Any]


def load_config(
    name: str,
    game: str | None = None,
    against: str | Agent | None = None,
    players: int | None = None,
    rules: dict[str, Any] | None = None,
    overrides: dict[str, Any] | None = None,
) -> tuple[Table, dict[str, Any], RunConfig]:
    """The table, ``ppo:`` and ``run:`` of training config ``name`` (a ``train/ppo.py``
    config, read and checked by its :func:`train.common.sb3.load_env_run` and
    :func:`train.common.sb3.ppo_arguments`). The config's ``env:`` gives the defaults: its game,
    ``n_players``, ``opponents`` (the frozen agent) and rule options (these only for its
    own game); ``game``, ``against``, ``players`` and ``rules`` replace them, ``overrides``
    (None = keep) replace ``run:`` fields."""
    trainers = ("ppo", "best_response")
    path, data, env, run = load_env_run(name, overrides, None, trainers, "best_response")
    ppo = data.get("ppo") or {}
    ppo_arguments(ppo)
    own = games.by_gym_id(env.id).name
    game = game or own
    kwargs = env.kwargs if game == own else {}
    record = games.get(game)
    table_rules, _ = record.split_options(kwargs)
    table_rules.pop("n_dice", None)  # set by the game itself (dice_poker, dice_poker6)
    table_rules.update(rules or {})
    if against is None:
        against = kwargs.get("opponents")
        if not isinstance(against, str):
            raise ConfigError(
                f"no frozen agent: give --against (the config's env.kwargs.opponents is "
                f"{against!r})"
            )
    players = players if players is not None else kwargs.get("n_players", record.default_players)
    return Table(game, players, against, table_rules), ppo, run


def frozen_agent(against: str | Agent, game: str, players: int, rules: dict) -> Agent:
    """The frozen player as an Agent, checked against the game and the table's observation."""
    if game not in games_with_engine():
        raise ConfigError(
            f"game {game!r} has no batched betting engine; choose one of "
            f"{', '.join(games_with_engine())}"
        )
    record = games.get(game)
    low, high = record.players
    if not is_int(players) or not max(low, 2) <= players <= high:
        raise ConfigError(f"players must be {max(low, 2)}..{high} for {game}, got {players!r}")
    try:
        record.make_rules(**rules)
        if isinstance(against, str):
            check_spec(against, game)
        agent = make_agent(against, game, **rules)
    except (ValueError, TypeError, FileNotFoundError) as err:
        raise ConfigError(f"--against {display_name(against)!r}: {err}") from None
    try:
        check_fits(agent, game, players, rules, f"--against {display_name(against)!r}")
    except ValueError as err:
        raise ConfigError(str(err)) from None
    return agent


# -- the evaluation: the measured player in every seat of each deal (duplicate deals) ------
#
# One place for the full game (train/best_response.py, on the batched engine) and mini card
# poker (benchmarks/mini_br_curve.py, on the game tree): both play ``players`` games per
# deal, the measured player in seat 0, 1, ... of the same deal, and count a deal's mean as
# one draw of the interval.

EVAL_BLOCKS = 2000  # deals per batched call (tables held at once, per seat)


def block_seeds(seed: int, n_blocks: int) -> list[int]:
    """The chance seed of each duplicate block (one deal, every seat) of evaluation ``seed``:
    word ``b`` of ``SeedSequence(seed)``'s state, so a block's deal does not depend on the
    number of blocks or the chunk it is played in."""
    words = np.random.SeedSequence(seed).generate_state(n_blocks, np.uint64)
    return [int(w) for w in words]


def rotated_blocks(
    play_seat: Callable[[int, list[int]], np.ndarray],
    players: int,
    n_blocks: int,
    seed: int,
    bar=None,
    chunk: int = EVAL_BLOCKS,
) -> np.ndarray:
    """``(n_blocks, players)`` chips: entry ``[b, s]`` is what the measured player won in
    seat ``s`` of block ``b``'s deal. ``play_seat(seat, seeds)`` plays one game per seed
    with the measured player in ``seat`` (the others frozen), each game's chance from its
    seed's own stream, and returns its chips per game."""
    seeds = block_seeds(seed, n_blocks)
    out = np.empty((n_blocks, players))
    for first in range(0, n_blocks, chunk):
        part = seeds[first : first + chunk]
        for seat in range(players):
            out[first : first + len(part), seat] = play_seat(seat, part)
            if bar is not None:
                bar.update(len(part))
    return out


def summarise_blocks(chips: np.ndarray) -> dict[str, Any]:
    """Chips per game of ``(blocks, seats)`` results (:func:`rotated_blocks`) with the 95%
    interval over the blocks (mean ± 1.96 standard errors of the block means: the games of
    a block share a deal, so a block is one draw), the win rate (games with a gain) with
    the normal interval over the blocks, and each seat's mean."""
    chips = np.asarray(chips, dtype=float)
    mean, lo, hi = mean_interval(chips.mean(axis=1))
    rate, rate_lo, rate_hi = mean_interval((chips > 0).mean(axis=1))
    return {
        "games": int(chips.size),
        "duplicate_blocks": int(len(chips)),
        "chips_per_game": mean,
        "chips_per_game_ci95": [lo, hi],
        "win_rate": rate,
        "win_rate_ci95": [max(rate_lo, 0.0), min(rate_hi, 1.0)],
        "chips_by_seat": chips.mean(axis=0).tolist(),
    }


def eval_blocks(n_games: int, players: int) -> int:
    """Duplicate blocks for about ``n_games`` games: ``ceil(n_games / players)``."""
    return -(-int(n_games) // players)


def play_at_seat(
    act_batch, game: str, seat: int, seeds: list[int], players: int, against, rules: dict
) -> np.ndarray:
    """One game per seed on ``game``'s batched engine, ``act_batch`` in ``seat``, the frozen
    agent ``against`` in the others; game ``i``'s cards or dice (and the frozen agent's own
    random draws) from ``seeds[i]``'s stream (``reset(seed=[...])`` of the vector envs), so
    games of one seed meet the same deal whoever sits where: its chips per game."""
    from agents.tables import make_engine
    from envs.vector import seed_engine

    env_id = games.get(game).gym_id
    options = {"n_players": players, "opponents": against, "agent_seat": seat, **rules}
    engine, _, scale = make_engine(env_id, len(seeds), seed=0, **options)
    seed_engine(engine, list(seeds))
    engine.reset()
    totals = np.zeros(len(seeds))
    live = np.ones(len(seeds), dtype=bool)
    actions = np.zeros(len(seeds), dtype=np.int64)
    while live.any():
        idx = np.flatnonzero(live)
        actions[:] = 0  # finished games wait: their action is skipped
        actions[idx] = act_batch(engine.observe()[idx], engine.action_masks()[idx])
        totals += np.where(live, engine.step_some(actions, live), 0) * scale
        live &= ~engine.done
    return totals


# -- the curve: one training, its policy scored at several budgets ----------------------------


def check_budgets(budgets, steps: int | None = None) -> list[int] | None:
    """``budgets`` (the learner's decisions at which its policy is scored) sorted, or None
    for none given; each a whole number >= 1, and ``steps`` (the run's budget, where given)
    their largest: one ConfigError line naming the bad value otherwise."""
    if budgets is None:
        return None
    budgets = list(budgets)
    bad = [b for b in budgets if not is_int(b) or b < 1]
    if not budgets or bad:
        raise ConfigError(
            f"budgets must be whole numbers >= 1 (decisions), got {bad[0] if bad else budgets!r}"
        )
    out = sorted({int(b) for b in budgets})
    if steps is not None and steps != out[-1]:
        raise ConfigError(
            f"--steps {steps} is not the largest of --budgets {out}: the run trains to the "
            "largest budget (give one or the other)"
        )
    return out


def budget_callback(budgets: list[int], at_budget: Callable[[int, int], None]):
    """An SB3 callback calling ``at_budget(budget, step)`` for each of ``budgets`` (sorted)
    once PPO has updated on the rollout that reached it: at the start of the next rollout,
    or at the end of training, ``step`` being the decisions trained on (the budget rounded
    up to whole rollouts), so the policy scored is the one trained on them."""
    from stable_baselines3.common.callbacks import BaseCallback

    todo = list(budgets)

    class AtBudgets(BaseCallback):
        def _due(self) -> None:
            step = int(self.model.num_timesteps)
            while todo and step >= todo[0]:
                at_budget(todo.pop(0), step)

        def _on_rollout_start(self) -> None:
            self._due()

        def _on_training_end(self) -> None:
            self._due()

        def _on_step(self) -> bool:
            return True

    return AtBudgets()


# -- the table of docs/exploitability.md -----------------------------------------------------


def curve_points(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A results.json's curve rows (``budget``, ``train_steps``, ``best_response``); a run
    written before curves is one row at its budget, measured on independent deals."""
    if "curve" in result:
        return result["curve"]
    budget = result.get("run", {}).get("total_timesteps", result["train_steps"])
    return [{"budget": budget, "train_steps": result["train_steps"], **result}]


def chips_ci(s: dict[str, Any]) -> str:
    """Chips per game and its 95% interval, as the tables write it."""
    lo, hi = s["chips_per_game_ci95"]
    return f"{s['chips_per_game']:+.3f} ({lo:+.3f} to {hi:+.3f})"


def _evaluation(s: dict[str, Any], players: int) -> str:
    if "duplicate_blocks" in s:
        return f"{s['duplicate_blocks']:,} deals x {players} seats"
    return f"{s['games']:,} independent"


def exploitability_table(runs: list[dict[str, Any]]) -> str:
    """The markdown table of ``runs`` (results.json contents): a row per game, rules,
    players, frozen agent and budget, with the best response's chips per game as the mean ±
    sample sd across seeds and each seed's value with its 95% interval, the random agent in
    the learner's place, the optimal one and the exact ceiling where there are, and the
    training steps/s (mean over the seeds)."""
    groups: dict[tuple, list[tuple[dict, dict]]] = {}
    for r in runs:
        rules = " ".join(f"{k}={v}" for k, v in sorted(r["rules"].items()))
        for point in curve_points(r):
            key = (r["game"], rules, r["players"], r["against"], point["budget"])
            groups.setdefault(key, []).append((r, point))
    lines = [
        "| game | against | budget | steps | seeds | evaluation | best response: mean ± sd "
        "over seeds | per seed (95% CI) | random there | optimal there | exact ceiling | "
        "steps/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (game, rules, players, against, budget), rows in sorted(groups.items()):
        rows.sort(key=lambda rp: rp[0]["seed"])
        x = np.array([p["best_response"]["chips_per_game"] for _, p in rows])
        sd = f" ± {x.std(ddof=1):.3f}" if len(x) > 1 else ""
        per_seed = "; ".join(f"{r['seed']}: {chips_ci(p['best_response'])}" for r, p in rows)
        first = rows[0][0]
        optimal = (
            chips_ci(first["optimal_in_its_place"]) if "optimal_in_its_place" in first else "-"
        )
        ceiling = f"{first['ceiling']['chips_per_game']:+.4f}" if "ceiling" in first else "-"
        steps = "/".join(map(str, sorted({p["train_steps"] for _, p in rows})))
        speed = np.mean([r["train_steps_per_s"] for r, _ in rows])
        evaluation = _evaluation(rows[0][1]["best_response"], players)
        lines.append(
            f"| {' '.join(filter(None, (game, rules)))}, {players} players | {against} | "
            f"{budget:,} | {steps} | {len(rows)} | {evaluation} | {x.mean():+.3f}{sd} | "
            f"{per_seed} | {chips_ci(first['random_in_its_place'])} | {optimal} | {ceiling} | "
            f"{speed:.0f} |"
        )
    return "\n".join(lines)


def ppo_section(overrides: list[str]) -> dict:
    """The ``ppo:`` section of configs/best_response.yaml with ``key=value`` overrides
    (values read as YAML; ``policy_kwargs.net_arch=...`` reaches one level down)."""
    import yaml

    trainers = ("ppo", "best_response")
    _, data, _, _ = load_env_run("best_response.yaml", trainers=trainers, reader="best_response")
    ppo = dict(data.get("ppo") or {})
    for item in overrides:
        key, value = item.split("=", 1)
        value = yaml.safe_load(value)
        if "." in key:
            outer, inner = key.split(".", 1)
            ppo[outer] = {**(ppo.get(outer) or {}), inner: value}
        else:
            ppo[key] = value
    return ppo
