"""Videos of games: frames to an animated GIF (Pillow) or an MP4 (imageio-ffmpeg), and
whole games played by agents and recorded.

    from agents.tables import record_game
    record_game("dice_poker", ["optimal", "heuristic", "random"], "game.gif", seed=1)

- :func:`write_video` writes frames; the suffix picks the format. GIF needs nothing
  beyond Pillow; MP4 (H.264) needs ``imageio-ffmpeg`` (``pip install
  'dicepoker-gym[video]'``), which ships its own ffmpeg binary.
- :func:`record_episode` plays one episode of a Gymnasium env made with
  ``render_mode="rgb_array"`` with one agent.
- :func:`record_aec_episode` plays one game of a PettingZoo env with an agent in every seat.
- :func:`record_game` builds that table for a game name, with Agents in the seats
  (``agents.tables.record_game``, one floor up, takes agent specs).
- :func:`episode_frames`, :func:`aec_frames`, :func:`game_frames`: the same frames as
  lists, for pictures made from them.
- :class:`VideoRecorder` collects frames one by one (for a program that plays a table
  itself, e.g. ``tools/play.py``) and writes them on :meth:`VideoRecorder.close`.

Writes are atomic: the file appears whole or not at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

FORMATS = (".gif", ".mp4")
DEFAULT_FPS = 2.0  # a die roll or a bid every half second is easy to follow
HOLD_S = 2.0  # the last frame stays this long, so the result can be read


def check_path(path: str | os.PathLike) -> Path:
    """The path, if its suffix is a format this module writes (ValueError otherwise)."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"a recording is written as {' or '.join(FORMATS)}, got {str(path)!r}")
    if path.suffix.lower() == ".mp4":
        _ffmpeg()  # fail before a game is played, not after
    return path


def _ffmpeg():
    try:
        import imageio_ffmpeg
    except ImportError:
        raise ValueError(
            "writing .mp4 needs imageio-ffmpeg (pip install 'dicepoker-gym[video]'); "
            ".gif needs nothing more"
        ) from None
    return imageio_ffmpeg


def write_video(
    frames: Sequence[np.ndarray], path: str | os.PathLike, fps: float = DEFAULT_FPS
) -> Path:
    """Write H×W×3 uint8 ``frames`` (all one size) to ``path`` (.gif or .mp4)."""
    path = check_path(path)
    if not frames:
        raise ValueError("no frames to write")
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps!r}")
    shape = frames[0].shape
    for k, frame in enumerate(frames):
        if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"frame {k} is not H×W×3 uint8: {frame.shape} {frame.dtype}")
        if frame.shape != shape:
            raise ValueError(f"frame {k} has shape {frame.shape}, frame 0 {shape}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part{path.suffix}")
    hold = max(1, round(HOLD_S * fps))
    try:
        if path.suffix.lower() == ".gif":
            _write_gif(frames, tmp, fps, hold)
        else:
            _write_mp4(frames, tmp, fps, hold)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _write_gif(frames: Sequence[np.ndarray], path: Path, fps: float, hold: int) -> None:
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    step = round(1000 / fps)
    durations = [step] * (len(images) - 1) + [step * hold]
    images[0].save(
        path,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=True,
    )


def _write_mp4(frames: Sequence[np.ndarray], path: Path, fps: float, hold: int) -> None:
    ffmpeg = _ffmpeg()
    h, w, _ = frames[0].shape
    writer = ffmpeg.write_frames(
        str(path),
        (w, h),
        fps=fps,
        codec="libx264",
        pix_fmt_out="yuv420p",
        macro_block_size=16,
        output_params=["-movflags", "+faststart"],
    )
    writer.send(None)
    for frame in [*frames, *[frames[-1]] * (hold - 1)]:
        writer.send(np.ascontiguousarray(frame))
    writer.close()


class VideoRecorder:
    """Collect frames with :meth:`add`; :meth:`close` writes them (also as a context manager)."""

    def __init__(self, path: str | os.PathLike, fps: float = DEFAULT_FPS) -> None:
        self.path = check_path(path)
        self.fps = fps
        self.frames: list[np.ndarray] = []

    def add(self, frame: np.ndarray) -> None:
        self.frames.append(np.asarray(frame))

    def close(self) -> Path:
        return write_video(self.frames, self.path, self.fps)

    def __enter__(self) -> VideoRecorder:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()


def record_episode(
    env,
    agent,
    path: str | os.PathLike,
    seed: int | None = None,
    fps: float = DEFAULT_FPS,
) -> tuple[Path, float]:
    """Play one episode of the Gymnasium ``env`` (made with ``render_mode="rgb_array"``)
    with ``agent`` (``act(observation, mask)``); write a frame after the reset and after
    every step. Returns the file and the episode's return."""
    path = check_path(path)
    frames, total = episode_frames(env, agent, seed)
    return write_video(frames, path, fps), total


def episode_frames(env, agent, seed: int | None = None) -> tuple[list[np.ndarray], float]:
    """The frames and return of :func:`record_episode`, without writing them."""
    if env.render_mode != "rgb_array":
        raise ValueError(f"make the env with render_mode='rgb_array', not {env.render_mode!r}")
    obs, info = env.reset(seed=seed)
    frames = [env.render()]
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
        total += float(reward)
        done = terminated or truncated
        frames.append(env.render())
    return frames, total


def record_aec_episode(
    env,
    agents: Sequence,
    path: str | os.PathLike,
    seed: int | None = None,
    labels: dict[int, str] | None = None,
    fps: float = DEFAULT_FPS,
    view: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[Path, dict[str, float]]:
    """Play one game of the PettingZoo ``env`` with ``agents[i]`` as ``player_i``; a frame
    after the reset and after every action (``labels``: seat -> name in the picture;
    ``view`` turns an observation vector into what the agents read). Returns the file and
    every agent's return."""
    path = check_path(path)
    frames, returns = aec_frames(env, agents, seed, labels, view)
    return write_video(frames, path, fps), returns


def aec_frames(
    env,
    agents: Sequence,
    seed: int | None = None,
    labels: dict[int, str] | None = None,
    view: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[list[np.ndarray], dict[str, float]]:
    """The frames and returns of :func:`record_aec_episode`, without writing them."""
    raw = env.unwrapped
    if len(agents) != len(raw.possible_agents):
        raise ValueError(f"{len(raw.possible_agents)} seats need as many agents, got {len(agents)}")
    env.reset(seed=seed)

    def frame() -> np.ndarray:
        return raw.render_rgb(labels)

    frames = [frame()]
    returns = dict.fromkeys(raw.possible_agents, 0.0)
    for name in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[name] += float(reward)
        if terminated or truncated:
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        vector = obs["observation"] if view is None else view(obs["observation"])
        env.step(int(agents[seat].act(vector, obs["action_mask"].astype(bool))))
        frames.append(frame())
    return frames, returns


def record_game(
    game: str,
    agents: Sequence,
    path: str | os.PathLike,
    players: int | None = None,
    seed: int = 0,
    fps: float = DEFAULT_FPS,
    *,
    labels: dict[int, str] | None = None,
    **rules,
) -> Path:
    """Record one game of ``game`` (a name of the registry, :mod:`envs.games`) played by
    ``agents`` (Agents: ``agents.tables.record_game`` takes agent specs): seat ``k`` plays
    ``agents[k % len(agents)]``; ``players`` defaults to one seat per agent. A scorecard game
    with one player is played alone (``PokerNaKostyah-v0`` or ``YahtzeeClassic-v0``). ``labels``:
    seat -> name in the picture (default the agents' names); ``rules`` are the game's rule
    options."""
    path = check_path(path)
    frames = game_frames(game, agents, players, seed, labels=labels, **rules)
    return write_video(frames, path, fps)


def game_frames(
    game: str,
    agents: Sequence,
    players: int | None = None,
    seed: int = 0,
    *,
    labels: dict[int, str] | None = None,
    **rules,
) -> list[np.ndarray]:
    """The frames of :func:`record_game`, without writing them."""
    from importlib import import_module

    from envs import games

    record = games.get(game)  # names the registered games if there is no such game
    if not agents:
        raise ValueError("record_game needs at least one agent")
    players = len(agents) if players is None else players
    low, high = record.players
    if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
        raise ValueError(f"{game} is played by {low}-{high} players, got {players!r}")
    seated = [agents[k % len(agents)] for k in range(players)]
    for agent in seated:
        if isinstance(agent, str) or not callable(getattr(agent, "act", None)):
            raise ValueError(
                f"record_game seats Agents, got {agent!r}; agents.tables.record_game takes "
                f"agent specs such as 'heuristic'"
            )
    for k, agent in enumerate(seated):
        agent.seed(seed + 1 + k)
    if players == 1:  # a game played alone: the single-player env
        import gymnasium as gym

        env = gym.make(record.gym_id, render_mode="rgb_array", **rules)
        return episode_frames(env, seated[0], seed)[0]
    if labels is None:
        labels = {k: getattr(a, "name", type(a).__name__) for k, a in enumerate(seated)}
    env = import_module(record.aec_module).env(n_players=players, **record.aec_kwargs, **rules)
    view = None
    if record.result == "points":  # scorecard agents read one player's observation
        own = record.observation(env.unwrapped.rules, 1).shape[0]
        view = lambda vector: vector[:own]  # noqa: E731  (others_total comes last)
    return aec_frames(env, seated, seed, labels, view)[0]


def read_frames(path: str | os.PathLike) -> list[np.ndarray]:
    """Decode a recording back into H×W×3 uint8 frames (GIF: Pillow; MP4: imageio-ffmpeg)."""
    path = Path(path)
    if path.suffix.lower() == ".gif":
        from PIL import Image, ImageSequence

        with Image.open(path) as im:
            return [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(im)]
    reader = _ffmpeg().read_frames(str(path))
    meta = next(reader)
    w, h = meta["size"]
    return [np.frombuffer(b, np.uint8).reshape(h, w, 3) for b in reader]
