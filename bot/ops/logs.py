"""Logging: one line per event, carrying the game and interaction it belongs to.

This module owns the log context and the log line formats:

- a context (game id, interaction id, user id, shard id, guild id, and any extra field) kept in a
  ``contextvars.ContextVar``, set for a block with :func:`log_context` or for the rest of the
  current task with :func:`bind_context`. asyncio copies the context into every task it creates,
  so work started inside a block carries its fields too;
- :class:`ContextFilter` stamps that context onto each record *when it is logged* (a formatter
  runs later, possibly elsewhere), with any of the same keys given through ``extra=``;
- :class:`JsonFormatter` (one JSON object per line: time, level, logger, message, the context
  fields, exception and stack text) and :class:`PlainFormatter` (the classic line with
  ``[game=12 ix=…]``; newlines escaped, so that a traceback or a name with a line break stays
  one line and cannot forge another);
- :class:`RedactFilter`: removes secrets (the bot token) from the message, the exception text
  and the context, whatever logger the record came from;
- :func:`configure`: installs one handler on the root logger with all of the above.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from types import MappingProxyType, TracebackType
from typing import IO, Final

# Field names in the order lines show them; ``interaction=`` is written ``ix`` (short, and
# interaction ids are long).
CONTEXT_FIELDS: Final = ("game", "ix", "user", "shard", "guild")
REDACTED: Final = "[redacted]"
RECORD_ATTR: Final = "calico_context"  # where ContextFilter leaves the fields on a record
# Keys a JSON line always has: a context field with one of these names is written ``ctx_<name>``.
_JSON_BASE: Final = frozenset({"time", "level", "logger", "message", "exc", "stack"})

_EMPTY: Mapping[str, object] = MappingProxyType({})
_context: contextvars.ContextVar[Mapping[str, object]] = contextvars.ContextVar(
    "calico_log_context", default=_EMPTY)


def _given(game: object, interaction: object, user: object, shard: object, guild: object,
           extra: Mapping[str, object]) -> dict[str, object]:
    # Written out rather than looped: this runs on every interaction.
    given: dict[str, object] = {}
    if game is not None:
        given["game"] = game
    if interaction is not None:
        given["ix"] = interaction
    if user is not None:
        given["user"] = user
    if shard is not None:
        given["shard"] = shard
    if guild is not None:
        given["guild"] = guild
    for key, value in extra.items():
        if value is not None:
            given[key] = value
    return given


def _merged(given: Mapping[str, object]) -> Mapping[str, object]:
    # A new mapping every time: a context value is shared by records and tasks, never mutated.
    outer = _context.get()
    return {**outer, **given} if outer else given


class LogContext:
    """The block :func:`log_context` returns (a class rather than a generator-based context
    manager: half the cost, and it sits on the click path)."""

    __slots__ = ("_given", "_token")

    def __init__(self, given: Mapping[str, object]) -> None:
        self._given = given
        self._token: contextvars.Token[Mapping[str, object]] | None = None

    def __enter__(self) -> Mapping[str, object]:
        fields = _merged(self._given)
        self._token = _context.set(fields)
        return fields

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._token is not None:
            _context.reset(self._token)
            self._token = None


def log_context(*, game: object = None, interaction: object = None, user: object = None,
                shard: object = None, guild: object = None, **extra: object) -> LogContext:
    """``with log_context(game=12, interaction=ix.id):`` attaches fields to every record logged
    inside the block (nested blocks add to, and may override, the outer fields; None leaves a
    field as it was). The block yields the merged fields."""
    return LogContext(_given(game, interaction, user, shard, guild, extra))


def bind_context(*, game: object = None, interaction: object = None, user: object = None,
                 shard: object = None, guild: object = None, **extra: object) -> None:
    """Add fields for the rest of the current task (each asyncio task owns a copy of the
    context, so this never leaks into other tasks): for a check that runs before a handler in
    the same task, where a ``with`` block cannot span both."""
    _context.set(_merged(_given(game, interaction, user, shard, guild, extra)))


def current_context() -> Mapping[str, object]:
    return _context.get()


def record_context(record: logging.LogRecord) -> Mapping[str, object]:
    """The fields of a record: stamped by :class:`ContextFilter`, else the current context."""
    stamped = getattr(record, RECORD_ATTR, None)
    if isinstance(stamped, Mapping):
        return stamped
    return _with_extra(_context.get(), record)


def _with_extra(base: Mapping[str, object], record: logging.LogRecord) -> Mapping[str, object]:
    # ``log.info(..., extra={"game": 3})`` sets record attributes of the same names.
    given: dict[str, object] = {
        k: record.__dict__[k] for k in CONTEXT_FIELDS if k in record.__dict__}
    return {**base, **given} if given else base


class ContextFilter(logging.Filter):
    """Stamps the current context on each record (install it on the handler, before
    :class:`RedactFilter`: handler filters see records from every logger)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(getattr(record, RECORD_ATTR, None), Mapping):
            setattr(record, RECORD_ATTR, _with_extra(_context.get(), record))
        return True


class RedactFilter(logging.Filter):
    """Replaces every secret in a record by ``[redacted]``: the formatted message, the
    exception and stack text (formatted here, then cached on the record where formatters take
    it from), and string context values. Never refuses a record, and never raises."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is replaced whole. Very short
        # strings are ignored: replacing "a" everywhere would destroy the logs, not protect.
        self.secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
        self._exc_formatter = logging.Formatter()

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:
            # Broken arguments: leave the record as it is, the handler reports the error.
            return True
        # Stored formatted: args could hold the secret in an object's repr.
        record.msg, record.args = self._clean(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._exc_formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        if record.stack_info:
            record.stack_info = self._clean(record.stack_info)
        ctx = getattr(record, RECORD_ATTR, None)
        if isinstance(ctx, Mapping):
            setattr(record, RECORD_ATTR, {
                k: self._clean(v) if isinstance(v, str) else v for k, v in ctx.items()})
        return True


def _exception_text(formatter: logging.Formatter, record: logging.LogRecord) -> str | None:
    if record.exc_info and not record.exc_text:
        record.exc_text = formatter.formatException(record.exc_info)
    return record.exc_text or None


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (ISO 8601, UTC, ms), ``level``, ``logger``,
    ``message``, the context fields (``game``, ``ix``, ``user``, ``shard``, ``guild``, extras),
    and ``exc`` / ``stack`` when there are any. Values JSON cannot hold are written as text."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record_context(record).items():
            line[f"ctx_{key}" if key in _JSON_BASE else key] = value
        exc = _exception_text(self, record)
        if exc:
            line["exc"] = exc
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def _plain_value(value: object) -> str:
    text = str(value)
    if not text or any(c in text for c in ' ="\n\r\t'):
        return json.dumps(text, ensure_ascii=False)
    return text


def context_text(fields: Mapping[str, object]) -> str:
    """``game=12 ix=987 user=42``: known fields in their order, then the extras."""
    known = [k for k in CONTEXT_FIELDS if k in fields]
    keys = known + sorted(k for k in fields if k not in CONTEXT_FIELDS)
    return " ".join(f"{k}={_plain_value(fields[k])}" for k in keys)


class PlainFormatter(logging.Formatter):
    """The classic line, with the context after the logger name::

        2025-01-01 12:00:00,123 INFO    calico.play [game=12 ix=987]: move committed

    ``%(calico_ctx)s`` in ``fmt`` is the bracketed context (empty when there is none). With
    ``oneline`` (the default) line breaks in the message and the traceback are written ``\\n``.
    """

    DEFAULT_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s%(calico_ctx)s: %(message)s"

    def __init__(self, fmt: str | None = None, datefmt: str | None = None, *,
                 oneline: bool = True) -> None:
        super().__init__(fmt or self.DEFAULT_FORMAT, datefmt)
        self.oneline = oneline

    def format(self, record: logging.LogRecord) -> str:
        fields = record_context(record)
        # A prefixed attribute: ``extra={"context": ...}`` from a caller must not be clobbered.
        record.calico_ctx = f" [{context_text(fields)}]" if fields else ""
        text = super().format(record)
        if self.oneline:
            text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
        return text


class CalicoHandler(logging.StreamHandler[IO[str]]):
    """The handler :func:`configure` installs (a class of its own so it can find and replace
    it on a second call)."""


def configure(level: str | int = "INFO", json: bool = False,
              secret: str | Iterable[str] | None = None, *, stream: IO[str] | None = None,
              oneline: bool = True, replace: bool = True) -> logging.Handler:
    """Log to ``stream`` (stderr by default) at ``level``, one line per event, as JSON or plain
    text, with the context on every line and ``secret`` (the token; or several) redacted.

    With ``replace`` (the default) every handler already on the root logger is removed, as
    ``logging.basicConfig(force=True)`` does; otherwise only one this function installed.
    Returns the new handler.
    """
    root = logging.getLogger()
    for old in list(root.handlers):
        if replace or isinstance(old, CalicoHandler):
            root.removeHandler(old)
            old.close()
    handler = CalicoHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if json else PlainFormatter(oneline=oneline))
    secrets = [secret] if isinstance(secret, str) else list(secret or ())
    # Context first: the redaction also cleans the fields it stamps.
    handler.addFilter(ContextFilter())
    handler.addFilter(RedactFilter(secrets))
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    return handler
