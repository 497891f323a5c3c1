"""agents.dqn.MaskableDQN: SB3's DQN that explores, acts and bootstraps among the legal
actions only, its replay buffer of next-state masks, its files and its ``dqn:`` agents."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import DQN

import envs  # noqa: F401
from agents import make_agent
from agents.dqn import (
    NEXT_MASK,
    DQNAgent,
    MaskableDQN,
    MaskableReplayBuffer,
    MaskableReplayBufferSamples,
)
from agents.random_agent import RandomAgent
from agents.tables import BatchedVecEnv, play_games
from envs import games

pytestmark = pytest.mark.usefixtures("one_torch_thread")
IDS = tuple(games.get(n).gym_id for n in games.names())
SMALL = {"net_arch": [32, 32]}
# tiny but real settings: several updates and target copies within a few thousand steps
QUICK = {
    "learning_starts": 256,
    "buffer_size": 4096,
    "train_freq": 4,
    "target_update_interval": 256,
    "exploration_fraction": 0.5,
}


def _model(env_id="YahtzeeClassic-v0", n=16, **kwargs):
    vec = BatchedVecEnv(env_id, n, seed=0)  # illegal_action="raise": an illegal action fails
    return MaskableDQN("MlpPolicy", vec, seed=0, device="cpu", policy_kwargs=SMALL, **kwargs), vec


def _plant(net, bias) -> None:
    """The Q network ``net`` answers ``bias`` for every observation."""
    last = [m for m in net.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.as_tensor(bias, dtype=torch.float32))


@pytest.mark.parametrize("env_id", IDS)
def test_actions_are_legal_in_random_states(env_id):
    """Greedy and epsilon-greedy actions of an untrained net, over the states a random
    player reaches, are always legal; without the masks the greedy net often is not."""
    model, vec = _model(env_id, n=64)
    wander = BatchedVecEnv(env_id, 64, seed=1)
    walker = RandomAgent()
    walker.seed(2)
    obs = wander.reset()
    model.exploration_rate = 0.5
    unmasked_illegal = 0
    for _ in range(30):
        masks = wander.action_masks()
        for deterministic in (True, False):
            actions, _ = model.predict(obs, deterministic=deterministic, action_masks=masks)
            assert actions.shape == (64,) and masks[np.arange(64), actions].all()
        plain = model.q_net(torch.as_tensor(obs)).argmax(dim=1).numpy()
        unmasked_illegal += int((~masks[np.arange(64), plain]).sum())
        obs, _, _, _ = wander.step(walker.act_batch(obs, masks))
    assert unmasked_illegal > 0  # the masks made the difference


def test_predict_of_one_observation_and_bad_masks():
    model, vec = _model()
    obs, masks = vec.reset(), vec.action_masks()
    action, _ = model.predict(obs[0], deterministic=True, action_masks=masks[0])
    assert np.shape(action) == () and masks[0, action]
    with pytest.raises(ValueError, match=r"action_masks of shape \(3,\) .* expected \(16, 45\)"):
        model.predict(obs, action_masks=np.ones(3, bool))
    empty = masks.copy()
    empty[5] = False
    with pytest.raises(ValueError, match="row 5 allows no action"):
        model.predict(obs, action_masks=empty)


def _samples(model, next_masks, dones):
    n = len(next_masks)
    dim = model.observation_space.shape[0]
    t = torch.as_tensor
    return MaskableReplayBufferSamples(
        observations=torch.zeros(n, dim),
        actions=torch.zeros(n, 1, dtype=torch.long),
        next_observations=torch.zeros(n, dim),
        dones=t(dones, dtype=torch.float32).reshape(-1, 1),
        rewards=torch.full((n, 1), 0.5),
        next_action_masks=t(np.asarray(next_masks, bool)),
    )


@pytest.mark.parametrize("double_q", [False, True])
def test_the_td_target_ignores_illegal_next_actions(double_q):
    """A planted Q of 100 on an illegal next action never reaches the target: the max is
    the legal 2.0 (plain DQN would take the 100)."""
    model, _ = _model(double_q=double_q, gamma=0.9)
    q = np.zeros(45)
    q[7], q[3], q[9] = 100.0, 2.0, -1.0
    _plant(model.q_net_target, q)
    _plant(model.q_net, q)
    legal = np.zeros((3, 45), bool)
    legal[:, [3, 9]] = True
    legal[1, 3] = False  # row 1: only action 9 (Q -1) is legal
    legal[2, 7] = True  # row 2: the 100 is legal there
    target = model.td_target(_samples(model, legal, [0, 0, 0])).numpy().ravel()
    np.testing.assert_allclose(target, [0.5 + 0.9 * 2.0, 0.5 - 0.9, 0.5 + 0.9 * 100.0])
    done = model.td_target(_samples(model, legal, [1, 1, 1])).numpy().ravel()
    np.testing.assert_allclose(done, [0.5, 0.5, 0.5])  # a terminal state bootstraps nothing


def test_double_q_picks_by_the_online_net():
    model, _ = _model(double_q=True, gamma=1.0)
    online, target = np.zeros(45), np.zeros(45)
    online[[3, 9]] = [1.0, 5.0]  # the online net prefers 9 ...
    target[[3, 9]] = [8.0, 4.0]  # ... the target net values 9 at 4
    online[7] = target[7] = 50.0  # illegal
    _plant(model.q_net, online)
    _plant(model.q_net_target, target)
    legal = np.zeros((1, 45), bool)
    legal[0, [3, 9]] = True
    assert model.td_target(_samples(model, legal, [0])).item() == pytest.approx(0.5 + 4.0)


def test_the_buffer_keeps_each_transition_s_next_mask():
    """Sampled masks belong to the sampled transitions (the same step and game)."""
    obs_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    buffer = MaskableReplayBuffer(64, obs_space, gym.spaces.Discrete(6), device="cpu", n_envs=2)
    for step in range(40):
        obs = np.array([[2 * step], [2 * step + 1]], np.float32)
        masks = np.array([[k == i % 6 for k in range(6)] for i in (2 * step, 2 * step + 1)])
        infos = [{NEXT_MASK: masks[0]}, {} if step == 7 else {NEXT_MASK: masks[1]}]
        buffer.add(obs, obs, np.zeros((2, 1)), np.zeros(2), np.zeros(2), infos)
    data = buffer.sample(256)
    ids = data.observations.numpy().ravel().astype(int)
    masks = data.next_action_masks.numpy()
    for i, m in zip(ids, masks, strict=True):
        expected = np.ones(6, bool) if i == 15 else np.arange(6) == i % 6  # 15: no mask given
        np.testing.assert_array_equal(m, expected)


@pytest.mark.parametrize("env_id", IDS)
def test_trains_on_every_id_without_an_illegal_action(env_id):
    """A few thousand steps on the batched engine with illegal_action="raise": a single
    illegal action (exploring, greedy or in the warm-up) would raise."""
    model, vec = _model(env_id, **QUICK)
    model.learn(2048)
    assert model.num_timesteps >= 2048 and model._n_updates > 0
    stored = model.replay_buffer.next_action_masks[: model.replay_buffer.pos]
    assert stored.any(axis=2).all() and not stored.all()  # masks, not all legal


def test_trains_on_the_scalar_env():
    """SB3 wraps one Gymnasium env in a DummyVecEnv; the masks come through it."""
    env = gym.make("DicePoker-v0")
    kwargs = {**QUICK, "learning_starts": 64}
    model = MaskableDQN("MlpPolicy", env, seed=0, device="cpu", policy_kwargs=SMALL, **kwargs)
    model.learn(512)
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True, action_masks=info["action_mask"])
    assert np.shape(action) == () and info["action_mask"][action]


def test_refuses_what_it_cannot_do():
    vec = BatchedVecEnv("DicePoker-v0", 2, seed=0)
    with pytest.raises(ValueError, match="n_steps=1 only, got 3"):
        MaskableDQN("MlpPolicy", vec, n_steps=3)
    with pytest.raises(ValueError, match="replay_buffer_class must be MaskableReplayBuffer"):
        from stable_baselines3.common.buffers import ReplayBuffer

        MaskableDQN("MlpPolicy", vec, replay_buffer_class=ReplayBuffer)
    unmasked = gym.make("CartPole-v1")
    with pytest.raises(ValueError, match="needs an env with action_masks"):
        MaskableDQN("MlpPolicy", unmasked, learning_starts=1).learn(8)


def test_save_load_and_play_as_an_agent(tmp_path):
    model, vec = _model("DicePoker-v0", double_q=True, **QUICK)
    model.learn(512)
    path = tmp_path / "dqn.zip"
    model.save(path)
    loaded = MaskableDQN.load(path, device="cpu")
    assert loaded.double_q and isinstance(loaded.replay_buffer, type(None) | MaskableReplayBuffer)
    obs, masks = vec.reset(), vec.action_masks()
    a, _ = model.predict(obs, deterministic=True, action_masks=masks)
    b, _ = loaded.predict(obs, deterministic=True, action_masks=masks)
    np.testing.assert_array_equal(a, b)

    agent = make_agent(f"dqn:{path}", "dice_poker")
    assert isinstance(agent, DQNAgent) and agent.name == f"dqn:{path}"
    np.testing.assert_array_equal(agent.act_batch(obs, masks), a)
    assert agent.act(obs[3], masks[3]) == a[3]
    chips = play_games(agent.act_batch, "DicePoker-v0", 64, seed=5)  # raises on an illegal one
    assert chips.shape == (64,)
    with pytest.raises(ValueError, match="a different game"):
        make_agent(f"dqn:{path}", "yahtzee_classic")
    with pytest.raises(ValueError, match=r"trained on observations of shape \(\d+,\), got a"):
        agent.act_batch(obs[:, :5], masks)
    assert DQNAgent.from_model(loaded).act(obs[3], masks[3]) == a[3]


def test_a_plain_dqn_file_plays_too(tmp_path):
    vec = BatchedVecEnv("DicePoker-v0", 4, seed=0, illegal_action="terminate")
    DQN("MlpPolicy", vec, seed=0, device="cpu", policy_kwargs=SMALL).save(tmp_path / "p.zip")
    agent = make_agent(f"dqn:{tmp_path / 'p.zip'}", "dice_poker")
    obs, masks = vec.reset(), vec.action_masks()
    assert masks[np.arange(4), agent.act_batch(obs, masks)].all()


def test_bad_files_are_one_line(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        make_agent(f"dqn:{tmp_path / 'none.zip'}", "dice_poker")
    junk = tmp_path / "junk.zip"
    junk.write_text("not a zip")
    with pytest.raises(ValueError, match="not a model zip saved by MaskableDQN.save"):
        make_agent(f"dqn:{junk}", "dice_poker")


def test_learns_classic_yahtzee_past_random():
    """4,000 steps (about 100 games) already score about twice the random player's mean
    on the same 500 deals (measured: 102 against 45)."""
    vec = BatchedVecEnv("YahtzeeClassic-v0", 16, seed=0, reward_scale=0.01)
    model = MaskableDQN(
        "MlpPolicy",
        vec,
        learning_starts=500,
        buffer_size=20_000,
        learning_rate=1e-3,
        train_freq=1,
        batch_size=64,
        target_update_interval=500,
        exploration_fraction=0.5,
        seed=0,
        device="cpu",
    )
    model.learn(4000)
    learned = play_games(DQNAgent.from_model(model).act_batch, "YahtzeeClassic-v0", 500, 123)
    walker = RandomAgent()
    walker.seed(0)
    random = play_games(walker.act_batch, "YahtzeeClassic-v0", 500, 123)
    assert learned.mean() > random.mean() + 30, (learned.mean(), random.mean())
