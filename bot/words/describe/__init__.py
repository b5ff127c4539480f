"""Pictures in words: the text description of every picture the bot posts, for screen readers.

This package owns what the pictures *say* (not how they look): for each renderer picture (a
quilt, the turn picture of quilt + hand + market, the table, the score sheet, the goal draft and
the rules pictures) a function returns a :class:`Description` with two forms:

- ``short``: fits Discord's attachment description (:data:`ATTACHMENT_DESCRIPTION_LIMIT`), the
  alt text a screen reader announces with the picture. Each describer builds versions from the
  most detailed to the plainest and keeps the first that fits, so a crowded picture loses detail
  (the printed border, what goals still need) before it loses tiles or tokens.
- ``long``: the full text, one fact per line, for the message body when a player asked for
  pictures in words; :func:`message_parts` and :func:`fit_message` fit it to Discord's message
  limit (:data:`MESSAGE_CONTENT_LIMIT`).

Pure like the rest of :mod:`bot.words`: no discord, no I/O, no rules beyond reading views.
Inputs are engine views (what the renderer draws from) and a
:class:`~bot.words.catalogue.Text`; words come from the ``alt.*`` catalogue keys plus the shared
names of colours, patterns, goals and cats (:mod:`bot.words.terms`).

Who does what:

- :mod:`.fit`: :class:`Description`, limits, measuring and cutting, the long form in messages.
- :mod:`.goals`: what each design goal still needs (:func:`need`, :func:`goal_needs`).
- :mod:`.quilt`: one quilt (:func:`quilt`), and the rows and headers the others reuse.
- :mod:`.pictures`: the turn picture, the table, the score sheet, the goal draft, the rules.

The names below are the package's public face: callers write ``describe.table(...)``.
"""

from __future__ import annotations

from bot.words.describe.fit import (
    ATTACHMENT_DESCRIPTION_LIMIT,
    ELLIPSIS,
    MESSAGE_CONTENT_LIMIT,
    RULES_PICTURE_TOPICS,
    Description,
    clip,
    first_fitting,
    fit_message,
    length,
    message_parts,
)
from bot.words.describe.goals import MAX_WAYS, GoalNeed, Way, goal_needs, need
from bot.words.describe.pictures import draft, rules, scoresheet, table, turn
from bot.words.describe.quilt import quilt

__all__ = [
    "ATTACHMENT_DESCRIPTION_LIMIT", "ELLIPSIS", "MAX_WAYS", "MESSAGE_CONTENT_LIMIT",
    "RULES_PICTURE_TOPICS", "Description", "GoalNeed", "Way", "clip", "draft", "first_fitting",
    "fit_message", "goal_needs", "length", "message_parts", "need", "quilt", "rules",
    "scoresheet", "table", "turn",
]
