"""Settings come from the environment and a .env file; the token never shows."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.settings import RedactFilter, Settings, parse_dotenv

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.not-a-real-token-but-long-enough"


def test_reads_environment() -> None:
    s = Settings.from_env({"DISCORD_TOKEN": TOKEN, "CALICO_DB": "x.db",
                           "CALICO_DEV_GUILD": "123", "CALICO_LOG_LEVEL": "debug"}, dotenv=None)
    assert s.token == TOKEN and s.db_path == "x.db" and s.dev_guild == 123
    assert s.log_level == "DEBUG"


def test_defaults() -> None:
    s = Settings.from_env({}, dotenv=None)
    assert not s.has_token and s.db_path == "calico.sqlite3" and s.dev_guild is None
    assert s.log_level == "INFO"


def test_dotenv_file_is_read_and_environment_wins(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text('# comment\nexport DISCORD_TOKEN="from-file"\nCALICO_DB=file.db # note\n')
    s = Settings.from_env({"CALICO_DB": "env.db"}, dotenv=env)
    assert s.token == "from-file" and s.db_path == "env.db"


def test_parse_dotenv_quotes_and_comments() -> None:
    assert parse_dotenv("A='1 2'\nB=3 # c\n\n#X=1\nbad line") == {"A": "1 2", "B": "3"}


def test_token_not_in_repr() -> None:
    s = Settings.from_env({"DISCORD_TOKEN": TOKEN}, dotenv=None)
    assert TOKEN not in repr(s) and TOKEN not in str(s)
    assert "set" in repr(s)


def test_token_redacted_from_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Even a log line that carries the token shows it redacted."""
    logger = logging.getLogger("calico.test")
    redact = RedactFilter(TOKEN)
    logger.addFilter(redact)
    try:
        with caplog.at_level(logging.INFO, logger="calico.test"):
            logger.info("connecting with %s", TOKEN)
            logger.info("settings: %r", Settings.from_env({"DISCORD_TOKEN": TOKEN}, dotenv=None))
    finally:
        logger.removeFilter(redact)
    assert TOKEN not in caplog.text
    assert "[redacted]" in caplog.text
