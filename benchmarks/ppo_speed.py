"""Where MaskablePPO's time goes on a batched engine: rollout and update, steps per second.

    python benchmarks/ppo_speed.py                                    # yahtzee_classic_ppo
    python benchmarks/ppo_speed.py --config yahtzee_classic_ppo --rounds 7

Builds the config's model and vectorised env exactly as ``train/ppo.py`` does, then times
rounds of one rollout (``n_steps`` x ``n_envs`` env steps: the engine, the observation
features and the policy's forward pass) and one update (PPO's gradient epochs over that
rollout). Beside the config it measures peers in the same run, round by round in turn, so
a busy machine slows all of them alike:

- ``256 tanh``: the config with the session-3 networks (256 x 256, tanh) and torch's
  argument checks of every distribution on;
- ``256 tanh, no checks``: the same networks with the checks off (what ``train/ppo.py`` does);
- ``config, 2 epochs``: the config with half the gradient epochs.

Every figure is the median over ``--rounds`` rounds of its steps/s (the first round,
which warms torch up, is not counted). End to end is steps / (rollout + update): training
without the evaluations, as ``steps_per_s`` in a run's ``metrics.csv``.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

if not __package__:  # run as a file: this checkout's packages first (train/_bootstrap.py)
    import _bootstrap  # noqa: F401

from benchmarks.timing import time_rounds  # noqa: E402
from train.common.sb3 import load_config, make_vec_env, ppo_arguments  # noqa: E402


def variants(ppo: dict) -> dict[str, tuple[dict, bool]]:
    """Name -> (the ``ppo:`` section, whether torch checks distribution arguments)."""
    old = copy.deepcopy(ppo)
    old.setdefault("policy_kwargs", {})
    old["policy_kwargs"]["net_arch"] = {"pi": [256, 256], "vf": [256, 256]}
    old["policy_kwargs"]["activation_fn"] = "tanh"
    fewer = {**copy.deepcopy(ppo), "n_epochs": max(1, int(ppo.get("n_epochs", 10)) // 2)}
    return {
        "config": (ppo, False),
        "256 tanh": (old, True),
        "256 tanh, no checks": (old, False),
        f"config, {fewer['n_epochs']} epochs": (fewer, False),
    }


class _Timer:
    """One model of a variant, timed a rollout and an update at a time."""

    def __init__(self, cfg, ppo: dict, validate: bool) -> None:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.utils import configure_logger

        class _Nothing(BaseCallback):
            def _on_step(self) -> bool:
                return True

        self.validate = validate
        env = make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed)
        self.model = MaskablePPO(
            env=env, seed=cfg.run.seed, device="cpu", verbose=0, **ppo_arguments(ppo)
        )
        self.model.set_logger(configure_logger(0, None, "", False))
        self.model._setup_learn(self.model.n_steps * env.num_envs, None)
        self.callback = _Nothing()
        self.callback.init_callback(self.model)
        self.steps = self.model.n_steps * env.num_envs

    def round(self) -> tuple[float, float]:
        import torch

        torch.distributions.Distribution.set_default_validate_args(self.validate)
        m = self.model
        start = time.perf_counter()
        m.collect_rollouts(m.env, self.callback, m.rollout_buffer, n_rollout_steps=m.n_steps)
        mid = time.perf_counter()
        m.train()
        return mid - start, time.perf_counter() - mid


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="yahtzee_classic_ppo", help="a PPO config")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per variant")
    parser.add_argument("--n-envs", type=int, default=None, help="games per call (the config's)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    import torch

    cfg = load_config(args.config, {"n_envs": args.n_envs})
    torch.set_num_threads(cfg.run.torch_threads)
    timers = {name: _Timer(cfg, p, v) for name, (p, v) in variants(cfg.ppo).items()}
    times = time_rounds(timers, args.rounds)
    steps = next(iter(timers.values())).steps
    print(
        f"{cfg.name}: {steps:,} env steps per round ({cfg.run.n_envs} games x n_steps), "
        f"torch threads {cfg.run.torch_threads}, medians of {args.rounds} rounds"
    )
    print("| variant | rollout steps/s | update steps/s | end to end steps/s | vs 256 tanh |")
    print("|---|---|---|---|---|")
    rates = {}  # variant -> medians of rollout, update and end-to-end steps/s
    for name, rows in times.items():
        r, u = np.array(rows).T
        rates[name] = [float(np.median(steps / x)) for x in (r, u, r + u)]
    for name, (rollout, update, both) in rates.items():
        ratio = both / rates["256 tanh"][2]
        print(f"| {name} | {rollout:,.0f} | {update:,.0f} | {both:,.0f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
