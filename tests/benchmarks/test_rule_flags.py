"""Every script reads --rule KEY=VALUE with envs.cli: the same values, one-line errors."""

from __future__ import annotations

import pytest

from benchmarks import (
    card_agents,
    dice_poker_agents,
    dice_poker_solver,
    scorecard_agents,
    solve_times,
)


def test_dice_poker_solver():
    args = dice_poker_solver.parse_args(["--rule", "lock_kept_dice=false", "--rule", "pyramid=any"])
    assert args.variant == {"lock_kept_dice": False, "pyramid": "any"}


def test_yahtzee_agents():
    assert scorecard_agents.parse_args(["--rule", "joker=free"]).options == {"joker": "free"}


def test_solve_times():
    args = solve_times.parse_args(["--rule", "joker=free", "--rule", "yahtzee_bonus=false"])
    assert args.options == {"joker": "free", "yahtzee_bonus": False}


def test_dice_poker_agents():
    assert dice_poker_agents.parse_args(["--rule", "ante=2"]).rules == {"ante": 2}


def test_card_agents_deck_flag_and_rule():
    assert card_agents.parse_args([]).rules == {"deck": 36}
    assert card_agents.parse_args(["--deck", "54"]).rules == {"deck": 54}
    assert card_agents.parse_args(["--rule", "deck=54", "--rule", "stack=50"]).rules == {
        "deck": 54,
        "stack": 50,
    }


@pytest.mark.parametrize(
    "parse, argv, message",
    [
        (dice_poker_solver.parse_args, ["--rule", "ante"], "KEY=VALUE"),
        (dice_poker_solver.parse_args, ["--rule", "n_dice=6"], "unknown rule option 'n_dice'"),
        (scorecard_agents.parse_args, ["--rule", "jokr=free"], "allowed keys: joker, scratch"),
        (scorecard_agents.parse_args, ["--option", "joker=free"], "unrecognized arguments"),
        (solve_times.parse_args, ["--rule", "joker"], "KEY=VALUE"),
        (solve_times.parse_args, ["--options", "joker=free"], "unrecognized arguments"),
        (dice_poker_agents.parse_args, ["--rule", "ante=1", "--rule", "ante=2"], "twice"),
        (card_agents.parse_args, ["--deck", "54", "--rule", "deck=36"], "give the deck once"),
    ],
)
def test_bad_rules_exit_2(capsys, parse, argv, message):
    with pytest.raises(SystemExit) as stop:
        parse(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def _benchmark(argv):
    from train.benchmark import main

    return main(["--game", "dice_poker", "--agents", "random", "--games", "2", *argv])


def _ppo(argv):
    from train.ppo import main

    return main(["--config", "quickstart.yaml", *argv])


@pytest.mark.parametrize(
    "run, allowed",
    [
        (_benchmark, "ante, full_house_tiebreak, lock_kept_dice"),
        (_ppo, "agent_seat, ante, episode"),  # ppo's --rule also sets the env's table options
        (dice_poker_agents.parse_args, "ante, full_house_tiebreak, lock_kept_dice"),
        (card_agents.parse_args, "ace_low_straight, ante, categories"),
    ],
)
def test_unknown_key_is_one_line_naming_the_registry_options(capsys, run, allowed):
    with pytest.raises(SystemExit) as stop:
        run(["--rule", "antee=2"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "unknown rule option 'antee'" in last and allowed in last


@pytest.mark.parametrize(
    "parse, argv, message",
    [
        (dice_poker_agents.parse_args, ["--rule", "ante=-1"], "ante must be"),
        (card_agents.parse_args, ["--rule", "stack=0"], "stack must be at least the ante"),
        (dice_poker_agents.parse_args, ["--rule", "pyramid=any"], "six dice only"),
    ],
)
def test_bad_values_are_judged_before_any_game(capsys, parse, argv, message):
    with pytest.raises(SystemExit) as stop:
        parse(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_yahtzee_agents_option_of_one_rule_set_only(capsys):
    with pytest.raises(SystemExit) as stop:
        scorecard_agents.main(["--rule", "joker=free", "--games", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--rules russian" in err and "Traceback" not in err
