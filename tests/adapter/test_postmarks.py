"""The invisible mark on outbox posts (issue 20, item 14): nothing a player sees, within
Discord's length limit, one per nonce, and found again only on the bot's own messages."""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import discord

from bot.adapter import postmarks
from bot.adapter.postmarks import find, mark_in, mark_of, marked
from bot.words import describe

BOT = 1
PLAYER = 2


def test_the_mark_is_invisible_and_leaves_the_text_as_it_was() -> None:
    text = "🧵 **Calico #12**, hosted by Alice 🐈"
    out = marked(text, "12.3.0")
    assert out.startswith(text) and len(out) == len(text) + postmarks.LENGTH
    # Format characters only: no glyph, no space, nothing a screen reader reads out.
    assert all(unicodedata.category(c) == "Cf" for c in out[len(text):])
    assert marked(None, "1.1.0") == mark_of("1.1.0")


def test_a_mark_is_read_back_and_plain_text_has_none() -> None:
    assert mark_in(marked("hello", "7.2.1")) == mark_of("7.2.1")
    assert mark_in("hello") is None and mark_in("") is None
    assert mark_in("@\u200beveryone\u200b") is None  # an escaped mention is not a mark
    assert mark_in(marked("hello", "7.2.1")[:-1]) is None


def test_each_nonce_has_its_own_mark() -> None:
    nonces = [f"{game}.{version}.{i}" for game in range(1, 21) for version in range(25)
              for i in range(4)]
    nonces += [f"{n}w0" for n in nonces[:200]] + [f"{n}t" for n in nonces[:200]]
    assert len({mark_of(n) for n in nonces}) == len(nonces)


def test_a_long_text_is_shortened_to_keep_the_mark_within_discords_limit() -> None:
    out = marked("word " * 600, "9.9.9")
    assert describe.length(out) <= postmarks.CONTENT_LIMIT
    assert mark_in(out) == mark_of("9.9.9")
    exact = "x" * postmarks.ROOM
    assert marked(exact, "1.0.0") == exact + mark_of("1.0.0")  # what fits is not touched


@dataclass
class Author:
    id: int


@dataclass
class Message:
    id: int
    author: Author
    content: str


class Channel:
    """A channel's messages, oldest first; ``history`` gives those after ``after`` as
    Discord's pages do (oldest first here); counts what was read."""

    def __init__(self, messages: list[Message]) -> None:
        self.messages = messages
        self.read = 0

    async def history(self, *, limit: int | None, after: Any,
                      oldest_first: bool) -> AsyncIterator[Message]:
        assert limit is None and oldest_first  # read as far as it takes, from the start on
        for message in self.messages:
            if message.id > after.id:
                self.read += 1
                yield message


SINCE = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)  # the first attempt


def at(seconds: float) -> int:
    """A message id made ``seconds`` after the first attempt (negative: before)."""
    return discord.utils.time_snowflake(SINCE + timedelta(seconds=seconds))


async def test_find_takes_the_bots_own_marked_posts_and_stops_when_all_are_found() -> None:
    channel = Channel([
        Message(at(-600), Author(BOT), marked("long before the attempt", "5.1.0")),
        Message(at(-30), Author(BOT), marked("older", "4.0.0")),
        Message(at(1), Author(PLAYER), "look: " + mark_of("5.1.0")),  # a player pasted the mark
        Message(at(2), Author(BOT), "a post of another notice" + mark_of("5.0.2")),
        Message(at(3), Author(BOT), marked("the turn", "5.1.0")),
        Message(at(4), Author(BOT), "edited since: no mark"),
        Message(at(5), Author(BOT), marked("its words", "5.1.0w0")),
        Message(at(6), Author(BOT), marked("newer", "6.0.0")),
    ])
    reading = await find(channel, BOT, ["5.1.0", "5.1.0w0"], since=SINCE)  # type: ignore[arg-type]
    assert {n: m.id for n, m in reading.found.items()} == {"5.1.0": at(3), "5.1.0w0": at(5)}
    # Read from a little before the attempt (the clocks' difference), stopped once both found.
    assert reading.read == channel.read == 6
    assert (await find(channel, BOT, ["7.0.0"], since=SINCE)).found == {}  # type: ignore[arg-type]
    # A post from before the look's start is not taken for this attempt's.
    later = await find(channel, BOT, ["4.0.0"], since=SINCE + postmarks.SKEW)  # type: ignore[arg-type]
    assert later.found == {}
