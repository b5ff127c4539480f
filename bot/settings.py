"""Configuration from the environment (and a ``.env`` file, when there is one).

The bot reads four variables:

- ``DISCORD_TOKEN``: the bot token from the developer portal (required to run, never logged);
- ``CALICO_DB``: the SQLite file (default ``calico.sqlite3`` in the working directory);
- ``CALICO_DEV_GUILD``: a server id for instant command sync while developing;
- ``CALICO_LOG_LEVEL``: DEBUG, INFO, WARNING or ERROR (default INFO).

A ``.env`` file in the working directory is read with a tiny parser of our own (``KEY=value``
lines, ``#`` comments, optional quotes) so that no extra dependency is needed; variables already
set in the environment win over the file.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def parse_dotenv(text: str) -> dict[str, str]:
    """``KEY=value`` pairs from the text of a ``.env`` file (comments and blanks skipped)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, _, value = line.partition("=")
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            # An unquoted value may carry a trailing comment.
            value = value.split(" #", 1)[0].rstrip()
        if key:
            out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class Settings:
    """What the bot needs to start. The token is kept out of ``repr`` and logs."""

    token: str = field(default="", repr=False)
    db_path: str = "calico.sqlite3"
    dev_guild: int | None = None
    log_level: str = "INFO"

    @property
    def has_token(self) -> bool:
        return bool(self.token)

    def __repr__(self) -> str:
        shown = "set" if self.token else "missing"
        return (f"Settings(token=<{shown}>, db_path={self.db_path!r}, "
                f"dev_guild={self.dev_guild!r}, log_level={self.log_level!r})")

    __str__ = __repr__

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, dotenv: Path | None = Path(".env")
    ) -> Settings:
        """Settings from ``environ`` (default ``os.environ``) over the ``dotenv`` file."""
        values: dict[str, str] = {}
        if dotenv is not None and dotenv.is_file():
            values.update(parse_dotenv(dotenv.read_text(encoding="utf-8")))
        values.update(os.environ if environ is None else environ)
        token = values.get("DISCORD_TOKEN", "").strip()
        db_path = values.get("CALICO_DB", "").strip() or "calico.sqlite3"
        guild_text = values.get("CALICO_DEV_GUILD", "").strip()
        dev_guild = int(guild_text) if guild_text.isdigit() else None
        level = values.get("CALICO_LOG_LEVEL", "").strip().upper() or "INFO"
        if level not in LOG_LEVELS:
            level = "INFO"
        return cls(token=token, db_path=db_path, dev_guild=dev_guild, log_level=level)


class RedactFilter(logging.Filter):
    """Replaces any occurrence of the secret in a log record by ``[redacted]``.

    discord.py never logs the token itself; this is a second line of defence against a stray
    ``repr`` or an exception message that might carry it.
    """

    def __init__(self, secret: str) -> None:
        super().__init__()
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._secret:
            return True
        message = record.getMessage()
        if self._secret in message:
            record.msg = message.replace(self._secret, "[redacted]")
            record.args = None
        return True


def configure_logging(settings: Settings) -> None:
    """Root logging at the configured level, with the token filter on every handler."""
    logging.basicConfig(
        level=getattr(logging, settings.log_level, logging.INFO),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    redact = RedactFilter(settings.token)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
