"""Words: everything that turns engine events, game views and refusals into text and alt text.

Pure: no discord, no I/O, no rules. Every function takes a :class:`~bot.words.catalogue.Text`
(the reader's language) and returns strings, so the whole product's wording can be tested
without a client. Discord markup (mentions, timestamps, jump links) is plain text and is built
here too. Discord-specific assembly (embeds, files, buttons, views) lives in
:mod:`bot.adapter.ui`, which calls in here for every word it shows.

Where is the message for X? The text of ...

=====================================================  =========================================
the catalogue itself (en / fr / pl JSON, plurals,       :mod:`.catalogue` (``Text``, ``t``; the
fallback to English), every key below; a feature's      JSON files sit next to it: ``en.json``...
keys in its own file per language                       and ``en/<feature>.json``...)
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
achievements and titles (earned, offered, the track),   :mod:`.progress` (the feature
the score sheet's progress lines, ratings and the       :mod:`bot.core.progress`, and the weekly
rating board; the weekly challenge's boards and its     challenge, :mod:`bot.core.challenge`)
week's summary post
the review (summary, turn list, why a turn cost         :mod:`.review` (:mod:`bot.core.review`)
points, chart alt text), the hints, review stats
a tournament: its sign-up post, a round's tables, the   :mod:`.tournament`
standings (text, picture headings, alt text), the       (:mod:`bot.core.tournament`)
podium, the organiser's notices, a table's score-sheet
line, ``/calico tournament list``
a picture's alt text and its long description           :mod:`.describe` (``quilt``, ``turn``,
(quilt, turn, table, score sheet, draft, rules), and    ``table``, ``scoresheet``, ``draft``,
fitting it to Discord's limits                          ``rules``; ``message_parts``, ...)
=====================================================  =========================================

The words read the core's values only (:mod:`bot.core.models`, :mod:`bot.core.notices`, each
feature's ``model``: ``tests/test_boundaries.py``), never a service, the kernel or the storage.
The adapter still calls the catalogue directly (``tr("key")``) for one-line texts that need
no building: button labels, select placeholders, short confirmations.

Who calls what: :mod:`bot.adapter.ui.messages` builds each message (picture, alt text, controls)
around the text from :mod:`.posts`, :mod:`.panels`, :mod:`.narration` and :mod:`.describe`;
:mod:`bot.adapter.ui.notices` picks the builder of each notice and :mod:`bot.adapter.delivery`
posts it; :mod:`bot.adapter.ui.described` adds the long descriptions for players who asked for
pictures in words; :mod:`bot.adapter.ui.respond` answers refusals with :mod:`.replies`; the cogs
answer commands with :mod:`.answers`; :mod:`bot.adapter.ui.review`,
:mod:`bot.adapter.ui.progress`, :mod:`bot.adapter.ui.challenge` and
:mod:`bot.adapter.ui.tournament` wrap :mod:`.review`, :mod:`.progress` and :mod:`.tournament`
with their buttons and pictures.
"""
