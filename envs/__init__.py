"""dicepoker-gym environments. ``import envs`` registers every Gymnasium id."""

from gymnasium.envs.registration import register, registry

_IDS = {
    "DicePoker-v0": ("envs.dice_poker:DicePokerEnv", {"n_dice": 5}),
    "DicePoker6-v0": ("envs.dice_poker:DicePokerEnv", {"n_dice": 6}),
    "Yahtzee-v0": ("envs.yahtzee:YahtzeeEnv", {"rules": "russian"}),
    "YahtzeeClassic-v0": ("envs.yahtzee:YahtzeeEnv", {"rules": "classic"}),
    "CardPoker-v0": ("envs.card_poker:CardPokerEnv", {}),
}

for _id, (_entry, _kwargs) in _IDS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, kwargs=_kwargs)
