"""Tournaments (issue #23): a server's Swiss or round-robin event, run by the bot over days.

- :mod:`~bot.core.tournament.model`: what a tournament is (plain values: the words read them);
- :mod:`~bot.core.tournament.records`: reading one, and the versioned step every change is;
- :mod:`~bot.core.tournament.signup`: create, join, leave, remove, close the sign-up, pause,
  cancel (the organiser's and the players' actions);
- :mod:`~bot.core.tournament.rounds`: the sweep's periodic work: start, end and pair rounds;
- :mod:`~bot.core.tournament.tables`: a table's game: opened, played out at a deadline, and the
  line its score sheet carries;
- :mod:`~bot.core.tournament.pairing`: the arithmetic (points, standings, Swiss, round-robin);
- :mod:`~bot.core.tournament.store`: its rows, statements and transactions;
- :mod:`~bot.core.tournament.feature`: what it adds to the core's flow (:mod:`bot.core.hooks`).

Nothing here imports discord; this file imports nothing, so that the model loads alone.
"""
