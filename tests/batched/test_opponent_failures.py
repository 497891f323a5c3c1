"""An opponent that fails in the middle of a batched step (issue 27, defect 3): it raises,
or returns floats, the wrong number of actions, or an illegal one. The error names the
opponent, what it returned and what is allowed, and says the tables must be reset; the
tables of that step refuse to step until they are reset; then they play on."""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.card_poker import BatchedCardPokerTable
from envs.batched.dice_poker import BatchedDicePokerSingle


class Flaky:
    """The first legal action, until ``mode`` says how to fail."""

    def __init__(self) -> None:
        self.mode = None

    def act_batch(self, observations, masks):
        masks = np.asarray(masks)
        a = masks.argmax(axis=1)
        if self.mode == "raise":
            raise KeyError("the opponent's own bug")
        if self.mode == "float":
            return a.astype(np.float64) + 0.25
        if self.mode == "short":
            return a[:-1]
        if self.mode == "illegal":
            return np.full(len(masks), masks.shape[1])  # past the last action
        return a

    def __repr__(self) -> str:
        return "Flaky()"


def _dice(opponent):
    return BatchedDicePokerSingle(8, seed=0, n_players=3, opponents=opponent, agent_seat=0)


def _card(opponent):
    return BatchedCardPokerTable(8, seed=0, n_players=3, opponents=opponent, agent_seat=0)


ENGINES = {"dice": _dice, "card": _card}
MODES = {
    "raise": (KeyError, "own bug"),
    "float": (ValueError, r"opponent Flaky\(\) returned float64 .*integer actions 0\.\.\d+"),
    "short": (ValueError, r"opponent Flaky\(\) returned int64 of shape \(\d+,\) .*; expected"),
    "illegal": (
        ValueError,
        r"opponent Flaky\(\) at seat [12] chose illegal action \d+ at table \d+; "
        r"legal actions there are \[",
    ),
}


def _first_legal(engine) -> np.ndarray:
    return engine.action_masks().argmax(axis=1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ENGINES)
def test_failing_opponent_says_reset_and_is_refused_until_reset(kind, mode):
    opponent = Flaky()
    engine = ENGINES[kind](opponent)
    engine.reset()
    opponent.mode = mode
    error, pattern = MODES[mode]
    with pytest.raises(error, match=pattern) as caught:
        engine.step(_first_legal(engine))
    said = " ".join([str(caught.value), *getattr(caught.value, "__notes__", [])])
    assert "must be reset" in said
    assert "no table was advanced" not in said
    # the tables that stepped are half-way: every step at them is refused, whatever the actions
    opponent.mode = None
    with pytest.raises(RuntimeError, match="part-way through a step.*reset"):
        engine.step(_first_legal(engine))
    # a reset of some other tables does not heal them
    some = np.zeros(8, dtype=bool)
    some[:2] = True
    engine.reset(some)
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(_first_legal(engine))
    engine.reset()
    for _ in range(30):
        engine.step(_first_legal(engine))
        if engine.done.any():
            engine.reset(engine.done)


@pytest.mark.parametrize("kind", ENGINES)
def test_only_the_tables_of_the_failed_step_wait_for_a_reset(kind):
    opponent = Flaky()
    engine = ENGINES[kind](opponent)
    engine.reset()
    half = np.zeros(8, dtype=bool)
    half[:4] = True
    opponent.mode = "raise"
    with pytest.raises(KeyError):
        engine.step_some(_first_legal(engine), half)
    opponent.mode = None
    engine.step_some(_first_legal(engine), ~half)  # the others play on
    with pytest.raises(RuntimeError, match=r"table\(s\) \[0, 1, 2, 3\]"):
        engine.step_some(_first_legal(engine), half)
    engine.reset(half)
    engine.step_some(_first_legal(engine), half & ~engine.done)


@pytest.mark.parametrize("kind", ENGINES)
def test_an_opponent_failing_in_reset_leaves_its_tables_to_be_reset(kind):
    opponent = Flaky()
    engine = ENGINES[kind](opponent)
    engine.reset()
    opponent.mode = "float"
    # with the learner at seat 0 an opponent may move before it in a new game (dice: the
    # seating roll; card: after a session's first deal): reset until one does
    with pytest.raises(ValueError, match="returned float64"):
        for _ in range(20):
            engine.reset()
            engine.step(_first_legal(engine))
    opponent.mode = None
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(_first_legal(engine))
    engine.reset()
    engine.step(_first_legal(engine))
