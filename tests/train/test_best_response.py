"""train/best_response.py: it finds a known weakness, its command writes its results, the
exact dice-poker ceiling, and bad input is one clear line."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from agents.degenerate import AlwaysMax, AlwaysPass
from agents.optimal.dice_poker import win_probabilities
from agents.tables import play_games
from benchmarks.exploitability_table import table
from train.best_response import best_response, dice_ceiling, load_config, main
from train.common.config import ConfigError


def test_degenerate_players_keep_their_habit():
    def actions(agent):
        taken = []

        def act(obs, masks):
            a = agent.act_batch(obs, masks)
            assert masks[np.arange(len(a)), a].all()
            taken.extend(a.tolist())
            return a

        play_games(act, "CardPoker-v0", 50, 0, n_players=3, opponents="random")
        return set(taken)

    assert actions(AlwaysPass()) == {0, 32}  # stand pat, pass
    assert max(actions(AlwaysMax())) == 32 + 2 + 7  # the top bid, max_bid 8


def test_best_response_finds_a_player_that_always_passes():
    # A player that folds at its first bet gives its ante to anyone who does not: the best
    # response never folds and takes both antes every deal (+2); random folds now and then.
    result = best_response(
        "card_poker", AlwaysPass(), steps=16_384, eval_games=2000, n_envs=32, progress=False
    )
    br, floor = result["best_response"], result["random_in_its_place"]
    assert br["chips_per_game_ci95"][0] > 0
    assert br["chips_per_game_ci95"][0] > floor["chips_per_game_ci95"][1] + 0.2
    assert br["chips_per_game"] > 1.9
    assert result["train_steps"] >= 16_384 and result["train_steps_per_s"] > 0


def test_dice_ceiling_is_exact_against_optimal_players():
    c = dice_ceiling("dice_poker", "optimal", 3, {})
    w = win_probabilities(3, 5)
    assert c["exact"] and c["win_probabilities"] == w
    assert c["by_position"] == pytest.approx([3 * p - 1 for p in w])
    assert c["chips_per_game"] == pytest.approx(0.0, abs=1e-12)  # a random seat: the mean
    assert dice_ceiling("dice_poker", "heuristic", 3, {}) is None
    assert dice_ceiling("card_poker", "optimal", 3, {}) is None
    assert dice_ceiling("dice_poker", "optimal", 3, {"ante": 2})["by_position"] == (
        pytest.approx([2 * (3 * p - 1) for p in w])
    )


def test_command_writes_json_csv_and_model(tmp_path, capsys):
    out = tmp_path / "br"
    argv = ["--game", "dice_poker", "--against", "heuristic", "--steps", "512"]
    argv += ["--eval-games", "200", "--n-envs", "8", "--run", str(out), "--no-progress"]
    assert main(argv)["run_dir"] == str(out)
    text = capsys.readouterr().out
    assert "best response" in text and "optimal there" in text and "steps/s" in text
    data = json.loads((out / "results.json").read_text())
    assert data["game"] == "dice_poker" and data["against"] == "heuristic"
    assert data["best_response"]["games"] == 200
    lo, hi = data["best_response"]["chips_per_game_ci95"]
    assert lo <= data["best_response"]["chips_per_game"] <= hi
    with (out / "results.csv").open() as f:
        (row,) = list(csv.DictReader(f))
    assert float(row["best_response_chips"]) == pytest.approx(
        data["best_response"]["chips_per_game"]
    )
    assert (out / "model.zip").stat().st_size > 0
    assert not list(out.rglob("*.tmp*"))
    # the run protocol: a row at 0 and at each evaluation, checkpoints, final.json last
    with (out / "metrics.csv").open() as f:
        assert [r["timesteps"] for r in csv.DictReader(f)][0] == "0"
    assert (out / "checkpoints" / "step_512.zip").exists()
    final = json.loads((out / "final.json").read_text())
    assert final["learner"] == "best_response" and "random_in_its_place" in final
    row = table([out / "results.json"]).splitlines()[-1]
    assert row.startswith("| dice_poker, 3 players | heuristic | 512 | 1 |")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "card_poker", "--against", "nobody"], "unknown agent 'nobody'"),
        (["--game", "card_poker", "--against", "optimal"], "does not exist for game"),
        (["--game", "card_poker", "--against", "ppo:no/such.zip"], "no model file"),
        (["--game", "yahtzee", "--against", "random"], "invalid choice"),
        (["--game", "card_poker", "--against", "random", "--players", "9"], "players must be"),
        (["--game", "card_poker", "--against", "random", "--steps", "0"], "run.total_timesteps"),
        (["--game", "card_poker", "--against", "random", "--rule", "deck=40"], "deck"),
    ],
)
def test_bad_input_is_one_clear_line(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as err:
        main([*argv, "--out", str(tmp_path / "x"), "--no-progress"])
    assert err.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing half-done


def test_config_is_a_train_ppo_config_and_gives_the_defaults():
    from train import ppo

    assert ppo.load_config("best_response.yaml").run.engine == "batched"
    table, args, run = load_config("best_response.yaml")
    assert (table.game, table.players, table.against, table.rules) == (
        "card_poker",
        3,
        "careful",
        {},
    )
    assert args["n_steps"] == 64 and run.n_envs == 64
    table, _, run = load_config("best_response.yaml", "dice_poker", "optimal", 4, {"ante": 2})
    assert (table.game, table.players, table.against, table.rules) == (
        "dice_poker",
        4,
        "optimal",
        {"ante": 2},
    )
    with pytest.raises(ConfigError, match="give --against"):
        load_config("best_response.yaml", "dice_poker")
