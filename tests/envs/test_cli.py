"""envs.cli: the one KEY=VALUE reader of every script's --rule flags."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from envs.cli import add_rule_argument, parse_rule_options, parse_rule_value, rule_options


@pytest.mark.parametrize(
    "text, value",
    [
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("none", None),
        ("Null", None),
        ("2", 2),
        ("-1", -1),
        ("0", 0),
        ("0.5", 0.5),
        ("1e-3", 0.001),
        ("nan", "nan"),  # not a number a rule may take: left for the rules to reject
        ("inf", "inf"),
        ("sum", "sum"),
        ("6S", "6S"),
        ("yes", "yes"),  # only true/false are booleans
        ("", ""),
    ],
)
def test_values(text, value):
    parsed = parse_rule_value(text)
    assert parsed == value and type(parsed) is type(value)


def test_pairs_become_keyword_arguments():
    pairs = ["ante=2", "lock_kept_dice=false", "joker_card=none", "full_house_tiebreak=triple"]
    assert parse_rule_options(pairs) == {
        "ante": 2,
        "lock_kept_dice": False,
        "joker_card": None,
        "full_house_tiebreak": "triple",
    }
    assert parse_rule_options([" ante =3"]) == {"ante": 3}
    assert parse_rule_options(["joker=a=b"]) == {"joker": "a=b"}
    assert parse_rule_options([]) == {}


@pytest.mark.parametrize(
    "pairs, allowed, message",
    [
        (["ante"], None, "a rule option is KEY=VALUE (e.g. ante=2), got 'ante'"),
        (["=2"], None, "got '=2'"),
        (["ante"], ("ante", "deck"), "got 'ante'; allowed keys: ante, deck"),
        (
            ["antee=2"],
            ("deck", "ante"),
            "unknown rule option 'antee' in 'antee=2'; allowed keys: ante, deck",
        ),
        (["ante=1", "ante=2"], None, "rule option 'ante' is given twice ('ante=2')"),
    ],
)
def test_bad_pairs_are_one_line_errors(pairs, allowed, message):
    with pytest.raises(ValueError) as err:
        parse_rule_options(pairs, allowed)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_repeated_flags_end_in_one_list():
    parser = argparse.ArgumentParser(prog="x")
    add_rule_argument(parser)
    args = parser.parse_args(["--rule", "ante=2", "--rule", "lock_kept_dice=false"])
    assert rule_options(parser, args, ("ante", "lock_kept_dice")) == {
        "ante": 2,
        "lock_kept_dice": False,
    }


@pytest.mark.parametrize("old", ["--option", "--options"])
def test_the_old_names_are_gone_with_a_clear_argparse_error(old, capsys):
    parser = argparse.ArgumentParser(prog="x")
    add_rule_argument(parser)
    with pytest.raises(SystemExit) as err:
        parser.parse_args([old, "ante=2"])
    assert err.value.code == 2
    assert f"x: error: unrecognized arguments: {old} ante=2" in capsys.readouterr().err


def test_a_bad_flag_exits_2_with_one_line(capsys):
    parser = argparse.ArgumentParser(prog="x")
    add_rule_argument(parser)
    with pytest.raises(SystemExit) as stop:
        rule_options(parser, parser.parse_args(["--rule", "deck=54"]), ("ante",))
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(
        "x: error: unknown rule option 'deck' in 'deck=54'; allowed keys: ante\n"
    )


def test_imports_no_wrapper_and_no_agent():
    code = (
        "import sys, envs.cli; "
        "bad = [m for m in sys.modules if m.startswith('agents') or m in "
        "('envs.dice_poker', 'envs.scorecard', 'envs.yahtzee', 'envs.card_poker', 'envs.multi')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
