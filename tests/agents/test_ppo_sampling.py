"""``ppo:PATH?sample`` and ``?greedy``: a trained model plays its masked policy's draws or its
most likely action, from the agent's seeded Generator; a model of a mixed-strategy run
(``trainer: mmd`` in its config.yaml) samples unless told ``?greedy``."""

from __future__ import annotations

import re

import numpy as np
import pytest
import yaml

from agents import make_agent
from agents.arena import check_spec, display_name
from agents.ppo import masked_logits

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An untrained card-poker model saved in three run folders: of train/mmd.py, of
    train/ppo.py, and a bare file with no config beside it."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import envs  # noqa: F401  (registers the ids)

    env = gym.make("CardPoker-v0", opponents=make_agent("random", "card_poker"))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, policy_kwargs={"net_arch": [8]}, seed=0)
    root = tmp_path_factory.mktemp("runs")
    paths = {}
    for trainer in ("mmd", "ppo", None):
        folder = root / (trainer or "bare")
        (folder / "checkpoints").mkdir(parents=True)
        if trainer:
            (folder / "config.yaml").write_text(yaml.safe_dump({"trainer": trainer}))
        model.save(folder / "model.zip")
        model.save(folder / "checkpoints" / "step_16.zip")
        paths[trainer] = folder / "model.zip"
    return paths


def _table(agent, rows=4000):
    """One observation and mask of the game, repeated ``rows`` times."""
    shape = agent.model.observation_space.shape
    obs = np.tile(np.linspace(0, 1, shape[0], dtype=np.float32), (rows, 1))
    mask = np.zeros((rows, agent.model.action_space.n), dtype=bool)
    mask[:, [32, 33, 40, 41]] = True  # a few betting actions
    return obs, mask


def test_sample_draws_from_the_masked_policy_with_the_agents_seed(runs):
    agent = make_agent(f"ppo:{runs['ppo']}?sample", "card_poker")
    assert agent.deterministic is False
    obs, mask = _table(agent)
    agent.seed(3)
    first = agent.act_batch(obs, mask)
    agent.seed(3)
    assert np.array_equal(first, agent.act_batch(obs, mask))  # the same seed, the same draws
    agent.seed(4)
    assert not np.array_equal(first, agent.act_batch(obs, mask))
    logits = masked_logits(agent.model, obs[0], mask[0])
    p = np.exp(logits - logits.max())
    p /= p.sum()
    freq = np.bincount(first, minlength=len(p)) / len(first)
    assert set(np.flatnonzero(freq)) <= {32, 33, 40, 41}
    assert np.abs(freq - p).max() < 0.03  # 4000 draws: about 4 standard errors
    agent.seed(3)
    one = [agent.act(obs[0], mask[0]) for _ in range(200)]
    assert len(set(one)) > 1 and set(one) <= {32, 33, 40, 41}


def test_greedy_and_no_option_play_the_most_likely_action(runs):
    obs, mask = _table(make_agent(f"ppo:{runs['ppo']}", "card_poker"), 8)
    for spec in (f"ppo:{runs['ppo']}", f"ppo:{runs['ppo']}?greedy", f"ppo:{runs[None]}"):
        agent = make_agent(spec, "card_poker")
        assert agent.deterministic is True, spec
        best = int(np.argmax(masked_logits(agent.model, obs[0], mask[0])))
        assert (agent.act_batch(obs, mask) == best).all()


def test_a_mixed_strategy_run_samples_unless_told_greedy(runs):
    mmd = runs["mmd"]
    assert make_agent(f"ppo:{mmd}", "card_poker").deterministic is False
    checkpoint = mmd.parent / "checkpoints" / "step_16.zip"
    assert make_agent(f"ppo:{checkpoint}", "card_poker").deterministic is False
    assert make_agent(f"ppo:{mmd}?greedy", "card_poker").deterministic is True
    assert make_agent(f"ppo:{mmd}", "card_poker").name == f"ppo:{mmd}?sample"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ppo:{path}?often", "unknown option 'often'; a ppo: spec takes ?greedy or ?sample"),
        ("handvalue:{path}?sample", "a handvalue: spec takes no option"),
    ],
)
def test_a_bad_option_is_one_line_naming_it(runs, spec, message):
    spec = spec.format(path=runs["ppo"])
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        make_agent(spec, "card_poker")
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=re.escape(message)):
        check_spec(spec, "card_poker")


def test_the_arena_checks_and_names_a_spec_with_its_option(runs):
    check_spec(f"ppo:{runs['ppo']}?sample", "card_poker")  # the file is there
    assert display_name(f"ppo:{runs['ppo']}?sample") == "ppo:ppo?sample"
    assert display_name(f"ppo:{runs['ppo']}") == "ppo:ppo"


def test_a_best_response_folder_names_the_option_without_a_question_mark(runs, tmp_path):
    from train.best_response import run_base
    from train.common.best_response import Table
    from train.common.sb3 import RunConfig

    table = Table("card_poker", 2, f"ppo:{runs['mmd']}?greedy", {})
    folder = run_base(table, RunConfig(out_dir=str(tmp_path)))
    assert folder.name == "card_poker__ppo-mmd-greedy__0"
