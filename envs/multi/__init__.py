"""PettingZoo AEC environments: ``dice_poker_v0``, ``yahtzee_v0``, ``card_poker_v0``.

Each module has ``env(**kwargs)`` (wrapped) and ``raw_env``; every observation
is ``{"observation": ..., "action_mask": ...}``.
"""
