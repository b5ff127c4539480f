"""Fitting words to Discord's limits: the alt text's 1,024 characters, a message's 2,000.

Owns :class:`Description` (the two forms of a picture's words), how text is measured and cut
(never mid-word), and how a long description is laid out under a message's own text, in one
message (:func:`fit_message`) or continued in more (:func:`message_parts`). Also the small
sentence helpers every describer shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.words.catalogue import Text

# Discord refuses an attachment whose description is longer than this (the API's documented
# maximum for ``attachments[].description``; discord.py passes it through unchecked).
ATTACHMENT_DESCRIPTION_LIMIT: Final = 1024
# Discord's limit on a message's content, for the long form in the message body.
MESSAGE_CONTENT_LIMIT: Final = 2000
# The /calico rules topics that come with a picture (render.RULES_TOPICS, kept here so this
# module needs no Pillow; a test keeps the two in step).
RULES_PICTURE_TOPICS: Final = ("cats", "goals", "buttons")
ELLIPSIS: Final = "…"



@dataclass(frozen=True, slots=True)
class Description:
    """The words for one picture: ``short`` for the attachment's alt text, ``long`` for the
    message body."""

    short: str
    long: str


def length(text: str) -> int:
    """``text``'s length as Discord may count it: in UTF-16 code units, which is never less
    than the number of characters, so a text within a limit here is within it either way."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` (see :func:`length`), cut after the last whole sentence or
    clause that fits, with an ellipsis, so a screen reader never stops mid-word."""
    if length(text) <= limit:
        return text
    room = limit - length(ELLIPSIS)
    head = text
    while length(head) > room:
        head = head[: len(head) - max(1, (length(head) - room) // 2)]
    for stop in ("\n", ". ", "; ", ", ", " "):
        cut = head.rfind(stop)
        if cut > len(head) // 2:
            return head[: cut + (1 if stop.strip() else 0)].rstrip() + ELLIPSIS
    return head.rstrip() + ELLIPSIS


def first_fitting(candidates: Iterable[str], limit: int = ATTACHMENT_DESCRIPTION_LIMIT) -> str:
    """The first candidate (most detailed first) within ``limit``; the last one clipped when
    none fits."""
    last = ""
    for text in candidates:
        if length(text) <= limit:
            return text
        last = text
    return clip(last, limit)


# --------------------------------------------------------------------------- the long form


def _lines_within(text: str, limit: int) -> list[str]:
    """The non-empty lines of ``text``, a line longer than ``limit`` cut between words."""
    out: list[str] = []
    for line in text.split("\n"):
        while length(line) > limit:
            head = clip(line, limit)
            head = head.removesuffix(ELLIPSIS)
            out.append(head)
            line = line[len(head):].lstrip()
        if line:
            out.append(line)
    return out


def message_parts(tr: Text, content: str, long: str, limit: int = MESSAGE_CONTENT_LIMIT
                  ) -> list[str]:
    """``content`` and then the description under a heading, as message contents of at most
    ``limit`` each: whole lines go under the content while they fit, the rest in follow-up
    messages (a long table or turn description takes two or three)."""
    lines = _lines_within(f"{tr('alt.heading')}\n{long}", limit)
    out: list[str] = []
    current = content if length(content) <= limit else clip(content, limit)
    sep = "\n\n"  # a blank line between the message's own text and the description
    for line in lines:
        if not current:
            current = line
        elif length(current + sep + line) <= limit:
            current += sep + line
        else:
            out.append(current)
            current = line
        sep = "\n"
    if current:
        out.append(current)
    return out


def fit_message(tr: Text, content: str, long: str, limit: int = MESSAGE_CONTENT_LIMIT) -> str:
    """One message: ``content``, then the description under a heading, whole lines only, as
    far as ``limit`` allows, with a note when lines had to be left out (the picture's alt text
    still says the essentials). ``content`` alone too long is clipped and gets nothing more."""
    if length(content) >= limit:
        return clip(content, limit)
    lines = _lines_within(f"{tr('alt.heading')}\n{long}", limit)
    note = tr("alt.trimmed")
    text = content
    sep = "\n\n" if content else ""
    for k, line in enumerate(lines):
        # Keep room for the note unless this is the last line.
        reserve = length("\n" + note) if k + 1 < len(lines) else 0
        if length(text + sep + line) + reserve > limit:
            if k == 0:
                return text  # not even the heading and the note fit: leave the text alone
            return text + "\n" + note
        text += sep + line
        sep = "\n"
    return text



def join(items: Iterable[str]) -> str:
    return ", ".join(items)


def sentence(text: str) -> str:
    """``text`` ending with a full stop (catalogue texts sometimes carry their own)."""
    text = text.rstrip()
    return text if not text or text[-1] in ".!?…" else text + "."


def short_form(candidates: Iterable[Sequence[str]]) -> str:
    """The alt text: lines run together as sentences (a screen reader reads alt text as one
    paragraph), the most detailed candidate that fits."""
    return first_fitting(" ".join(sentence(x) for x in lines if x) for lines in candidates)


def long_form(lines: Iterable[str]) -> str:
    return "\n".join(sentence(x) for x in lines if x)



def long_blocks(lines: Sequence[str]) -> str:
    """Lines with an empty string marking a break between blocks (one per player)."""
    out: list[str] = []
    for line in lines:
        out.append(sentence(line) if line else "")
    return "\n".join(out).strip("\n")

