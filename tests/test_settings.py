"""Settings come from the environment and a .env file (pydantic-settings); the token never
shows; every setting is documented in .env.example."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.ops.logs import RedactFilter
from bot.settings import Settings, bad_settings, environ_names, parse_ids

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


SECRET_URL = ("postgresql://calico:UserSecret42@127.0.0.1:1/calico?sslmode=disable"
              "&password=QuerySecret42&sslpassword=SslSecret42&passfile=/etc/PassFile42")
SECRETS = ("UserSecret42", "QuerySecret42", "SslSecret42", "PassFile42")


def test_settings_never_show_the_database_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_DB", SECRET_URL)
    settings = Settings.from_env(dotenv=None)
    for shown in (repr(settings), str(settings), settings.db_shown):
        assert not [s for s in SECRETS if s in shown], shown
    assert "calico:***@127.0.0.1:1" in repr(settings)


def test_bad_settings_name_the_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALICO_MAX_LOBBIES", "abc")
    monkeypatch.setenv("CALICO_DB", SECRET_URL)
    monkeypatch.setenv("CALICO_SHARD_IDS", "x")
    with pytest.raises(ValidationError) as caught:
        Settings.from_env(dotenv=None)
    assert sorted(bad_settings(caught.value)) == [
        "CALICO_MAX_LOBBIES=abc: Input should be a valid integer",
        "CALICO_SHARD_IDS=x: expected shard ids such as 0,1,4 or 0-3",
    ]
    monkeypatch.delenv("CALICO_MAX_LOBBIES")
    monkeypatch.delenv("CALICO_SHARD_IDS")
    monkeypatch.setenv("CALICO_SHARD_IDS", "5")
    monkeypatch.setenv("CALICO_SHARD_COUNT", "2")
    with pytest.raises(ValidationError) as caught:
        Settings.from_env(dotenv=None)
    assert bad_settings(caught.value) == ["CALICO_SHARD_IDS must be below CALICO_SHARD_COUNT"]
