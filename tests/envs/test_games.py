"""The game registry: every fact of a game in one record, read by everything else;
bad options are one clear line at construction."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import pytest

import envs
from agents import Agent, make_agent
from agents.arena import run_arena
from envs import games
from envs.multi import card_poker_v0, dice_poker_v0, yahtzee_v0
from envs.obs import Field, Layout


def test_the_five_games():
    assert games.BUILT_IN == (
        "dice_poker",
        "dice_poker6",
        "yahtzee",
        "yahtzee_classic",
        "card_poker",
    )
    assert games.of_kind("chips") == ("dice_poker", "dice_poker6", "card_poker")
    assert games.of_kind("points") == ("yahtzee", "yahtzee_classic")
    assert games.by_gym_id("YahtzeeClassic-v0").name == "yahtzee_classic"
    with pytest.raises(ValueError, match="unknown game 'chess'; choose one of dice_poker"):
        games.get("chess")


@pytest.mark.parametrize("name", games.BUILT_IN)
def test_each_record_agrees_with_its_envs(name):
    game = games.get(name)
    rules = game.make_rules()
    n = game.players[0] if game.result == "points" else 3
    env = gym.make(game.gym_id).unwrapped
    assert env.rules == rules
    assert env.observation_space == game.layout(rules, 1 if game.result == "points" else 3).box()
    obs = game.observation(rules, n)
    assert obs.shape == (game.layout(rules, n).size,) and obs.dtype == np.float32
    module = __import__(game.aec_module, fromlist=["env"])
    aec = module.env(**game.aec_kwargs)
    assert aec.unwrapped.rules == rules
    for spec in game.agents:
        assert make_agent(spec, name).rules == rules or spec == "optimal"


@pytest.mark.parametrize(
    ("make", "kwargs", "error", "match"),
    [
        (
            "DicePoker-v0",
            {"n_players": 3.0},
            ValueError,
            r"n_players must be a whole number 2..6, got 3.0",
        ),
        ("DicePoker-v0", {"n_players": True}, ValueError, "n_players"),
        ("DicePoker-v0", {"opponents": 5}, ValueError, r"opponents must be .* got 5"),
        ("DicePoker-v0", {"ante": True}, ValueError, r"ante must be a whole number .* got True"),
        ("DicePoker-v0", {"ante": 1.0}, ValueError, "ante"),
        (
            "DicePoker-v0",
            {"first_player": True},
            ValueError,
            r"first_player must be 'roll' or 0..2, got True",
        ),
        ("DicePoker-v0", {"agent_seat": False}, ValueError, "agent_seat"),
        ("DicePoker-v0", {"pyramid": "any"}, ValueError, r"\['pyramid'\] apply to six dice only"),
        ("DicePoker-v0", {"six_dice_low_hands": False}, ValueError, "six dice only"),
        (
            "DicePoker-v0",
            {"antes": 2},
            TypeError,
            r"unknown option\(s\) \['antes'\] .* rule options are",
        ),
        ("CardPoker-v0", {"deck": 36.0}, ValueError, r"deck must be 36 or 54, got 36.0"),
        (
            "CardPoker-v0",
            {"stack": 2, "ante": 3},
            ValueError,
            r"stack must be at least the ante \(3\)",
        ),
        ("CardPoker-v0", {"stack": 0}, ValueError, "stack"),
        ("CardPoker-v0", {"n_players": 3.0}, ValueError, "n_players"),
        ("CardPoker-v0", {"max_deals": 2.0}, ValueError, "max_deals"),
        ("CardPoker-v0", {"opponents": None}, ValueError, "opponents"),
    ],
)
def test_bad_options_fail_at_construction(make, kwargs, error, match):
    with pytest.raises(error, match=match):
        gym.make(make, **kwargs)


@pytest.mark.parametrize(
    ("module", "kwargs", "error", "match"),
    [
        (dice_poker_v0, {"n_players": 3.0}, ValueError, "n_players"),
        (dice_poker_v0, {"first_player": True}, ValueError, "first_player"),
        (dice_poker_v0, {"pyramid": "any"}, ValueError, "six dice only"),
        (dice_poker_v0, {"n_dice": 5.0}, ValueError, "n_dice"),
        (card_poker_v0, {"deck": 36.0}, ValueError, "deck"),
        (card_poker_v0, {"stack": 1, "ante": 2}, ValueError, "stack"),
        (card_poker_v0, {"n_players": 2.0}, ValueError, "n_players"),
        (yahtzee_v0, {"n_players": 2.0}, ValueError, "n_players"),
        # bounded by the players the registry seats at one table (issue 27, defect 10)
        (yahtzee_v0, {"n_players": 10000}, ValueError, r"n_players must be 2\.\.6, got 10000"),
        (yahtzee_v0, {"n_players": 7, "rules": "classic"}, ValueError, r"2\.\.6"),
    ],
)
def test_bad_aec_options(module, kwargs, error, match):
    with pytest.raises(error, match=match):
        module.env(**kwargs)


@pytest.mark.parametrize("module", [dice_poker_v0, card_poker_v0, yahtzee_v0])
def test_aec_reset_refuses_unknown_options(module):
    # an error as in the gym envs (issue 27, defect 10); only PettingZoo's api_test probe,
    # reset(seed=0, options={"options": 1}), which it requires to succeed, warns
    env = module.env()
    with pytest.raises(ValueError, match=r"reset takes no options, got \{'speed': 2\}"):
        env.reset(seed=0, options={"speed": 2})
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(seed=0, options={"options": 1, "speed": 2})
    with pytest.warns(UserWarning, match=r"reset takes no options; ignored \['options'\]"):
        env.reset(seed=0, options={"options": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={})  # empty is fine
        env.reset(seed=0, options=None)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "other"),
    [
        ("Yahtzee-v0", {"rules": "classic"}, "YahtzeeClassic-v0"),
        ("YahtzeeClassic-v0", {"rules": "russian"}, "PokerNaKostyah-v0"),
        ("DicePoker-v0", {"n_dice": 6}, "DicePoker6-v0"),
        ("DicePoker6-v0", {"n_dice": 5}, "DicePoker-v0"),
    ],
)
def test_an_id_refuses_the_keyword_of_another_id(env_id, kwargs, other):
    """gym.make and gym.make_vec (every mode) say the same one line (issue 27, defect 10)."""
    ((key, value),) = kwargs.items()
    said = rf"{env_id} is played with {key}=.*, got {key}={value!r}; {other} plays"
    with pytest.raises(ValueError, match=said):
        gym.make(env_id, **kwargs)
    for mode in ("vector_entry_point", "sync"):
        with pytest.raises(ValueError, match=said):
            gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, **kwargs)
    fixed = games.by_gym_id(env_id).gym_kwargs[key]  # repeating the id's own value is fine
    assert gym.make(env_id, **{key: fixed}).unwrapped.rules == gym.make(env_id).unwrapped.rules


# -- a toy game, registered from outside: nothing but the registry learns about it ----------


@dataclass(frozen=True)
class ToyRules:
    ante: int = 1


class ToyGame:
    """Each player in turn says 0 or 1; the highest sum of own word and a die wins the pot."""

    def __init__(self, rules: ToyRules, n: int, rng: np.random.Generator) -> None:
        self.rules, self.n, self.rng = rules, n, rng
        self.said: list[int] = []
        self.winner = None

    @property
    def done(self) -> bool:
        return self.winner is not None

    @property
    def current_player(self):
        return None if self.done else len(self.said)

    def action_mask(self) -> np.ndarray:
        return np.ones(2, dtype=bool)

    def step(self, action: int) -> None:
        self.said.append(int(action))
        if len(self.said) == self.n:
            scores = [s + int(self.rng.integers(6)) for s in self.said]
            self.winner = int(np.argmax(scores))

    def payoffs(self) -> dict[int, int]:
        a = self.rules.ante
        return {s: a * (self.n - 1) if s == self.winner else -a for s in range(self.n)}


TOY_LAYOUT = Layout([Field("seat", None, 0, 5), Field("said", None, 0, 6)], "toy")


def toy_observe(game: ToyGame, seat: int) -> np.ndarray:
    return TOY_LAYOUT.encode(seat=seat, said=sum(game.said))


class ToyAlwaysOne(Agent):
    name = "always_one"

    def __init__(self, game: str, **rules) -> None:
        super().__init__()
        self.rules = games.get(game).make_rules(**rules)

    def act(self, observation, action_mask) -> int:
        return 1


class ToyEnv(gym.Env):
    def __init__(self, **rules) -> None:
        self.rules = games.get("toy").make_rules(**rules)
        self.observation_space = TOY_LAYOUT.box()
        self.action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.game = ToyGame(self.rules, 2, self.np_random)
        return toy_observe(self.game, 0), {}

    def step(self, action):
        self.game.step(action)
        self.game.step(0)
        return toy_observe(self.game, 0), float(self.game.payoffs()[0]), True, False, {}


@pytest.fixture
def toy():
    game = games.register(
        games.Game(
            name="toy",
            result="chips",
            rule_options=("ante",),
            table_options=("n_players",),
            rules_factory=ToyRules,
            layout=lambda rules, n_players=2: TOY_LAYOUT,
            observe=toy_observe,
            new_game=lambda rules, n, rng: ToyGame(rules, n, rng),
            winners=lambda game: [game.winner],
            gym_id="Toy-v0",
            gym_entry_point=ToyEnv,
            aec_module="",
            agents={"always_one": f"{__name__}:ToyAlwaysOne"},
        )
    )
    envs.register_gym_ids()
    yield game
    games.unregister("toy")
    del gym.registry["Toy-v0"]


def test_a_registered_game_is_seen_everywhere(toy):
    import agents
    import agents.arena

    assert "toy" in agents.GAMES and "toy" in agents.arena.POKER_GAMES
    assert agents.AGENTS["always_one"] == {"toy": f"{__name__}:ToyAlwaysOne"}
    assert make_agent("always_one", "toy", ante=2).rules == ToyRules(2)
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['bet'\] for toy"):
        make_agent("always_one", "toy", bet=2)
    with pytest.raises(ValueError, match="does not exist for game 'toy'"):
        make_agent("heuristic", "toy")
    env = gym.make("Toy-v0", ante=3)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2,)
    result = run_arena("toy", ["random", "always_one"], 40, seed=1, workers=1, progress=False)
    assert result.records.value.sum() == 0  # zero-sum chips
    # saying 1 beats saying 0 more often than not
    assert result.agent_values()[:, 1].mean() > result.agent_values()[:, 0].mean()


def test_table_defaults_and_the_reverse_lookup_live_in_the_registry():
    """Default players, opponents and short titles are the registry's; the wrappers that
    play several games find theirs with one lookup (``by_fixed``)."""
    import inspect

    from agents import make_agent
    from envs.batched.dice_poker import BatchedDicePokerSingle
    from envs.card_poker import CardPokerEnv
    from envs.dice_poker import DicePokerEnv

    assert games.by_fixed("n_dice", 6).name == "dice_poker6"
    assert games.by_fixed("rules", "classic").short_title == "Classic Yahtzee"
    with pytest.raises(ValueError, match="n_dice must be one of"):
        games.by_fixed("n_dice", 5.0)
    for cls, game, env_id in (
        (DicePokerEnv, "dice_poker", "DicePoker-v0"),
        (CardPokerEnv, "card_poker", "CardPoker-v0"),
    ):
        params = inspect.signature(cls).parameters
        assert params["n_players"].default == games.get(game).default_players
        # the classes seat Agents only; a gym id's default opponents are the registry's,
        # resolved one floor up (agents.tables.seat_options)
        assert params["opponents"].default is None
        seated = gym.make(env_id).unwrapped._opponents
        default = make_agent(games.get(game).default_opponents, game=game).name
        assert [a.name for a in seated] == [default] * len(seated)
    assert (
        BatchedDicePokerSingle.table_options["n_players"] == games.get("dice_poker").default_players
    )


def test_the_russian_game_has_an_unambiguous_name_beside_yahtzee():
    """``PokerNaKostyah-v0`` is the russian scorecard game's id, ``Yahtzee-v0`` its old id
    kept (committed runs' configs name it); ``poker_na_kostyah`` is the same record as
    ``yahtzee``, the registered name (the prefix of the committed run folders)."""
    from agents import make_agent

    record = games.get("poker_na_kostyah")
    assert record is games.get("yahtzee") and games.by_gym_id("Yahtzee-v0") is record
    assert record.gym_id == "PokerNaKostyah-v0" and record.gym_aliases == ("Yahtzee-v0",)
    assert "poker_na_kostyah" not in games.names()
    old = gym.make("Yahtzee-v0")
    assert old.unwrapped.rules == gym.make("PokerNaKostyah-v0").unwrapped.rules
    old.close()
    env = gym.make("PokerNaKostyah-v0")
    assert env.unwrapped.rules.rules == "russian"
    vec = gym.make_vec("PokerNaKostyah-v0", 2, vectorization_mode="vector_entry_point")
    assert vec.observation_space.shape[1:] == env.observation_space.shape
    env.close()
    vec.close()
    agent = make_agent("heuristic", game="poker_na_kostyah")
    assert agent.rules == make_agent("heuristic", game="yahtzee").rules


def test_an_alias_is_the_game_wherever_a_name_is_looked_up(tmp_path):
    """``games.rules_for`` (every agent built directly asks it) and the ``--game`` flags of
    the tools resolve an alias through ``games.get``, as ``make_agent`` does."""
    from agents.heuristic.dice_poker import DicePokerHeuristic
    from agents.heuristic.scorecard import YahtzeeHeuristic
    from envs.rules.scorecard import ScorecardRules
    from tools import benchmark, play

    assert YahtzeeHeuristic(game="poker_na_kostyah").rules == YahtzeeHeuristic("yahtzee").rules
    assert games.names(aliases=True) == (
        "dice_poker", "dice_poker6", "yahtzee", "poker_na_kostyah", "yahtzee_classic",
        "card_poker",
    )  # fmt: skip
    for name in games.names():
        record = games.get(name)
        rules_type = type(record.make_rules())
        for alias in record.aliases:
            assert games.rules_for(alias, rules_type, "who") == record.make_rules()
    with pytest.raises(ValueError, match="DicePokerHeuristic plays dice_poker or dice_poker6, "
                       "not 'poker_na_kostyah'"):  # fmt: skip
        DicePokerHeuristic(game="poker_na_kostyah")
    with pytest.raises(ValueError, match="plays yahtzee or yahtzee_classic, not 'nope'"):
        games.rules_for("nope", ScorecardRules, "YahtzeeHeuristic")
    assert play.make_parser().parse_args(["--game", "poker_na_kostyah"]).game == "poker_na_kostyah"
    table = play.build_table("poker_na_kostyah", "none", seed=0)
    assert table.game == "yahtzee"
    argv = ["--game", "poker_na_kostyah", "--agents", "random", "--games", "2"]
    result = benchmark.main([*argv, "--out", str(tmp_path), "--no-progress", "--no-chart"])
    assert result.setup.game == "yahtzee" and result.n_games == 2
