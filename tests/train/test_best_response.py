"""train/best_response.py: it finds a known weakness, its command writes its results (a
curve over budgets and seeds, evaluated on duplicate deals, resumed after a kill), the
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
from train.common.best_response import play_at_seat, rotated_blocks, summarise_blocks
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
    assert data["best_response"]["games"] == 201  # 67 duplicate deals, each in 3 seats
    assert data["best_response"]["duplicate_blocks"] == 67
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
    assert row.startswith("| dice_poker, 3 players | heuristic | 512 | 512 | 1 | 67 deals x 3 ")


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


def test_duplicate_deals_give_every_seat_the_same_deal():
    # AlwaysMax never looks at its cards, so a deal's outcome is fixed by the cards alone:
    # a learner that plays as the frozen agents wins in seat s what seat s's cards win, and
    # over the three seats of one deal exactly 0 (the game is zero-sum), in every block.
    def play(seat, seeds):
        return play_at_seat(AlwaysMax().act_batch, "card_poker", seat, seeds, 3, AlwaysMax(), {})

    chips = rotated_blocks(play, 3, 60, seed=5)
    assert np.abs(chips.sum(axis=1)).max() == 0
    assert (chips != 0).any()  # the seats' cards differ; only their sum is 0
    s = summarise_blocks(chips)
    assert s["chips_per_game"] == 0 and s["chips_per_game_ci95"] == [0, 0]
    assert s["games"] == 180 and s["duplicate_blocks"] == 60
    # a block's deal is its seed's, whatever the chunk it is played in
    assert (rotated_blocks(play, 3, 60, seed=5, chunk=7) == chips).all()
    assert (rotated_blocks(play, 3, 61, seed=5)[:60] == chips).all()


# a rollout is 64 steps x 8 tables: the budgets are scored after the updates at 512, 1024
CURVE = ["--game", "card_poker", "--against", "random", "--budgets", "500", "1024"]
CURVE += ["--eval-games", "30", "--n-envs", "8", "--no-progress"]


def test_a_curve_over_budgets_and_seeds_on_duplicate_deals(tmp_path, capsys):
    found = main([*CURVE, "--seeds", "0", "1", "--out", str(tmp_path)])
    assert [r["seed"] for r in found] == [0, 1]
    for r in found:
        folder = tmp_path / "best_response" / f"card_poker__random__{r['seed']}"
        assert r["run_dir"] == str(folder)
        data = json.loads((folder / "results.json").read_text())
        assert data["budgets"] == [500, 1024]
        assert [p["train_steps"] for p in data["curve"]] == [512, 1024]
        for point in data["curve"]:
            s = point["best_response"]
            assert s["duplicate_blocks"] == 10 and s["games"] == 30
            lo, hi = s["chips_per_game_ci95"]
            assert lo <= s["chips_per_game"] <= hi
        assert data["best_response"] == data["curve"][-1]["best_response"]
        with (folder / "results.csv").open() as f:
            assert [r["budget"] for r in csv.DictReader(f)] == ["500", "1024"]
        assert sorted(p.name for p in (folder / "budgets").iterdir()) == [
            "budget_1024.json",
            "budget_500.json",
        ]
        assert (folder / "checkpoints" / "step_512.zip").exists()
    text = capsys.readouterr().out
    assert "best response at       500 (512 steps)" in text
    assert "best response at     1,024 (1,024 steps)" in text
    rows = [line for line in text.splitlines() if line.startswith("| card_poker, 3 players")]
    assert [row.split(" | ")[2:5] for row in rows] == [["500", "512", "2"], ["1,024", "1024", "2"]]
    x = [r["curve"][1]["best_response"]["chips_per_game"] for r in found]
    assert f"{np.mean(x):+.3f} ± {np.std(x, ddof=1):.3f}" in rows[1]


def test_a_killed_curve_resumes_where_it_stopped(tmp_path, monkeypatch):
    import train.best_response as br

    whole = main([*CURVE, "--seed", "0", "--run", str(tmp_path / "whole")])
    real, calls = br.evaluate, []

    def dies_at_the_second_budget(*args, **kwargs):
        calls.append(args[2])
        if len(calls) == 3:  # metrics row at 0, budget 500, then budget 1024: killed
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(br, "evaluate", dies_at_the_second_budget)
    killed = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):
        main([*CURVE, "--seed", "0", "--run", str(killed)])
    assert [p.name for p in (killed / "budgets").iterdir()] == ["budget_500.json"]
    first = (killed / "budgets" / "budget_500.json").read_text()
    monkeypatch.setattr(br, "evaluate", real)
    resumed = main([*CURVE, "--seed", "0", "--run", str(killed), "--resume"])
    assert (killed / "budgets" / "budget_500.json").read_text() == first  # not scored again
    assert [p["budget"] for p in resumed["curve"]] == [500, 1024]
    for a, b in zip(resumed["curve"], whole["curve"], strict=True):
        assert a["train_steps"] == b["train_steps"]
        assert a["best_response"] == b["best_response"]  # from the checkpoint: the same policy


def test_budgets_are_checked():
    with pytest.raises(ConfigError, match="budgets must be whole numbers >= 1"):
        best_response("card_poker", "random", budgets=[100, 0], progress=False)
    with pytest.raises(ConfigError, match="--steps 300 is not the largest of --budgets"):
        best_response("card_poker", "random", steps=300, budgets=[100, 200], progress=False)


@pytest.mark.heavy
def test_a_planted_weakness_is_found_at_a_tiny_budget():
    # At the same tiny budget, a best response takes clearly more from a player that always
    # folds at its first bet (+2 per deal is there to take) than from careful.
    point = dict(budgets=[8192], eval_games=1500, n_envs=32, progress=False)
    weak = best_response("card_poker", AlwaysPass(), **point)["best_response"]
    careful = best_response("card_poker", "careful", **point)["best_response"]
    assert weak["chips_per_game_ci95"][0] > careful["chips_per_game_ci95"][1] + 0.5


def test_seeds_with_resume_read_a_finished_seed_and_start_a_new_one(tmp_path, monkeypatch):
    import train.best_response as br

    one = [*CURVE[:4], "--steps", "512", *CURVE[7:], "--out", str(tmp_path)]
    (done,) = main([*one, "--seeds", "0"])
    trained = []
    real = br.train
    monkeypatch.setattr(
        br, "train", lambda table, *a, **k: trained.append(a[2].seed) or real(table, *a, **k)
    )
    found = main([*one, "--seeds", "0", "1", "--resume"])
    assert trained == [1]  # seed 0 was finished: read, not trained again
    assert found[0]["curve"] == done["curve"] and found[1]["seed"] == 1
    assert (tmp_path / "best_response" / "card_poker__random__1" / "final.json").is_file()
