"""The README's pictures: each game's table as ``render_mode="rgb_array"`` draws it.

    python docs/make_pictures.py          # writes docs/img/*.png and docs/img/dice_poker.gif

Trained models from ``runs/`` (committed) and the rule-based agents play; every game is
seeded, so the same code draws the same pictures. Stills are stored with a 96-colour
palette and the GIF is one short game, to keep the files small.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PIL import Image

from agents.tables import game_frames
from envs.render.record import aec_frames, write_video

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
RUNS = ROOT / "runs"


def ppo(run: str, game: str):
    """The trained model of ``runs/{run}``, named "PPO" in the pictures."""
    from agents import make_agent

    agent = make_agent(f"ppo:{RUNS / run / 'model.zip'}", game)
    agent.name = "PPO"
    return agent


def save_png(frame: np.ndarray, name: str) -> Path:
    path = OUT / name
    tmp = path.with_name(f".{name}.part")
    image = Image.fromarray(frame).quantize(96, dither=Image.Dither.NONE)
    image.save(tmp, format="PNG", optimize=True)
    os.replace(tmp, path)
    return path


def card_showdown(specs: list[str], seeds) -> np.ndarray:
    """The last frame of the first deal among ``seeds`` that ends in a showdown of three or
    more hands with the joker card among them."""
    from agents import make_agent
    from agents.arena import display_name
    from envs.multi import card_poker_v0

    labels = {k: display_name(s) for k, s in enumerate(specs)}
    for seed in seeds:
        env = card_poker_v0.env(n_players=len(specs))
        agents = [make_agent(s, "card_poker") for s in specs]
        for k, agent in enumerate(agents):
            agent.seed(seed + 1 + k)
        frames, _ = aec_frames(env, agents, seed, labels)
        game = env.unwrapped.match.game
        hands = game.showdown.hands if game.showdown else {}
        if len(hands) >= 3 and any(game.deck.is_joker(c) for s in hands for c in game.hands[s]):
            return frames[-1]
    raise RuntimeError("no deal of these seeds ends in such a showdown")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    # prison dice poker, five dice: a whole game, the trained model against the heuristic
    # and the exact optimal player
    dice = ["optimal", ppo("dice_poker__dice_poker__0", "dice_poker"), "heuristic"]
    frames = game_frames("dice_poker", dice, seed=11)
    written.append(write_video(frames, OUT / "dice_poker.gif", fps=1.5))
    # six dice: the trained model against the heuristic and a random player, mid-game
    six = ["heuristic", ppo("dice_poker6__dice_poker6__0", "dice_poker6"), "random"]
    frames = game_frames("dice_poker6", six, seed=2)
    written.append(save_png(frames[min(4, len(frames) - 1)], "dice_poker6.png"))
    # card poker: a showdown of four players on the 36-card deck (6S plays the joker)
    frame = card_showdown(["careful", "bluffer", "heuristic", "random"], range(200))
    written.append(save_png(frame, "card_poker.png"))
    # the russian scorecard game: two players half-way, the trained model to act
    russian = ["heuristic", ppo("yahtzee__yahtzee_normalized__0", "yahtzee")]
    frames = game_frames("yahtzee", russian, seed=4)
    written.append(save_png(frames[len(frames) // 2 + 1], "yahtzee.png"))
    # classic Yahtzee played alone by the trained model, near the end
    frames = game_frames(
        "yahtzee_classic",
        [ppo("yahtzee_classic__yahtzee_classic_normalized__0", "yahtzee_classic")],
    )
    written.append(save_png(frames[-4], "yahtzee_classic.png"))
    for path in written:
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
