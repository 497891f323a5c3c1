"""What does not train: the arena's command line (``benchmark``, ``dicepoker-bench``),
playing at a table (``play``, ``playing/``, ``dicepoker-play``), seed sweeps (``seeds``),
learning curves (``curves``) and the seat-by-seat dice-poker table (``dice_poker_seats``).
Their old paths ``train/<name>.py`` keep working as shims until the next version."""
