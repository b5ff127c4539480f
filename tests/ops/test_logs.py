"""Log lines: one per event, JSON or plain, with the game / interaction context (inherited by
tasks, never leaking between them), and the token redacted wherever it hides."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bot.ops.logs import (
    REDACTED,
    CalicoHandler,
    ContextFilter,
    JsonFormatter,
    PlainFormatter,
    RedactFilter,
    bind_context,
    configure,
    current_context,
    log_context,
)

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.sEcReT-tOkEn_0123456789abcdefghijklmno"


@pytest.fixture
def root_restored() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


def capture(formatter: logging.Formatter,
            secrets: tuple[str, ...] = (TOKEN,)) -> tuple[logging.Logger, io.StringIO]:
    """A private logger writing through the same filters as :func:`configure`."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(ContextFilter())
    handler.addFilter(RedactFilter(secrets))
    logger = logging.getLogger(f"test.ops.{id(stream)}")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, stream


def json_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_lines_carry_the_context():
    log, out = capture(JsonFormatter())
    log.info("outside")
    with log_context(game=12, interaction=987654321, user=42):
        log.info("move %s committed", "A1")
        with log_context(shard=1, game=13, lane="thread"):
            log.warning("inner")
        log.info("after the inner block")
    log.info("done", extra={"game": 99})
    lines = json_lines(out)
    assert [line["message"] for line in lines] == [
        "outside", "move A1 committed", "inner", "after the inner block", "done"]
    first = lines[0]
    assert set(first) == {"time", "level", "logger", "message"}
    assert first["level"] == "INFO" and first["logger"] == log.name
    assert first["time"].endswith("+00:00") and "T" in first["time"]
    assert lines[1] | {"time": None} == {"time": None, "level": "INFO", "logger": log.name,
                                         "message": "move A1 committed", "game": 12,
                                         "ix": 987654321, "user": 42}
    assert lines[2]["game"] == 13 and lines[2]["shard"] == 1 and lines[2]["lane"] == "thread"
    assert lines[2]["ix"] == 987654321
    assert lines[3]["game"] == 12 and "shard" not in lines[3]
    assert lines[4]["game"] == 99 and "ix" not in lines[4]
    assert current_context() == {}


def test_json_exception_and_odd_values():
    log, out = capture(JsonFormatter())
    try:
        raise ValueError("bad\nthing")
    except ValueError:
        with log_context(game=object(), message="clash"):
            log.exception("it broke")
    text = out.getvalue()
    assert text.count("\n") == 1  # one line, traceback included
    (line,) = json_lines(out)
    assert line["message"] == "it broke"
    assert line["ctx_message"] == "clash"  # a context field never overwrites a base key
    assert line["game"].startswith("<object object")
    assert "Traceback" in line["exc"] and "ValueError: bad\nthing" in line["exc"]


def test_plain_lines_are_one_line_with_the_context():
    log, out = capture(PlainFormatter())
    with log_context(game=12, interaction=55, user="Ann Lee"):
        log.info("two\nlines")
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            log.exception("failed")
    log.info("no context")
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert f"{log.name} [game=12 ix=55 user=\"Ann Lee\"]: two\\nlines" in lines[0]
    assert "failed\\nTraceback" in lines[1] and "ZeroDivisionError" in lines[1]
    assert lines[2].endswith(f"INFO    {log.name}: no context")


def test_plain_multiline_when_asked():
    log, out = capture(PlainFormatter(oneline=False))
    log.info("two\nlines")
    assert out.getvalue().splitlines()[-1] == "lines"


@pytest.mark.parametrize("formatter", [JsonFormatter(), PlainFormatter()],
                         ids=["json", "plain"])
def test_the_token_is_redacted_everywhere(formatter: logging.Formatter):
    log, out = capture(formatter)

    class Leaky:
        def __repr__(self) -> str:
            return f"Leaky(token={TOKEN})"

    log.info("headers: Authorization: Bot %s", TOKEN)
    log.info("object %r", Leaky())
    log.info(f"f-string {TOKEN}")
    try:
        try:
            raise ConnectionError(f"login with {TOKEN} refused")
        except ConnectionError as inner:
            raise RuntimeError("while starting") from inner
    except RuntimeError:
        log.exception("start failed")
    log.warning("stack", stack_info=True)
    with log_context(game=1, note=f"token={TOKEN}"):
        log.info("context")
    text = out.getvalue()
    assert TOKEN not in text
    assert text.count(REDACTED) >= 5
    assert "login with [redacted] refused" in text
    assert "sEcReT" not in text


def test_redaction_keeps_broken_records_and_ignores_tiny_secrets():
    assert RedactFilter(["", "abc"]).secrets == []
    log, out = capture(PlainFormatter())
    log.info("%d apples", "not a number")  # the handler reports it; the filter must not raise
    log.info("fine")
    assert out.getvalue().splitlines()[-1].endswith("fine")


async def test_context_follows_tasks_and_stays_in_them():
    log, out = capture(JsonFormatter())

    async def worker(game: int) -> None:
        bind_context(game=game)  # the rest of this task only
        await asyncio.sleep(0)
        log.info("working")

    async def child() -> None:
        await asyncio.sleep(0)
        log.info("child")

    with log_context(interaction=7):
        await asyncio.gather(worker(1), worker(2))
        await asyncio.create_task(child())
    log.info("after")
    lines = json_lines(out)
    assert sorted((line["message"], line.get("game")) for line in lines[:2]) == [
        ("working", 1), ("working", 2)]
    assert all(line["ix"] == 7 for line in lines[:3])
    assert lines[2]["message"] == "child" and "game" not in lines[2]
    assert lines[3] == lines[3] | {"message": "after"} and "ix" not in lines[3]


def test_configure_installs_one_handler(root_restored: None):
    first = io.StringIO()
    configure("DEBUG", json=True, secret=TOKEN, stream=first)
    second = io.StringIO()
    handler = configure("INFO", json=True, secret=[TOKEN, "db-password-123"], stream=second)
    root = logging.getLogger()
    assert [h for h in root.handlers if isinstance(h, CalicoHandler)] == [handler]
    assert root.level == logging.INFO
    log = logging.getLogger("calico.test")
    with log_context(game=5, interaction=6):
        log.info("login %s with db-password-123", TOKEN)
        log.debug("hidden")
    assert first.getvalue() == ""
    (line,) = json_lines(second)
    assert line["message"] == f"login {REDACTED} with {REDACTED}"
    assert line["game"] == 5 and line["ix"] == 6 and line["logger"] == "calico.test"

    plain = io.StringIO()
    configure("INFO", json=False, secret=None, stream=plain, replace=False)
    logging.getLogger("discord.gateway").info("shard %d connected", 0)
    assert plain.getvalue().endswith("INFO    discord.gateway: shard 0 connected\n")
