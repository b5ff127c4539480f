"""What a finished game leaves behind besides its result (issue #12): achievements and skill
ratings, stored in the transaction that stores the result (so a crash never keeps one without
the other, and nothing is counted twice).

- :mod:`~bot.core.progress.model`: the values (what one person earned, a rating, the score
  sheet's part), plain data: the words read them;
- :mod:`~bot.core.progress.achievements`: the rulebook's chart per person across servers, and a
  winner's pick of another row;
- :mod:`~bot.core.progress.ratings`: OpenSkill ratings per server and across servers, and the
  rating board;
- :mod:`~bot.core.progress.store`: their rows' statements and the steps a game's end adds;
- :mod:`~bot.core.progress.feature`: the hook at a game's end (:mod:`bot.core.hooks`).

Nothing here imports discord; this file imports nothing, so that the model loads alone.
"""
