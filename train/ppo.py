"""Train a MaskablePPO agent on any dicepoker-gym env from one YAML config.

    python train/ppo.py --config quickstart.yaml
    python train/ppo.py --config yahtzee.yaml --total-timesteps 2000000 --seed 1
    python train/ppo.py --config dice_poker.yaml --resume
    python train/ppo.py --config dice_poker.yaml --rule lock_kept_dice=false --out runs/free

A bare file name is looked up in ``configs/``. The config has three sections:
``env:`` (``id`` and ``kwargs``), ``ppo:`` (exactly MaskablePPO's constructor
arguments) and ``run:`` (the fields of :class:`RunConfig`). Everything lands in
``runs/{game}__{config}__{seed}/``: ``model.zip``, ``config.yaml`` (resolved),
``metrics.csv``, ``curve.png``, ``checkpoints/`` and TensorBoard logs.
``--rule KEY=VALUE`` (repeatable) sets ``env.kwargs[KEY]`` over the config's value.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import inspect
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import yaml

import envs  # noqa: F401  (registers the ids)
from agents import Agent, make_agent
from agents.ppo import PPOAgent, normalizer_path
from envs import games
from envs.cli import add_rule_argument, rule_options
from envs.vector import BATCHED_IDS, BatchedVecEnv, play_games

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "configs"


def _chips(cfg: Config) -> bool:
    """The game is scored in chips (else in points); the registry says which."""
    return games.by_gym_id(cfg.env.id).result == "chips"


@dataclass
class EnvConfig:
    id: str  # a Gymnasium id registered by ``import envs``
    kwargs: dict[str, Any] = field(default_factory=dict)  # keyword arguments of gym.make


@dataclass
class SelfPlayConfig:
    enabled: bool = False
    snapshot_every: int = 50_000  # timesteps between snapshots added to the pool
    pool_size: int = 5  # newest snapshots kept as opponents
    heuristic_share: float = 0.5  # chance that an opponent seat plays the env's fixed opponent


@dataclass
class RunConfig:
    seed: int = 0
    n_envs: int = 4  # parallel envs feeding PPO
    vec_env: str = "dummy"  # "dummy" (one process) or "subproc" (one process per env)
    # "batched": one numpy engine steps all n_envs games (envs.vector; the scorecard ids);
    # "scalar": one Gymnasium env per game under vec_env; "auto": batched where it exists
    engine: str = "auto"
    torch_threads: int = 1  # small MLPs on 2 cores: more threads only add contention
    normalize_obs: bool = False  # scale observations by running mean/std (VecNormalize)
    total_timesteps: int = 100_000
    eval_every: int = 20_000  # timesteps between evaluations
    eval_episodes: int = 500  # episodes per evaluation and per opponent
    eval_opponents: list[str] = field(default_factory=lambda: ["heuristic"])  # poker games
    final_eval_episodes: int = 2_000  # episodes of the evaluation after training
    checkpoint_every: int = 50_000  # timesteps between checkpoints (for --resume)
    out_dir: str = "runs"
    self_play: SelfPlayConfig = field(default_factory=SelfPlayConfig)


@dataclass
class Config:
    name: str
    env: EnvConfig
    ppo: dict[str, Any]
    run: RunConfig

    @property
    def game(self) -> str:
        return games.by_gym_id(self.env.id).name

    @property
    def run_name(self) -> str:
        return f"{self.game}__{self.name}__{self.run.seed}"

    @property
    def run_dir(self) -> Path:
        return Path(self.run.out_dir) / self.run_name


# -- config loading ------------------------------------------------------------------------------


def _build(cls, data: Any, where: str):
    """Build dataclass ``cls`` from a mapping, naming any unknown or mistyped key."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be a mapping, got {data!r}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(known)}")
    values = {}
    for name, value in data.items():
        f = known[name]
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default):
            value = _build(type(default), value, f"{where}.{name}")
        elif (
            default is not dataclasses.MISSING
            and not isinstance(value, type(default))
            and not (isinstance(default, float) and isinstance(value, int))
        ):
            raise ValueError(f"{where}.{name} must be {type(default).__name__}, got {value!r}")
        values[name] = value
    return cls(**values)


ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")


def _schedule(spec: dict, where: str):
    """``{linear: [start, end]}`` -> an SB3 schedule of the remaining progress."""
    if set(spec) != {"linear"} or len(spec["linear"]) != 2:
        raise ValueError(f"{where} must be a number or {{linear: [start, end]}}, got {spec!r}")
    start, end = (float(v) for v in spec["linear"])
    return lambda progress_remaining: end + (start - end) * progress_remaining


def ppo_arguments(ppo: dict[str, Any]) -> dict[str, Any]:
    """Check the ``ppo:`` keys against MaskablePPO's constructor and turn YAML into objects."""
    from sb3_contrib import MaskablePPO

    allowed = set(inspect.signature(MaskablePPO.__init__).parameters) - {"self", "env"}
    allowed -= {"tensorboard_log", "seed", "verbose", "_init_setup_model", "device"}
    unknown = sorted(set(ppo) - allowed)
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} in ppo:; MaskablePPO takes {sorted(allowed)}")
    args = dict(ppo)
    from agents.policies import POLICIES

    policy = args.setdefault("policy", "MlpPolicy")
    if policy not in POLICIES:
        raise ValueError(f"ppo.policy {policy!r}: choose one of {sorted(POLICIES)}")
    args["policy"] = POLICIES[policy]
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if isinstance(args.get(key), dict):
            args[key] = _schedule(args[key], f"ppo.{key}")
    kwargs = dict(args.get("policy_kwargs") or {})
    if "activation_fn" in kwargs:
        import torch.nn as nn

        name = kwargs["activation_fn"]
        if name not in ACTIVATIONS:
            raise ValueError(
                f"ppo.policy_kwargs.activation_fn {name!r}: choose one of {ACTIVATIONS}"
            )
        kwargs["activation_fn"] = {
            "tanh": nn.Tanh,
            "relu": nn.ReLU,
            "elu": nn.ELU,
            "leaky_relu": nn.LeakyReLU,
        }[name]
    if kwargs:
        args["policy_kwargs"] = kwargs
    return args


def find_config(name: str) -> Path:
    path = Path(name)
    if path.is_file():
        return path
    if (CONFIG_DIR / name).is_file():
        return CONFIG_DIR / name
    available = sorted(p.name for p in CONFIG_DIR.glob("*.yaml"))
    raise FileNotFoundError(f"no config {name!r} here or in configs/; available: {available}")


SECTIONS = ("env", "ppo", "run", "rllib")  # rllib: is read by train/rllib.py


def load_env_run(
    name: str, overrides: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None
) -> tuple[Path, dict[str, Any], EnvConfig, RunConfig]:
    """The ``env:`` and ``run:`` sections of config ``name``, checked (``overrides`` replace
    ``run:`` fields, ``env_kwargs`` env kwargs), with the file's path and raw sections."""
    path = find_config(name)
    data = yaml.safe_load(path.read_text()) or {}
    unknown = sorted(set(data) - set(SECTIONS))
    if unknown:
        raise ValueError(f"unknown section(s) {unknown} in {path}; allowed: {', '.join(SECTIONS)}")
    env = _build(EnvConfig, data.get("env"), f"{path.name}: env")
    env.kwargs = {**env.kwargs, **(env_kwargs or {})}
    try:
        games.by_gym_id(env.id)
    except ValueError as err:
        raise ValueError(f"{path.name}: {err}") from None
    run_data = dict(data.get("run") or {})
    run_data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    run = _build(RunConfig, run_data, f"{path.name}: run")
    if run.vec_env not in ("dummy", "subproc"):
        raise ValueError(f"run.vec_env must be 'dummy' or 'subproc', got {run.vec_env!r}")
    if run.engine not in ("auto", "batched", "scalar"):
        raise ValueError(f"run.engine must be 'auto', 'batched' or 'scalar', got {run.engine!r}")
    if run.engine == "batched" and env.id not in BATCHED_IDS:
        raise ValueError(f"run.engine: no batched engine for {env.id}; batched: {BATCHED_IDS}")
    return path, data, env, run


def check_eval_opponents(cfg: Config, path: Path) -> None:
    """Every ``run.eval_opponents`` entry exists for the game (before any work)."""
    for spec in baselines(cfg):
        try:
            make_agent(spec, cfg.game)
        except ValueError as err:
            raise ValueError(f"{path.name}: run.eval_opponents: {err}") from err


def load_config(
    name: str, overrides: dict[str, Any] | None = None, env_kwargs: dict[str, Any] | None = None
) -> Config:
    """The config ``name``; ``overrides`` replace ``run:`` fields, ``env_kwargs`` env kwargs."""
    path, data, env, run = load_env_run(name, overrides, env_kwargs)
    ppo = data.get("ppo") or {}
    ppo_arguments(ppo)  # validate now, before any work
    cfg = Config(path.stem, env, ppo, run)
    check_eval_opponents(cfg, path)
    return cfg


# -- evaluation ----------------------------------------------------------------------------------


def evaluate(
    agent: Agent, cfg: Config, n_episodes: int, seed: int, opponents: str | None = None
) -> dict[str, float]:
    """Play ``agent`` in the config's env; mean result with a 95% CI.

    For the poker games the win rate is the share of episodes with a positive
    net result (a split pot counts only if it gains chips).
    """
    kwargs = dict(cfg.env.kwargs)
    if opponents is not None:
        kwargs["opponents"] = opponents
    kwargs.pop("reward_scale", None)  # report scores in points
    if batched(cfg):  # every episode at once on the batched engine
        totals = play_games(agent.act_batch, cfg.env.id, n_episodes, seed, **kwargs)
        return {
            "mean": float(totals.mean()),
            "ci95": float(1.96 * totals.std(ddof=1) / np.sqrt(len(totals))),
        }
    env = gym.make(cfg.env.id, **kwargs)
    totals = []
    agent.seed(seed)
    for episode in range(n_episodes):
        obs, info = env.reset(seed=seed + episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
            total += reward
            done = terminated or truncated
        totals.append(total)
    totals = np.array(totals)
    out = {
        "mean": float(totals.mean()),
        "ci95": float(1.96 * totals.std(ddof=1) / np.sqrt(len(totals))),
    }
    if _chips(cfg):
        out["win_rate"] = float((totals > 0).mean())
    return out


def optimal_score(cfg: Config) -> float:
    """The exact optimal expected score of a scorecard game (solved once, then cached)."""
    from agents.optimal.yahtzee import solve

    rules, _ = games.get(cfg.game).split_options(cfg.env.kwargs)
    return solve(games.get(cfg.game).make_rules(**rules)).expected_score


def baselines(cfg: Config) -> list[str]:
    """The opponents a poker model is measured against (none for the scorecard games)."""
    return list(cfg.run.eval_opponents) if _chips(cfg) else []


# -- training ------------------------------------------------------------------------------------


def batched(cfg: Config) -> bool:
    """Whether the run steps a batched engine (``run.engine``)."""
    return cfg.run.engine == "batched" or (cfg.run.engine == "auto" and cfg.env.id in BATCHED_IDS)


def make_vec_env(cfg: Config, n_envs: int, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    kwargs = dict(cfg.env.kwargs)
    if cfg.run.self_play.enabled:
        sp = cfg.run.self_play
        rules, _ = games.get(cfg.game).split_options(kwargs)
        fixed = kwargs.get("opponents", "heuristic")
        kwargs["opponents"] = [
            SnapshotPool(
                cfg.run_dir / "pool", cfg.game, fixed, sp.heuristic_share, sp.pool_size, rules
            )
            for _ in range(kwargs.get("n_players", 3) - 1)
        ]
    if batched(cfg):
        vec = BatchedVecEnv(cfg.env.id, n_envs, **kwargs)
    else:
        cls = SubprocVecEnv if cfg.run.vec_env == "subproc" and n_envs > 1 else DummyVecEnv
        vec = cls([functools.partial(_monitored, cfg.env.id, kwargs) for _ in range(n_envs)])
    vec.seed(seed)
    if cfg.run.normalize_obs:
        from stable_baselines3.common.vec_env import VecNormalize

        vec = VecNormalize(vec, norm_obs=True, norm_reward=False)
    return vec


def _monitored(env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    from stable_baselines3.common.monitor import Monitor

    return Monitor(gym.make(env_id, **kwargs))


class SnapshotPool(Agent):
    """Self-play opponent: at each episode (``seed``) it becomes one of the newest
    snapshots of the learner, or the fixed opponent with probability ``fixed_share``."""

    name = "pool"

    def __init__(self, folder, game, fixed, fixed_share, pool_size, rules) -> None:
        super().__init__()
        self.folder, self.game, self.rules = Path(folder), game, rules
        self.fixed = make_agent(fixed, game, **rules)
        self.fixed_share, self.pool_size = fixed_share, pool_size
        self._loaded: dict[Path, Agent] = {}
        self.current: Agent = self.fixed

    def seed(self, seed: int | None = None) -> None:
        super().seed(seed)
        snaps = sorted(self.folder.glob("*.zip"))[-self.pool_size :]
        if not snaps or self.rng.random() < self.fixed_share:
            self.current = self.fixed
        else:
            pick = snaps[int(self.rng.integers(len(snaps)))]
            if pick not in self._loaded:
                self._loaded[pick] = make_agent(f"ppo:{pick}", self.game, **self.rules)
            self.current = self._loaded[pick]
        self.current.seed(int(self.rng.integers(2**63)))

    def act(self, observation, action_mask) -> int:
        return self.current.act(observation, action_mask)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="Train MaskablePPO from a YAML config.")
    parser.add_argument("--config", required=True, help="a YAML file, or a name in configs/")
    parser.add_argument("--total-timesteps", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--out", dest="out_dir")
    parser.add_argument("--n-envs", type=int)
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_rule_argument(parser, example="lock_kept_dice=false")
    args = parser.parse_args(argv)

    overrides = {k: getattr(args, k) for k in ("total_timesteps", "seed", "out_dir", "n_envs")}
    cfg = load_config(args.config, overrides, rule_options(parser, args))
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(cfg.run.torch_threads)
    run_dir = cfg.run_dir
    ckpt_dir = run_dir / "checkpoints"
    checkpoints = sorted(ckpt_dir.glob("step_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
    if run_dir.exists() and (run_dir / "model.zip").exists() and not args.resume:
        raise FileExistsError(f"{run_dir} already holds a finished run; use --out or --seed")
    if args.resume and not checkpoints:
        raise FileNotFoundError(f"--resume: no checkpoint in {ckpt_dir}")
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "pool").mkdir(exist_ok=True)
    resolved = {
        "env": dataclasses.asdict(cfg.env),
        "ppo": cfg.ppo,
        "run": dataclasses.asdict(cfg.run),
    }
    (run_dir / "config.yaml").write_text(yaml.safe_dump(resolved, sort_keys=False))

    # A resumed run seeds its envs afresh, so it does not replay the episodes it began with.
    start = int(checkpoints[-1].stem.split("_")[1]) if args.resume else 0
    vec = make_vec_env(cfg, cfg.run.n_envs, cfg.run.seed + start)
    if args.resume:
        last = checkpoints[-1]
        if cfg.run.normalize_obs:
            from stable_baselines3.common.vec_env import VecNormalize

            vec = VecNormalize.load(str(normalizer_path(last)), vec.venv)
        model = MaskablePPO.load(last, env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"))
        print(f"resuming {run_dir} from {last.name} ({model.num_timesteps} steps)")
    else:
        model = MaskablePPO(
            env=vec,
            seed=cfg.run.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=str(run_dir / "tb"),
            **ppo_arguments(cfg.ppo),
        )
    best_known = None if _chips(cfg) else optimal_score(cfg)
    metrics_path = run_dir / "metrics.csv"
    started = time.perf_counter()
    wall_before = _last_wall(metrics_path) if args.resume else 0.0
    if not args.resume and metrics_path.exists():
        metrics_path.unlink()

    def save(path: Path) -> None:
        """The model, and beside it the observation statistics when they are used."""
        if cfg.run.normalize_obs:
            vec.save(str(normalizer_path(path)))
        model.save(path)

    def record(step: int, n_episodes: int) -> dict[str, float]:
        row = {"timesteps": step, "wall_s": wall_before + time.perf_counter() - started}
        agent = PPOAgent.from_model(model, vec if cfg.run.normalize_obs else None)
        row.update(measure(agent, cfg, n_episodes, best_known))
        _append_csv(metrics_path, row)
        return row

    class Periodic(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = _next_multiple(model.num_timesteps, cfg.run.eval_every)
            self.next_ckpt = _next_multiple(model.num_timesteps, cfg.run.checkpoint_every)
            self.next_snap = _next_multiple(model.num_timesteps, cfg.run.self_play.snapshot_every)

        def _on_step(self) -> bool:
            step = self.num_timesteps
            if step >= self.next_ckpt:
                save(ckpt_dir / f"step_{step}.zip")
                self.next_ckpt += cfg.run.checkpoint_every
            if cfg.run.self_play.enabled and step >= self.next_snap:
                save(run_dir / "pool" / f"snap_{step:012d}.zip")
                self.next_snap += cfg.run.self_play.snapshot_every
            if step >= self.next_eval:
                row = record(step, cfg.run.eval_episodes)
                for key, value in row.items():
                    if key not in ("timesteps",):
                        self.logger.record(f"eval/{key}", value)
                self.next_eval += cfg.run.eval_every
            return True

    if not args.resume:
        record(0, cfg.run.eval_episodes)  # the untrained policy: the curve's first point
    remaining = cfg.run.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            remaining,
            callback=Periodic(),
            progress_bar=not args.no_progress,
            reset_num_timesteps=not args.resume,
            tb_log_name="ppo",
        )
    save(run_dir / "model.zip")
    final = record(model.num_timesteps, cfg.run.final_eval_episodes)
    vec.close()
    plot_curve(metrics_path, run_dir / "curve.png", cfg, best_known)
    # The heuristic player in the learner's place, on the same episodes: the yardstick.
    rules, _ = games.get(cfg.game).split_options(cfg.env.kwargs)
    heuristic = make_agent("heuristic", cfg.game, **rules)
    reference = measure(heuristic, cfg, cfg.run.final_eval_episodes, best_known)
    (run_dir / "final.json").write_text(
        json.dumps({"ppo": final, "heuristic_in_its_place": reference, "optimal": best_known})
    )
    print(f"\n{cfg.run_name}: {model.num_timesteps} steps in {final['wall_s']:.0f} s")
    print("PPO       " + format_result(final, cfg, best_known).replace("\n", "\n          "))
    print("heuristic " + format_result(reference, cfg, best_known).replace("\n", "\n          "))
    print(
        f"model: {run_dir / 'model.zip'}  (make_agent('ppo:{run_dir / 'model.zip'}', "
        f"game={cfg.game!r}))"
    )
    return run_dir


def measure(
    agent: Agent, cfg: Config, n_episodes: int, best_known: float | None
) -> dict[str, float]:
    """Mean score (and % of optimal), or chips and win rate against each baseline opponent.

    Every agent measured in a run plays the same episodes (same seeds).
    """
    seed = 10_000_000 + cfg.run.seed
    if not _chips(cfg):
        res = evaluate(agent, cfg, n_episodes, seed)
        row = {"score": res["mean"], "score_ci95": res["ci95"]}
        if best_known:
            row["pct_optimal"] = 100 * res["mean"] / best_known
        return row
    row = {}
    for opp in baselines(cfg):
        res = evaluate(agent, cfg, n_episodes, seed, opponents=opp)
        row[f"{opp}_chips"] = res["mean"]
        row[f"{opp}_chips_ci95"] = res["ci95"]
        row[f"{opp}_win_rate"] = res["win_rate"]
    return row


def format_result(row: dict[str, float], cfg: Config, best_known: float | None) -> str:
    if "score" in row:
        text = f"final evaluation: mean score {row['score']:.2f} ± {row['score_ci95']:.2f}"
        if best_known:
            text += f" = {row['pct_optimal']:.1f}% of the optimal {best_known:.2f}"
        return text
    return "\n".join(
        f"vs {opp}: chips/game {row[f'{opp}_chips']:+.3f} ± {row[f'{opp}_chips_ci95']:.3f}, "
        f"win rate {row[f'{opp}_win_rate']:.3f}"
        for opp in baselines(cfg)
    )


def plot_curve(metrics_path: Path, out: Path, cfg: Config, best_known: float | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with metrics_path.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4))

    def series(column: str, label: str) -> None:
        # a resumed run may have added a column: plot the rows that have it
        have = [r for r in rows if r.get(column)]
        ax.errorbar(
            [int(float(r["timesteps"])) for r in have],
            [float(r[column]) for r in have],
            yerr=[float(r[f"{column}_ci95"]) for r in have],
            marker="o",
            label=label,
        )

    if "score" in rows[0]:
        series("score", "PPO")
        if best_known:
            ax.axhline(best_known, color="k", ls="--", label=f"optimal {best_known:.1f}")
        ax.set_ylabel("mean score")
    else:
        for opp in baselines(cfg):
            series(f"{opp}_chips", f"vs {opp}")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_ylabel("chips per game")
    ax.set_xlabel("timesteps")
    ax.set_title(cfg.run_name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def _next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every


def _append_csv(path: Path, row: dict[str, float]) -> None:
    """Append ``row``; if it brings new columns (a resumed run measuring more), widen the file."""
    rows = []
    if path.exists():
        with path.open() as f:
            rows = list(csv.DictReader(f))
    fields = list(dict.fromkeys([k for r in rows for k in r] + list(row)))
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows([*rows, row])


def _last_wall(path: Path) -> float:
    if not path.exists():
        return 0.0
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return float(rows[-1]["wall_s"]) if rows else 0.0


if __name__ == "__main__":
    try:
        main()
    except (ValueError, FileNotFoundError, FileExistsError) as err:
        sys.exit(f"error: {err}")
