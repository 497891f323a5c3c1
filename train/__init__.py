"""The trainers of dicepoker-gym, each a short linear file on the one run protocol of
:mod:`train.common`: ``ppo``, ``league``, ``afterstate``, ``handvalue``, ``best_response``,
``rllib``. ``dicepoker-train --config C`` (:mod:`train.cli`) runs the trainer config ``C``
names; ``python train/<trainer>.py --config C`` runs one directly."""
