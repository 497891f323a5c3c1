"""render_mode="rgb_array" of every gym id and AEC env, and the recorder (envs.render)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents.tables import record_game
from envs import games
from envs.multi import card_poker_v0, dice_poker_v0, yahtzee_v0
from envs.render import card_poker, dice_poker, scorecard
from envs.render.record import (
    VideoRecorder,
    read_frames,
    record_aec_episode,
    record_episode,
    write_video,
)
from envs.rules.card_poker import CardPokerRules
from envs.rules.scorecard import make_rules

GYM_IDS = [games.get(name).gym_id for name in games.names()]

# (id, kwargs) for every variant group of the gym envs
GYM_CASES = [
    ("DicePoker-v0", {}),
    ("DicePoker-v0", {"n_players": 2, "lock_kept_dice": False}),
    ("DicePoker-v0", {"n_players": 6, "episode": "circle", "opponents": "random"}),
    ("DicePoker6-v0", {}),
    ("DicePoker6-v0", {"n_players": 4, "pyramid": "any", "six_dice_low_hands": False}),
    ("CardPoker-v0", {}),
    ("CardPoker-v0", {"n_players": 6, "deck": 54, "opponents": "random"}),
    ("CardPoker-v0", {"n_players": 2, "deck": 54, "joker_card": None, "draw_fee": 1}),
    ("CardPoker-v0", {"episode": "session", "max_deals": 3, "joker_card": "AH"}),
    ("Yahtzee-v0", {}),
    ("Yahtzee-v0", {"scratch": "any"}),
    ("YahtzeeClassic-v0", {}),
    ("YahtzeeClassic-v0", {"joker": "free", "yahtzee_bonus": False}),
]

AEC_CASES = [
    (dice_poker_v0, {}),
    (dice_poker_v0, {"n_players": 2, "n_dice": 6}),
    (dice_poker_v0, {"n_players": 6, "episode": "circle"}),
    (card_poker_v0, {}),
    (card_poker_v0, {"n_players": 5, "deck": 54, "episode": "session", "max_deals": 3}),
    (card_poker_v0, {"n_players": 2, "categories": "short", "joker_card": None}),
    (yahtzee_v0, {}),
    (yahtzee_v0, {"n_players": 3, "rules": "classic", "joker": "none"}),
]


def expected_size(raw) -> tuple[int, int]:
    """The documented (height, width) of an env's frames, from the drawing modules."""
    n = getattr(raw, "n_players", 1)
    if hasattr(raw, "games") or type(raw).__name__ == "YahtzeeEnv":
        return scorecard.size(make_rules(raw.rules.rules), n)
    if isinstance(raw.rules, CardPokerRules):
        return card_poker.size(n)
    return dice_poker.size(n, raw.rules.n_dice)


def play_gym(env_id: str, kwargs: dict, seed: int, mode: str = "rgb_array"):
    """Frames (or texts) after the reset and after every step of a random game."""
    env = gym.make(env_id, render_mode=mode, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out, done = [env.render()], False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        out.append(env.render())
    return env, out


def play_aec(module, kwargs: dict, seed: int, mode: str = "rgb_array"):
    env = module.env(render_mode=mode, **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [env.render()]
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        out.append(env.render())
    return env, out


def check_frames(frames: list, size: tuple[int, int]) -> None:
    assert len(frames) >= 2
    for k, frame in enumerate(frames):
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8, k
        assert frame.shape == (*size, 3), (k, frame.shape, size)
    # every action changes what the table shows (new dice, a bid, a filled row, whose turn)
    for k in range(1, len(frames)):
        assert not np.array_equal(frames[k - 1], frames[k]), f"frames {k - 1} and {k} equal"


@pytest.mark.parametrize(("env_id", "kwargs"), GYM_CASES)
def test_gym_frames_every_step(env_id, kwargs):
    env, frames = play_gym(env_id, kwargs, seed=3)
    assert "rgb_array" in env.metadata["render_modes"]
    check_frames(frames, expected_size(env.unwrapped))


@pytest.mark.parametrize(("module", "kwargs"), AEC_CASES)
def test_aec_frames_every_step(module, kwargs):
    env, frames = play_aec(module, kwargs, seed=4)
    assert "rgb_array" in env.metadata["render_modes"]
    check_frames(frames, expected_size(env.unwrapped))


@pytest.mark.parametrize(("env_id", "kwargs"), GYM_CASES[::3])
def test_gym_frames_deterministic(env_id, kwargs):
    _, a = play_gym(env_id, kwargs, seed=5)
    env, b = play_gym(env_id, kwargs, seed=5)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    # drawing the same state again gives the same pixels
    assert np.array_equal(env.render(), b[-1])
    _, c = play_gym(env_id, kwargs, seed=6)
    assert not np.array_equal(a[0], c[0])  # another deal or roll shows


@pytest.mark.parametrize(("module", "kwargs"), AEC_CASES[::2])
def test_aec_frames_deterministic(module, kwargs):
    _, a = play_aec(module, kwargs, seed=7)
    _, b = play_aec(module, kwargs, seed=7)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(("env_id", "kwargs"), GYM_CASES[::4])
def test_rgb_mode_keeps_the_text_and_the_game(env_id, kwargs):
    """Rendering pictures changes nothing: the same game as render_mode=None, same text."""
    env_rgb, _ = play_gym(env_id, kwargs, seed=8)
    env_txt, texts = play_gym(env_id, kwargs, seed=8, mode="ansi")
    assert env_rgb.unwrapped.render_text() == texts[-1]


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_render_before_reset_is_an_error(env_id):
    env = gym.make(env_id, render_mode="rgb_array").unwrapped  # past gym's own order check
    with pytest.raises(RuntimeError, match="reset"):
        env.render()


def test_card_frames_hide_opponents_cards():
    """The gym env shows the learner's view: other hands face down until a showdown."""
    env = gym.make("CardPoker-v0", render_mode="rgb_array", agent_seat=0, opponents="random")
    env.reset(seed=0)
    raw = env.unwrapped
    seen = env.render()
    everything = card_poker.draw(raw.match, raw._labels(), viewer=None)
    assert not np.array_equal(seen, everything)
    # the learner's row is the same in both: their own cards show
    top, row = card_poker.HEADER, card_poker.ROW
    assert np.array_equal(seen[top : top + row], everything[top : top + row])


def test_render_mode_none_loads_no_drawing_code():
    code = (
        "import sys, gymnasium as gym, numpy as np, envs\n"
        "from envs import games\n"
        "from envs.multi import dice_poker_v0, card_poker_v0, yahtzee_v0\n"
        "for i in [games.get(n).gym_id for n in games.names()]:\n"
        "    e = gym.make(i); o, info = e.reset(seed=0)\n"
        "    e.step(int(np.flatnonzero(info['action_mask'])[0]))\n"
        "for m in (dice_poker_v0, card_poker_v0, yahtzee_v0):\n"
        "    a = m.env(); a.reset(seed=0)\n"
        "drawing = ('envs.render.canvas', 'envs.render.dice_poker', 'envs.render.card_poker',"
        " 'envs.render.scorecard', 'envs.render.record')\n"
        "print(any(m in sys.modules for m in drawing), 'PIL' in sys.modules)\n"
    )
    # the text tables (envs.render.text) are loaded by every env; the drawing code is not
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- the recorder --------------------------------------------------------------------------


def _frames(n: int = 4) -> list[np.ndarray]:
    _, frames = play_gym("DicePoker-v0", {"opponents": "random"}, seed=1)
    return (frames * n)[:n]


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_write_video_decodes_back(tmp_path, suffix):
    frames = _frames()
    path = write_video(frames, tmp_path / f"game{suffix}", fps=2)
    assert path.is_file() and not list(tmp_path.glob(".*part*"))
    back = read_frames(path)
    # the last frame is held for a while: more decoded frames than written
    assert len(back) >= len(frames)
    assert back[0].shape == frames[0].shape
    # lossy codecs: close to the original, not equal
    assert np.abs(back[0].astype(int) - frames[0].astype(int)).mean() < 8


def test_gif_decodes_with_pillow(tmp_path):
    from PIL import Image

    frames = _frames(3)
    path = write_video(frames, tmp_path / "g.gif")
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == 3 and im.size == frames[0].shape[1::-1]


def test_recorder_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        write_video(_frames(1), tmp_path / "x.avi")
    with pytest.raises(ValueError, match="no frames"):
        write_video([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="frame 1 has shape"):
        write_video(
            [np.zeros((16, 16, 3), np.uint8), np.zeros((32, 16, 3), np.uint8)], tmp_path / "x.gif"
        )
    assert not list(tmp_path.iterdir())


def test_video_recorder_and_record_episode(tmp_path):
    with VideoRecorder(tmp_path / "r.gif") as rec:
        for frame in _frames(2):
            rec.add(frame)
    assert len(read_frames(tmp_path / "r.gif")) == 2
    from agents import make_agent

    env = gym.make("YahtzeeClassic-v0", render_mode="rgb_array")
    path, total = record_episode(
        env, make_agent("heuristic", "yahtzee_classic"), tmp_path / "y.gif", seed=2
    )
    assert total == env.unwrapped.game.card.total
    assert read_frames(path)[0].shape == (*scorecard.size(make_rules("classic")), 3)
    with pytest.raises(ValueError, match="rgb_array"):
        record_episode(gym.make("Yahtzee-v0"), None, tmp_path / "z.gif")


@pytest.mark.parametrize(
    ("game", "agents", "kwargs"),
    [
        ("dice_poker", ["heuristic", "random"], {"players": 3}),
        ("dice_poker6", ["random"], {"players": 2}),
        ("card_poker", ["careful", "bluffer", "random"], {"deck": 54}),
        ("yahtzee", ["heuristic", "random"], {}),
        ("yahtzee_classic", ["random"], {}),
    ],
)
def test_record_game(tmp_path, game, agents, kwargs):
    path = record_game(game, agents, tmp_path / f"{game}.gif", seed=1, **kwargs)
    frames = read_frames(path)
    assert len(frames) >= 3
    assert len({f.shape for f in frames}) == 1


def test_record_aec_episode_returns_rewards(tmp_path):
    from agents import make_agent

    env = dice_poker_v0.env(n_players=3)
    agents = [make_agent("random", "dice_poker") for _ in range(3)]
    path, returns = record_aec_episode(env, agents, tmp_path / "d.gif", seed=0)
    assert sum(returns.values()) == 0 and max(returns.values()) == 2
    assert path.is_file()


def test_gymnasium_record_video(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gym.make("DicePoker-v0", render_mode="rgb_array"), str(tmp_path), lambda e: True
    )
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    env.close()
    (video,) = tmp_path.glob("*.mp4")
    frames = read_frames(video)
    assert len(frames) >= 2 and frames[0].shape == (*dice_poker.size(3), 3)


def test_draw_picks_the_game_by_the_state():
    from envs.render import draw
    from envs.rules.card_poker import CardPokerMatch
    from envs.rules.dice_poker import DicePokerMatch
    from envs.rules.scorecard import ScorecardGame

    rng = np.random.default_rng(0)
    dice, cards = DicePokerMatch(3, rng), CardPokerMatch(2, rng)
    games = [ScorecardGame(rng, "classic") for _ in range(2)]
    labels = {0: "a", 1: "b", 2: "c"}
    assert np.array_equal(draw(dice, labels), dice_poker.draw(dice, labels))
    assert np.array_equal(draw(cards, labels, viewer=1), card_poker.draw(cards, labels, 1))
    assert np.array_equal(
        draw(games, labels, seat=1, last=None), scorecard.draw(games, 1, labels, None)
    )
    # a copy of a game is the same state: the same picture
    copy = [g.copy() for g in games]
    assert np.array_equal(draw(copy, labels, seat=1), draw(games, labels, seat=1))
    with pytest.raises(ValueError, match="DicePokerMatch"):
        draw("table", labels)


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gymnasium_render_check(env_id, capsys):
    """Gymnasium's checker makes the env in every render mode and checks what it returns."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(env_id, render_mode="rgb_array").unwrapped, skip_render_check=False)
    assert not [str(w.message) for w in caught if "render" in str(w.message).lower()]
