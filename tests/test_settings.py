"""Settings come from the environment and a .env file (pydantic-settings); the token never
shows; every setting is documented in .env.example."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.ops.logs import RedactFilter
from bot.settings import Settings, environ_names, parse_ids

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.not-a-real-token-but-long-enough"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("CALICO_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)


def test_reads_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in {"DISCORD_TOKEN": TOKEN, "CALICO_DB": "x.db", "CALICO_DEV_GUILD": "123",
                 "CALICO_LOG_LEVEL": "debug", "CALICO_SHARD_COUNT": "8",
                 "CALICO_SHARD_IDS": "0-2,5", "CALICO_LOG_JSON": "true"}.items():
        monkeypatch.setenv(k, v)
    s = Settings.from_env(dotenv=None)
    assert s.token.get_secret_value() == TOKEN and s.db_path == "x.db" and s.dev_guild == 123
    assert s.log_level == "DEBUG" and s.log_json is True
    assert s.shard_count == 8 and s.shard_ids == [0, 1, 2, 5]


def test_defaults() -> None:
    s = Settings.from_env(dotenv=None)
    assert not s.has_token and s.db_path == "calico.sqlite3" and s.dev_guild is None
    assert s.log_level == "INFO" and s.shard_count is None and s.shard_ids is None
    assert s.retention_days == 14 and s.health_port is None and not s.uses_postgres


def test_dotenv_file_is_read_and_environment_wins(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / ".env"
    env.write_text('# comment\nexport DISCORD_TOKEN="from-file"\nCALICO_DB=file.db # note\n'
                   "CALICO_DEV_GUILD=\n")
    monkeypatch.setenv("CALICO_DB", "env.db")
    s = Settings.from_env(dotenv=env)
    assert s.token.get_secret_value() == "from-file" and s.db_path == "env.db"
    assert s.dev_guild is None  # an empty value is "not set"


def test_bad_values_are_refused_with_the_variable_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_SHARD_COUNT", "2")
    monkeypatch.setenv("CALICO_SHARD_IDS", "0,3")
    with pytest.raises(ValidationError, match="SHARD_IDS"):
        Settings.from_env(dotenv=None)
    monkeypatch.delenv("CALICO_SHARD_IDS")
    monkeypatch.setenv("CALICO_CLUSTER_SLOTS", "2")
    with pytest.raises(ValidationError, match="PostgreSQL"):
        Settings.from_env(dotenv=None)


def test_parse_ids() -> None:
    assert parse_ids("0-3, 7,7") == [0, 1, 2, 3, 7] and parse_ids("") == []


def test_token_not_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("CALICO_DB", "postgresql://calico:hunter2@db/calico")
    s = Settings.from_env(dotenv=None)
    assert TOKEN not in repr(s) and TOKEN not in str(s) and "hunter2" not in repr(s)
    assert "set" in repr(s)


def test_every_setting_is_in_env_example_and_readme() -> None:
    example = (ROOT / ".env.example").read_text()
    readme = (ROOT / "README.md").read_text()
    for name in environ_names().values():
        assert re.search(rf"^#? ?{name}=", example, re.M), name
        assert f"`{name}`" in readme, name


def test_token_redacted_from_logs(caplog: pytest.LogCaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a log line that carries the token shows it redacted."""
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    logger = logging.getLogger("calico.test")
    redact = RedactFilter([TOKEN])
    logger.addFilter(redact)
    try:
        with caplog.at_level(logging.INFO, logger="calico.test"):
            logger.info("connecting with %s", TOKEN)
            logger.info("settings: %r", Settings.from_env(dotenv=None))
    finally:
        logger.removeFilter(redact)
    assert TOKEN not in caplog.text
    assert "[redacted]" in caplog.text
