"""The weekly challenge (issue #12): every player gets the same solo game each ISO week.

- **One deal a week.** The first ``/calico challenge`` of a week stores the week's challenge:
  a seed made with :mod:`secrets` and the options (a standard solo game). Processes racing to
  create it agree on the stored one. Everyone's game is dealt from that seed, so the boards,
  cats, goals offered and the tile sequence are the same for all. The seed is secret like
  every game's: no message, picture or record shows it.
- **One attempt.** The game and the person's entry are written in one transaction (the
  entry is a step of the game's creation); a second attempt that week is refused
  (``challenge_played``), whatever process it reaches.
- **No spoilers.** A challenge game has no thread (its turns and its end come by DM), its
  replay and record wait for the week to close, and the week's boards are shown only to those
  who finished their attempt (everyone may see a closed week's).
- **Scores.** A challenge game's score is recorded on its entry in the transaction that ends
  it; a game that ends after its week closed, or in which hints were used, is not recorded.
- **Closing.** The sweep closes each week whose end has passed, once across processes, and in
  that same transaction queues a summary for every server that had finished attempts and has a
  challenge channel (``/calico admin``): a notice about no game, posted in that channel.

Modules: :mod:`~bot.core.challenge.model` (plain values and the notices), ``play`` (the week,
an attempt, its end, the boards), ``closing`` (the weekly close), ``store`` (its storage),
``feature`` (its hooks). This file imports nothing, so that the model loads alone.
"""
