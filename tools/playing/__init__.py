"""The pieces of ``tools/play.py``: one module per game table, the coach, the console.

    base.py        the Table interface every game's table implements, errors, dice words
    dice_poker.py  prison dice poker (5 and 6 dice), games carried over in chips
    scorecard.py   the russian scorecard game and classic Yahtzee, one card per player
    card_poker.py  card poker, a deal or a session of deals
    coach.py       every decision valued by the optimal players' public ``action_values``
    console.py     input and output (scripted in the tests)

Why here: these modules are the user interface of one script; they sit above the
agents (they seat them and ask the optimal players for advice), so they belong
neither in ``envs`` nor in ``agents``. ``train.playing`` (their old name) is kept as
an alias of this package and of each of its modules.
"""
