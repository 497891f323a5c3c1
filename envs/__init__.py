"""dicepoker-gym environments. ``import envs`` registers every Gymnasium id."""

from gymnasium.envs.registration import register, registry

_IDS = {
    "DicePoker-v0": ("envs.dice_poker:DicePokerEnv", {"n_dice": 5}, None),
    "DicePoker6-v0": ("envs.dice_poker:DicePokerEnv", {"n_dice": 6}, None),
    "Yahtzee-v0": ("envs.yahtzee:YahtzeeEnv", {}, "envs.vector:yahtzee_vector"),
    "YahtzeeClassic-v0": (
        "envs.yahtzee:YahtzeeEnv",
        {"rules": "classic"},
        "envs.vector:yahtzee_classic_vector",
    ),
    "CardPoker-v0": ("envs.card_poker:CardPokerEnv", {}, None),
}

for _id, (_entry, _kwargs, _vector) in _IDS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, kwargs=_kwargs, vector_entry_point=_vector)
