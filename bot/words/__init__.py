"""Words: everything that turns engine events, game views and refusals into text and alt text.

Pure: no discord, no I/O, no rules. Every function takes a :class:`~bot.words.catalogue.Text`
(the reader's language) and returns strings, so the whole product's wording can be tested
without a client. Discord markup (mentions, timestamps, jump links) is plain text and is built
here too. Discord-specific assembly (embeds, files, buttons, views) lives in
:mod:`bot.adapter.ui`, which calls in here for every word it shows.

Where is the message for X? The text of ...

=====================================================  =========================================
the catalogue itself (en / fr / pl JSON, plurals,       :mod:`.catalogue` (``Text``, ``t``; the
fallback to English), every key below                   JSON files sit next to it)
mentions, jump links, timestamps, clipping; a           :mod:`.markup` (``name``: every name
player's name in a message, its Markdown escaped        put in a message goes through it)
a colour, pattern, tile, goal, cat, cell hint, level,   :mod:`.terms`
seat name; the goal draft's arrangement labels
a turn's narration in the thread, what a placement      :mod:`.narration`
earns (preview), the winner, standings, a scenario
the lobby post, the start of play, who plays next,      :mod:`.posts`
reminders, seat changed, game ended, thread name,
the DM panel's header, "your DMs are closed"
a player's panel: goal draft, turn (each step), turn    :mod:`.panels`
committed, autoplayed DM, ``/calico board`` caption
``/calico rules``, ``status``, ``games``, ``stats``,    :mod:`.answers`
``leaderboard``
a refusal (error code → the private reply)              :mod:`.replies`
the review (summary, turn list, why a turn cost         :mod:`.review`
points, chart alt text), the hints, review stats
achievements and titles, ratings and the rating         :mod:`.progress`
board, the weekly challenge's boards and summary
a picture's alt text and its long description           :mod:`.describe` (``quilt``, ``turn``,
(quilt, turn, table, score sheet, draft, rules), and    ``table``, ``scoresheet``, ``draft``,
fitting it to Discord's limits                          ``rules``; ``message_parts``, ...)
=====================================================  =========================================

The adapter still calls the catalogue directly (``tr("key")``) for one-line texts that need
no building: button labels, select placeholders, short confirmations.

Who calls what: :mod:`bot.adapter.ui.messages` builds each message (picture, alt text, controls)
around the text from :mod:`.posts`, :mod:`.panels`, :mod:`.narration` and :mod:`.describe`;
:mod:`bot.adapter.delivery` posts them; :mod:`bot.adapter.ui.described` adds the long
descriptions for players who asked for pictures in words; :mod:`bot.adapter.ui.respond` answers
refusals with :mod:`.replies`; the cogs answer commands with :mod:`.answers`;
:mod:`bot.adapter.ui.review` and :mod:`bot.adapter.ui.progress` wrap :mod:`.review` and
:mod:`.progress` with their buttons and pictures.
"""
