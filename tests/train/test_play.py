"""train/play.py: typed moves, illegal input, whole games from scripted input, and the coach."""

from __future__ import annotations

import io
import itertools
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.optimal.dice_poker import DicePokerOptimal, solve_game, win_probabilities
from agents.optimal.dice_poker import action_values as dice_action_values
from envs.cli import parse_rule_value as parse_value
from envs.dice_poker import observe
from envs.rules.dice import multiset_probability, multisets
from envs.rules.dice_poker import DicePokerGame, DicePokerRules
from envs.rules.scorecard import N_REROLL_ACTIONS, ScorecardGame, make_rules
from tools.play import build_table, main, parse_rules
from tools.playing.base import MoveError, SetupError
from tools.playing.card_poker import CardPokerTable
from tools.playing.coach import scorecard_action_values
from tools.playing.dice_poker import DicePokerTable
from tools.playing.scorecard import ScorecardTable

ROOT = Path(__file__).resolve().parents[2]
ROWS = {"yahtzee": make_rules("russian").rows, "yahtzee_classic": make_rules("classic").rows}


def lines_of(script):
    """An input function that returns the script's lines, then EOFError."""
    it = iter(script)

    def read() -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def play(argv, script):
    out = io.StringIO()
    code = main(argv, lines_of(script), out, echo=True)
    return code, out.getvalue()


def script_for(game, n=400):
    """Moves that always finish a game whatever the dice: each prompt consumes lines until
    one is legal (stand; the rows in order; keep, then reveal)."""
    if game.startswith("dice_poker"):
        return ["stand"] * n
    if game in ROWS:
        return [f"fill {r}" for r in ROWS[game]] * 20
    return ["keep", "reveal", "pass"] * n


class FixedRolls:
    """A Generator stand-in for ScorecardGame: each roll of n dice comes from a script."""

    def __init__(self, *rolls):
        self.rolls = list(rolls)

    def integers(self, high):
        dice = self.rolls.pop(0)
        assert 6 ** len(dice) == high, "scripted roll of the wrong size"
        return sum((d - 1) * 6 ** (len(dice) - 1 - i) for i, d in enumerate(dice))


# -- option parsing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("2", 2),
        ("-1", -1),
        ("0.5", 0.5),
        ("true", True),
        ("False", False),
        ("none", None),
        ("sum", "sum"),
        ("6S", "6S"),
    ],
)
def test_parse_value(text, value):
    assert parse_value(text) == value and type(parse_value(text)) is type(value)


def test_parse_rules():
    assert parse_rules(["ante=2", "lock_kept_dice=false"]) == {"ante": 2, "lock_kept_dice": False}
    with pytest.raises(SetupError, match="KEY=VALUE"):
        parse_rules(["ante"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "dice_poker", "--rule", "antee=2"], "antee"),
        (["--game", "dice_poker", "--rule", "ante=-1"], "ante must be"),
        (["--game", "card_poker", "--rule", "deck=40"], "deck must be 36 or 54"),
        (["--game", "yahtzee", "--rule", "joker=free"], "joker"),
        (["--game", "dice_poker", "--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--game", "card_poker", "--opponents", "optimal"], "does not exist for game"),
        (["--game", "dice_poker", "--opponents", "none"], "takes 2-6 players"),
        (["--game", "dice_poker", "--opponents", "random,random", "--players", "4"], "needs 3"),
        (["--game", "yahtzee", "--players", "7"], "1-6"),
        (["--game", "dice_poker", "--seat", "3"], "--seat must be 0..2"),
        (["--game", "dice_poker", "--games", "0"], "at least 1"),
        (["--game", "dice_poker", "--rule", "n_dice=6"], "comes with --game"),
    ],
)
def test_bad_options_exit_2_with_the_reason(argv, message):
    code, text = play([*argv, "--seed", "0"], [])
    assert code == 2
    assert text.startswith("play.py: error:") and message in text and "Traceback" not in text


# -- typed moves -------------------------------------------------------------------------------


def dice_table(scripted, faces):
    agents = {1: make_agent("random", "dice_poker")}
    # seats roll one die each for the first player: 6 then 1, so you (seat 0) start
    return DicePokerTable("dice_poker", DicePokerRules(), 0, agents, scripted([6, 1, *faces]))


@pytest.mark.parametrize(
    "move, action",
    [
        ("stand", 0),
        ("hold 5 5", 0b10011),
        ("keep 55", 0b10011),
        ("h 5,5", 0b10011),
        ("reroll 2 3 6", 0b10011),
        ("r 236", 0b10011),
        ("reroll all", 0b11111),
        ("hold 2 3 5 5 6", 0),
        ("hold", 0b11111),
        ("reroll 5", 0b00100),
    ],
)
def test_dice_poker_moves(scripted, move, action):
    t = dice_table(scripted, [2, 5, 3, 5, 6])
    assert t.match.game.dice == (2, 3, 5, 5, 6)
    assert t.parse(move.split()) == action


@pytest.mark.parametrize(
    "move, message",
    [
        ("hold 4", "no 4 among your dice"),
        ("reroll 5 5 5", "only two 5s"),
        ("reroll", "name the dice"),
        ("stand 3", "takes nothing"),
        ("hold 7", "faces 1-6"),
        ("jump", "unknown move"),
    ],
)
def test_dice_poker_bad_moves(scripted, move, message):
    t = dice_table(scripted, [2, 5, 3, 5, 6])
    with pytest.raises(MoveError, match=message):
        t.parse(move.split())


@pytest.mark.parametrize(
    "move, action",
    [
        ("stand", 0),
        ("hold 4", 0b00011),
        ("reroll 1 1 4", 0b00111),
        ("reroll 1", 0b00001),
        ("hold 5 5", 0b00111),
        ("hold 1 5 5", 0b00110),
    ],
)
def test_dice_poker_moves_with_frozen_dice(scripted, move, action):
    t = dice_table(scripted, [2, 5, 3, 5, 6, 1, 1, 4])
    lines = t.step(t.parse(["hold", "5", "5"]))
    assert lines == ["You re-roll 2 3 6 -> 1 1 4 5 5"]
    g = t.match.game
    assert g.dice == (1, 1, 4, 5, 5) and g.frozen == (False, False, False, True, True)
    assert t.parse(move.split()) == action
    with pytest.raises(MoveError, match="no 5 among your free dice"):
        t.parse(["reroll", "5"])


def scorecard_table(game, *rolls, opponents=0):
    agents = {s: make_agent("random", game) for s in range(1, opponents + 1)}
    rules = make_rules("russian" if game == "yahtzee" else "classic")
    return ScorecardTable(game, rules, 0, agents, FixedRolls(*rolls))


@pytest.mark.parametrize(
    "move, action",
    [
        ("keep 6 6 6", 0b00011),
        ("k 666", 0b00011),
        ("reroll 1 2", 0b00011),
        ("reroll all", 0b11111),
        ("keep", 0b11111),
        ("fill sixes", N_REROLL_ACTIONS + 5),
        ("sixes", N_REROLL_ACTIONS + 5),
        ("six", N_REROLL_ACTIONS + 5),
        ("f ones", N_REROLL_ACTIONS + 0),
    ],
)
def test_scorecard_moves(move, action):
    t = scorecard_table("yahtzee", (6, 2, 6, 1, 6))
    assert t.now.dice == (1, 2, 6, 6, 6)
    assert t.parse(move.split()) == action


@pytest.mark.parametrize(
    "move, message",
    [
        ("keep 1 2 6 6 6", "re-rolls nothing"),
        ("keep 3", "no 3 among your dice"),
        ("fill pair", "stage-2 row; fill the stage-1 rows"),
        ("fill t", "could be twos, threes, two_pairs"),
        ("fill jackpot", "no row is called 'jackpot'"),
        ("fill", "name the row"),
    ],
)
def test_scorecard_bad_moves(move, message):
    t = scorecard_table("yahtzee", (6, 2, 6, 1, 6))
    with pytest.raises(MoveError, match=message):
        t.parse(move.split())


def test_scorecard_rows_already_filled_and_no_rerolls_left():
    t = scorecard_table("yahtzee_classic", (6, 2, 6, 1, 6), (1, 1, 1, 1, 1), (2,), (2, 2, 3, 3, 4))
    assert t.step(t.parse(["fill", "sixes"])) == [
        "You fill sixes with 1 2 6 6 6: +18 (total 18)   (rolls 12666)"
    ]
    with pytest.raises(MoveError, match="sixes is already filled"):
        t.parse(["fill", "sixes"])
    assert t.step(t.parse(["reroll", "1"])) == ["You re-roll 1 -> 1 1 1 1 2"]
    assert t.step(t.parse(["reroll", "all"])) == ["You re-roll 1 1 1 1 2 -> 2 2 3 3 4"]
    with pytest.raises(MoveError, match="no re-rolls left"):
        t.parse(["keep", "2"])


def test_classic_forced_joker_is_explained():
    t = scorecard_table("yahtzee_classic", (5, 5, 5, 5, 5), (5, 5, 5, 5, 5))
    t.step(t.parse(["fill", "yahtzee"]))
    assert t.now.dice == (5, 5, 5, 5, 5) and t.now.legal_rows() == ("fives",)
    with pytest.raises(MoveError, match="joker must go in fives"):
        t.parse(["fill", "chance"])


def card_table(seed=0):
    agents = {1: make_agent("random", "card_poker"), 2: make_agent("random", "card_poker")}
    from envs.rules.card_poker import CardPokerRules

    return CardPokerTable("card_poker", CardPokerRules(), 0, agents, np.random.default_rng(seed))


def test_card_poker_moves():
    t = card_table()
    g = t.match.game
    labels = [g.deck.label(c) for c in g.hands[0]]
    outside = next(g.deck.label(c) for c in range(36) if c not in g.hands[0])
    assert t.parse(["discard", "1", "4"]) == 0b01001
    assert t.parse(["discard", "14"]) == 0b01001
    assert t.parse(["discard", labels[1].lower()]) == 0b00010
    assert t.parse(["keep"]) == 0
    for move, message in [
        ("discard 6", "numbered 1-5"),
        ("discard 2 2", "named twice"),
        (f"discard {outside}", "not in your hand"),
        ("discard zz", "cannot read card"),
        ("bid 3", "it is the exchange now"),
        ("reveal", "it is the exchange now"),
    ]:
        with pytest.raises(MoveError, match=message):
            t.parse(move.lower().split())
    t.step(0)
    while t.current_seat != 0:  # the random players exchange
        t.step(t.agents[t.current_seat].act(t.observation(t.current_seat), t.mask()))
    if t.match.game.phase.name == "BET":
        assert t.parse(["pass"]) == 32 and t.parse(["fold"]) == 32
        with pytest.raises(MoveError, match="the exchange is over"):
            t.parse(["discard", "1"])
        with pytest.raises(MoveError, match="not 99"):
            t.parse(["bid", "99"])
        with pytest.raises(MoveError, match="say how much"):
            t.parse(["bid"])


# -- whole games from scripted input ------------------------------------------------------------


def chips(text, label):
    """The numbers after each player on the summary line that starts with ``label``."""
    line = next(x for x in text.splitlines() if x.startswith(label))
    return [int(v) for v in re.findall(r" ([+-]\d+)", line.split(":", 1)[1])]


@pytest.mark.parametrize(
    "game, extra",
    [
        ("dice_poker", ["--games", "3"]),
        ("dice_poker6", ["--opponents", "optimal,random"]),
        ("card_poker", ["--games", "3", "--players", "4", "--seat", "2"]),
        ("yahtzee", ["--opponents", "none"]),
        ("yahtzee_classic", ["--opponents", "random", "--seat", "1"]),
    ],
)
def test_whole_game_from_scripted_input(game, extra):
    bad = ["", "   ", "xyzzy", "help", "moves", "show"]
    code, text = play(["--game", game, "--seed", "5", *extra], bad + script_for(game))
    assert code == 0 and "Traceback" not in text
    assert "End of input" not in text, "the script ran out before the game ended"
    assert text.count("\n! ") >= 1  # "xyzzy" was answered, then play went on
    assert "commands" in text and "Moves:" in text
    if game.startswith("dice_poker"):
        assert sum(chips(text, "Final chips")) == 0
    elif game == "card_poker":
        assert sum(chips(text, "After ")) == 0
    else:
        fills = [int(x) for x in re.findall(r"^You fill \S+ with [\d ]+: ([+-]\d+)", text, re.M)]
        assert len(fills) == len(ROWS[game])
        assert "You fill" in text and f"(total {sum(fills)})" in text.split("game 1 over")[0]


@pytest.mark.parametrize(
    "game", ["dice_poker", "dice_poker6", "yahtzee", "yahtzee_classic", "card_poker"]
)
def test_random_typing_never_crashes(game):
    """Random words, numbers, row and card names: every line is a move or a one-line message."""
    rows = ROWS["yahtzee"] + ROWS["yahtzee_classic"]
    words = [
        "hold",
        "keep",
        "reroll",
        "r",
        "stand",
        "fill",
        "discard",
        "bid",
        "reveal",
        "pass",
        "all",
        "0",
        "1",
        "2",
        "3",
        "5",
        "6",
        "7",
        "-1",
        "55",
        "123456",
        "t",
        "small",
        "7H",
        "6s*",
        "X",
        "10h",
        "zz",
        "\u00e9",
        "1,2",
        "show",
        "moves",
        "k",
        "f",
        "b",
        "9" * 30,
        *rows,
    ]
    rng = np.random.default_rng(0)
    script = [" ".join(rng.choice(words, rng.integers(0, 4))) for _ in range(3000)]
    code, text = play(["--game", game, "--seed", "0", "--opponents", "random"], script)
    assert code == 0 and "End of input" not in text  # the game ended on random typing
    lines = text.splitlines()
    prompts = [k for k, x in enumerate(lines) if x.startswith("> ")]
    typed = [k for k in prompts if lines[k][2:].strip()]
    assert len(typed) > 20
    for k in typed:  # every typed line is answered (a message, help, or the move's result)
        assert lines[k + 1] != "", lines[k]


def test_same_seed_same_transcript():
    a = play(["--game", "dice_poker", "--seed", "11", "--games", "2"], script_for("dice_poker"))
    b = play(["--game", "dice_poker", "--seed", "11", "--games", "2"], script_for("dice_poker"))
    c = play(["--game", "dice_poker", "--seed", "12", "--games", "2"], script_for("dice_poker"))
    assert a == b and a[1] != c[1]


@pytest.mark.parametrize(
    "script, message",
    [(["show"], "End of input: leaving the game."), (["moves", "quit"], "You left the game.")],
)
def test_eof_and_quit_leave_cleanly(script, message):
    code, text = play(["--game", "yahtzee", "--opponents", "none", "--seed", "1"], script)
    assert code == 0 and text.rstrip().endswith(message)


def test_subprocess_with_stdin_script():
    """The real program, moves piped on stdin."""
    script = "\n".join(["hold 9", "reroll", *script_for("yahtzee")]) + "\n"
    run = subprocess.run(
        [
            sys.executable,
            "train/play.py",
            "--game",
            "yahtzee",
            "--opponents",
            "none",
            "--seed",
            "3",
        ],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0 and run.stderr == ""
    out = run.stdout
    assert "! dice are named by their faces 1-6, got '9'" in out
    assert "! name the dice to re-roll" in out
    assert "> hold 9" in out  # piped moves are echoed into the transcript
    assert "== game 1 over ==" in out and "Average total over 1 game: you" in out
    bad = subprocess.run(
        [sys.executable, "train/play.py", "--game", "card_poker", "--rule", "max_bid=0"],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert bad.returncode == 2 and "max_bid must be" in bad.stderr and bad.stdout == ""


# -- the coach -------------------------------------------------------------------------------


def test_dice_poker_coach_matches_a_brute_force_count(faces):
    """Last to roll, second roll: every move's win chance by enumerating the re-rolls."""
    rules = DicePokerRules()
    # seat 0 stands on three 3s (9); seat 1 rolls 3 3 4 5 6, re-rolls 4 5 6 -> 1 2 3
    g = DicePokerGame([0, 1], np.random.default_rng(0), rules, chance=[3, 3, 3, 1, 2])
    g.step(0, faces(5, next_roll=[3, 3, 4, 5, 6]))
    g.step(0b11100, faces(5, {2: 1, 3: 2, 4: 3}))
    assert g.dice == (1, 2, 3, 3, 3) and g.frozen == (False, False, False, True, True)
    values = dice_action_values(observe(g, 1), rules)
    best = rules.rank((3, 3, 3, 1, 2))
    playoff = win_probabilities(2)[1]  # a tie replays the game, seat 1 second
    assert set(values) == set(range(8))
    for action, value in values.items():
        kept = [d for i, d in enumerate(g.dice) if not action >> i & 1]
        n = 5 - len(kept)
        count = 0.0
        for new in itertools.product(range(1, 7), repeat=n):
            hand = rules.rank(kept + list(new))
            count += (hand > best) + (hand == best) * playoff
        assert value == pytest.approx(count / 6**n, abs=1e-12)


@pytest.mark.parametrize(
    "n_dice, n_players, variant",
    [(5, 3, {}), (6, 2, {}), (5, 2, {"lock_kept_dice": False, "full_house_tiebreak": "triple"})],
)
def test_dice_poker_coach_best_is_the_optimal_player(n_dice, n_players, variant):
    """Over every first roll, the best move's chance averages to the solved seat value, and
    the optimal agent's move is a best one."""
    rules = DicePokerRules(n_dice=n_dice, **variant)
    agent = DicePokerOptimal("dice_poker" if n_dice == 5 else "dice_poker6", **variant)
    expected = 0.0
    for dice in multisets(n_dice):
        g = DicePokerGame(list(range(n_players)), np.random.default_rng(0), rules, chance=dice)
        obs = observe(g, 0)
        values = dice_action_values(obs, rules)
        top = max(values.values())
        assert values[agent.act(obs, g.action_mask())] == pytest.approx(top, abs=1e-12)
        assert all(0.0 <= v <= 1.0 + 1e-12 for v in values.values())
        expected += multiset_probability(dice) * top
    assert expected == pytest.approx(solve_game(n_players, n_dice, **variant).win[0], abs=1e-12)


def test_dice_poker_coach_in_play():
    code, text = play(
        ["--game", "dice_poker", "--seed", "4", "--games", "2", "--coach"],
        ["hold 6", "reroll all"] + script_for("dice_poker"),
    )
    assert code == 0
    judged = re.findall(r"^coach: optimal (was .* )?\(win chance \d+\.\d%\)", text, re.M)
    decisions = len(re.findall(r"^> (hold|reroll|stand)", text, re.M)) - text.count("\n! ")
    assert len(judged) == decisions > 0
    assert re.search(r"^coach: \d+ decisions, \d+ optimal; total cost", text, re.M)


@pytest.fixture
def russian_solution(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEPOKER_GYM_CACHE", str(tmp_path))
    from agents.optimal.scorecard import solve

    return solve("russian", cache=False)


def test_scorecard_coach_averages_to_the_solved_score(russian_solution):
    """The best action over every first roll of a fresh card averages to the solver's
    expected score; after a re-roll and a few fills, the best is the optimal agent's."""
    sol = russian_solution
    expected = 0.0
    for dice in multisets(5):
        values = scorecard_action_values(ScorecardGame(FixedRolls(dice), "russian"), sol)
        expected += multiset_probability(dice) * max(values.values())
    assert expected == pytest.approx(sol.expected_score, abs=1e-9)

    from agents.optimal.scorecard import YahtzeeOptimal
    from envs.scorecard import observe as observe_card

    agent = YahtzeeOptimal("yahtzee")
    g = ScorecardGame(np.random.default_rng(0), "russian")
    for _ in range(40):  # about ten turns of optimal play, checked at every decision
        values = scorecard_action_values(g, sol)
        assert set(values) == set(g.legal_actions())
        action = agent.act(observe_card(g), g.action_mask())
        assert values[action] == pytest.approx(max(values.values()), abs=1e-9)
        g.step(action)


def test_scorecard_coach_in_play(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEPOKER_GYM_CACHE", str(tmp_path))  # a first solve, announced
    argv = ["--game", "yahtzee", "--opponents", "optimal", "--seed", "2", "--coach"]
    code, text = play(argv, ["keep 6 6 6", "reroll 1"] + script_for("yahtzee"))
    assert code == 0 and text.startswith("Solving Покер на костях")
    judged = re.findall(r"^coach: optimal (was .* )?\(expected final score \d+\.\d\d\)", text, re.M)
    decisions = len(re.findall(r"^> (keep|reroll|fill)", text, re.M)) - text.count("\n! ")
    assert len(judged) == decisions >= 17
    code, again = play(argv, ["keep 6 6 6", "reroll 1"] + script_for("yahtzee"))
    drop = re.compile(r"^Solving .*\n", re.M)  # the note depends on the cache, not the game
    assert drop.sub("", again) == drop.sub("", text)


def test_card_poker_coach_says_there_is_none():
    code, text = play(["--game", "card_poker", "--seed", "1", "--coach"], script_for("card_poker"))
    assert code == 0
    assert text.count("no exact player") == 1 and "coach: optimal" not in text


def test_build_table_seats_and_labels():
    t = build_table("yahtzee_classic", "heuristic,random", None, 2, seed=0)
    assert t.n_players == 3 and t.labels == {0: "heuristic-0", 1: "random-1", 2: "you"}
    t = build_table("dice_poker", "optimal", 5, 0, seed=0)
    assert [a.name for a in t.agents.values()] == ["optimal"] * 4
    assert build_table("yahtzee", "heuristic", 1, 0, seed=0).n_players == 1  # alone


def test_play_uses_only_public_solver_names():
    """The coach asks the optimal players' public ``action_values``; nothing under train/
    reaches into a private module or name of agents.optimal."""
    private = re.compile(r"agents\.optimal\.?\w*\s+import[^\n]*\b_\w+|agents\.optimal\._|_yahtzee_")
    for path in (ROOT / "train").rglob("*.py"):
        assert not private.search(path.read_text()), path


# -- bad input is one line, never a traceback (issue 15, item 4) --------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "dice_poker", "--seed", "-1"], "--seed must be a whole number >= 0, got -1"),
        (["--game", "card_poker", "--rule", "stack=0"], "stack must be at least the ante"),
        (["--game", "dice_poker", "--opponents", "ppo:no/such/model.zip"], "no model file at"),
        (
            ["--game", "dice_poker", "--opponents", "ppo:runs/card_poker__card_poker__0/model.zip"],
            "was trained on observations of shape (",
        ),
        (
            [
                "--game",
                "dice_poker6",
                "--opponents",
                "ppo:runs/dice_poker__dice_poker__0/model.zip",
            ],
            "a different game, variant or number of players?",
        ),
    ],
)
def test_setup_errors_are_one_line_and_exit_2(argv, message):
    seed = [] if "--seed" in argv else ["--seed", "0"]
    code, text = play([*argv, *seed], ["stand", "keep", "reveal"] * 50)
    assert code == 2 and "Traceback" not in text
    assert text.startswith("play.py: error:") and message in text and text.count("\n") == 1


def test_unicode_digits_are_answered_not_crashed():
    """``isdigit()`` accepts ² and ①, ``int()`` does not: both are bad input, re-prompted."""
    t = card_table()
    for move, message in [
        ("discard ①", "cannot read card"),
        ("discard ²", "cannot read card"),
        ("discard 1²", "cannot read card"),
    ]:
        with pytest.raises(MoveError, match=message):
            t.parse(move.split())
    t.step(0)
    while t.current_seat != 0 and not t.done:
        t.step(t.agents[t.current_seat].act(t.observation(t.current_seat), t.mask()))
    assert t.match.game.phase.name == "BET"
    for word in ("²", "①", "٣", "３"):
        with pytest.raises(MoveError, match="say how much"):
            t.parse(["bid", word])
    code, text = play(
        ["--game", "card_poker", "--seed", "0"], ["discard ①", "bid ²"] + script_for("card_poker")
    )
    assert code == 0 and "Traceback" not in text and text.count("\n! ") >= 2


# -- the registry is play's one source of game facts (issue 10) ----------------------------------


def test_parse_rules_allows_the_registry_options_of_the_game():
    from envs import games

    assert parse_rules(["joker=free"], "yahtzee_classic") == {"joker": "free"}
    with pytest.raises(SetupError) as bad:
        parse_rules(["antee=2"], "dice_poker")
    assert "'antee'" in str(bad.value)
    assert ", ".join(sorted(games.get("dice_poker").rule_options)) in str(bad.value)
    with pytest.raises(SetupError, match="rules comes with --game"):
        parse_rules(["rules=classic"], "yahtzee")


@pytest.mark.parametrize(
    "game", ["dice_poker", "dice_poker6", "yahtzee", "yahtzee_classic", "card_poker"]
)
def test_tables_play_the_registry_rules(game):
    from envs import games

    t = build_table(game, "random", 2, 0, seed=0)
    assert t.rules == games.get(game).make_rules()
    assert games.get(game).title in "\n".join(t.intro())


def test_scorecard_result_is_the_match_settlement():
    """Three players: the result line is ScorecardMatch.settlements() of the finished match."""
    t = build_table("yahtzee", "random,random", None, 0, seed=3)
    me = make_agent("random", "yahtzee")
    lines = []
    while not t.done:
        s = t.current_seat
        agent = me if s == t.human else t.agents[s]
        match = t.match
        lines += t.step(int(agent.act(t.observation(s), t.mask())))
    settled = match.settlements()
    assert sum(settled) == 0.0 and match.totals() == t.results[-1]
    result = next(line for line in lines if line.startswith("Result"))
    assert result.endswith(", ".join(f"{t.labels[s]} {v:+.1f}" for s, v in enumerate(settled)))


@pytest.mark.parametrize(
    "game, extra",
    [
        ("dice_poker", []),
        ("card_poker", ["--players", "3"]),
        ("yahtzee_classic", ["--opponents", "random"]),
    ],
)
def test_record_saves_the_whole_game_as_a_gif(tmp_path, game, extra):
    from PIL import Image

    out = tmp_path / "game.gif"
    code, text = play(
        ["--game", game, "--seed", "3", "--record", str(out), *extra], script_for(game)
    )
    assert code == 0 and f"Recorded the game: {out}" in text
    with Image.open(out) as gif:
        frames = gif.n_frames
        size = gif.size
    assert frames >= 3 and size[0] > 100  # the first picture, then one per move
    code, text = play(["--game", game, "--record", str(tmp_path / "x.avi")], [])
    assert code == 2 and ".gif or .mp4" in text
