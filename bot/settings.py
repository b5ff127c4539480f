"""Configuration from the environment and a ``.env`` file, read with pydantic-settings.

Every variable but the token starts with ``CALICO_``; the environment wins over the file.
``.env.example`` lists them all with their defaults; the README's tables explain them.

The token is a :class:`~pydantic.SecretStr`: it never appears in ``repr``, logs or errors, and
:class:`bot.ops.logs.RedactFilter` takes it out of any log line that would still carry it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


def parse_ids(text: str) -> list[int]:
    """Shard ids from ``"0,1,4"`` or ranges ``"0-3,8"`` (empty: none)."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        low, dash, high = part.partition("-")
        if dash:
            out.extend(range(int(low), int(high) + 1))
        else:
            out.append(int(part))
    return sorted(set(out))


class Settings(BaseSettings):
    """What the bot needs to start (see the module docstring)."""

    model_config = SettingsConfigDict(
        env_prefix="CALICO_", env_file=".env", env_file_encoding="utf-8", extra="ignore",
        frozen=True, populate_by_name=True, case_sensitive=False)

    token: SecretStr = Field(default=SecretStr(""),
                             validation_alias=AliasChoices("DISCORD_TOKEN", "token"))
    # Storage: a SQLite file (the default, one process) or a postgresql:// URL (several).
    db_path: str = Field(default="calico.sqlite3",
                         validation_alias=AliasChoices("CALICO_DB", "db_path"))
    dev_guild: int | None = None  # commands sync there at once while developing
    log_level: LogLevel = "INFO"
    log_json: bool = False  # one JSON object per log line
    # Sharding: the total shard count (None: Discord's recommendation) and the shards this
    # process runs (None: all, or the ones of its cluster slot).
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: list[int] | None = None
    cluster_slots: int = Field(default=0, ge=0)  # PostgreSQL: claim one of N slots
    retention_days: float = Field(default=14.0, gt=0)  # notices kept after they ended
    ai_workers: int | None = Field(default=None, ge=0)  # processes for computers; 0: threads
    review_workers: int = Field(default=1, ge=1)  # processes for game reviews (issue 13)
    health_port: int | None = Field(default=None, ge=0, le=65535)  # None: no listener
    health_host: str = "127.0.0.1"
    # /healthz answers 503 when the last sweep is older than this, or the oldest pending
    # notice (seconds).
    health_max_sweep_age: float = Field(default=300.0, gt=0)
    health_max_outbox_age: float = Field(default=900.0, gt=0)
    max_lobbies: int = Field(default=3, ge=1)  # open lobbies a person may host at once
    max_active_games: int = Field(default=25, ge=1)  # games a person may play at once
    # New lobbies a person may open (/calico start, Rematch; cancelled ones count too): this
    # many at once, then one more every 60/N minutes (0: no limit).
    lobbies_per_hour: int = Field(default=6, ge=0)
    # Per-person cooldowns (seconds; 0: off), each after a burst (bot.adapter.policy): one new
    # game (/calico start, solo, Rematch) per this many seconds after 3 (a refused start is
    # not counted), one picture (previews, boards...) after 20, one lobby click after 6, one
    # review or hint after 4, one replay, achievements chart, record or leaderboard after 3,
    # one stats, games or challenge after 10, one autocomplete after 10, one tournament
    # organiser step (create, close, remove, pause, cancel) after 3.
    start_cooldown: float = Field(default=20.0, ge=0)
    picture_cooldown: float = Field(default=0.25, ge=0)
    lobby_cooldown: float = Field(default=2.0, ge=0)
    review_cooldown: float = Field(default=10.0, ge=0)
    replay_cooldown: float = Field(default=10.0, ge=0)
    lookup_cooldown: float = Field(default=1.0, ge=0)
    autocomplete_cooldown: float = Field(default=0.5, ge=0)
    organise_cooldown: float = Field(default=10.0, ge=0)
    # Threads that draw pictures. One is the default: on a 2-core host a second thread made
    # pictures no faster under load (the event loop needs the other core) and held about
    # 20 MB more (its own fonts and malloc heap; benchmarks/bench_soak.py).
    render_threads: int = Field(default=1, ge=1, le=16)
    shutdown_grace: float = Field(default=8.0, gt=0)  # seconds for in-flight work on SIGTERM
    # How long a claimed outbox lane or timer stays with its process: when a process dies,
    # another takes its work over after this long.
    lease_seconds: float = Field(default=60.0, ge=3)
    # How long a post's nonce alone is trusted to stop Discord from making it twice (Discord
    # keeps nonces "a few minutes", no figure promised). 0, the default: a post that may be out
    # unrecorded (the bot died after Discord made it, an attempt timed out) is always looked
    # for in the channel before it is posted again.
    nonce_window_seconds: float = Field(default=0.0, ge=0)
    # Seconds between sweeps (due timers, tournament rounds): a turn or round deadline is
    # acted on at most this long after it passed.
    sweep_seconds: float = Field(default=60.0, gt=0)
    # The companion web site (issue #32; bot/web): off unless a port and a secret are set (and
    # each server still turns it on with /calico admin). The secret signs every link; the base
    # URL is where people reach it (behind a reverse proxy: its public https address), used
    # for the Link buttons under Discord posts.
    web_port: int | None = Field(default=None, ge=0, le=65535)  # None: no site
    web_host: str = "127.0.0.1"
    web_base_url: str = ""
    web_secret: SecretStr = SecretStr("")
    web_rate_per_minute: int = Field(default=120, ge=1)  # page and picture requests per address
    web_trust_proxy: bool = False  # the address is X-Forwarded-For's last hop (behind a proxy)
    web_picture_cache_mb: int = Field(default=128, ge=0)  # pictures kept drawn (bot.web.pictures)
    # Where the bot serves the site: "apart", a child process it starts and watches (page views
    # then take no CPU from the event loop answering clicks: bot.web.process), or "inline", on
    # its own event loop (one process; fine for a small bot).
    web_process: Literal["apart", "inline"] = "apart"

    @field_validator("dev_guild", "shard_count", "health_port", "ai_workers", "web_port",
                     mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return parse_ids(value) or None
            except ValueError:
                raise ValueError("expected shard ids such as 0,1,4 or 0-3") from None
        if isinstance(value, int):
            return [value]
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: Any) -> Any:
        if value is None or not str(value).strip():
            return "INFO"
        text = str(value).strip().upper()
        if text not in LOG_LEVELS:
            # Refused like any bad setting (a silent INFO hid the typo from the operator).
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}")
        return text

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.shard_ids and self.shard_count is not None and \
                max(self.shard_ids) >= self.shard_count:
            raise ValueError("CALICO_SHARD_IDS must be below CALICO_SHARD_COUNT")
        if self.cluster_slots and not self.uses_postgres:
            raise ValueError("CALICO_CLUSTER_SLOTS needs a PostgreSQL CALICO_DB")
        return self

    @property
    def has_token(self) -> bool:
        return bool(self.token.get_secret_value())

    @property
    def web_on(self) -> bool:
        """Whether this process serves the site (a port and a signing secret set)."""
        return self.web_port is not None and bool(self.web_secret.get_secret_value())

    @property
    def uses_postgres(self) -> bool:
        return self.db_path.startswith(("postgresql://", "postgres://"))

    @property
    def db_shown(self) -> str:
        """The database for logs (a URL without its password)."""
        from bot.core.storage.secrets import redact

        return redact(self.db_path)

    def __repr__(self) -> str:
        shown = "set" if self.has_token else "missing"
        return (f"Settings(token=<{shown}>, db={self.db_shown!r}, dev_guild={self.dev_guild!r}, "
                f"shards={self.shard_ids or 'all'}/{self.shard_count or 'auto'}, "
                f"log_level={self.log_level!r})")

    __str__ = __repr__

    @classmethod
    def from_env(cls, dotenv: Path | None = Path(".env")) -> Settings:
        """Settings from the environment over the ``dotenv`` file (None: no file)."""
        file = dotenv if dotenv is not None and dotenv.is_file() else None
        return cls(_env_file=file)


def environ_names() -> dict[str, str]:
    """Each setting's environment variable (for ``.env.example`` and the README tests)."""
    names = {"token": "DISCORD_TOKEN", "db_path": "CALICO_DB"}
    for field in Settings.model_fields:
        names.setdefault(field, f"CALICO_{field.upper()}")
    return names


# Settings whose values are never repeated in a message (a URL may carry a password).
_SECRET_FIELDS = frozenset({"token", "db_path", "web_secret"})


def bad_settings(error: ValidationError) -> list[str]:
    """One line per bad setting of ``error`` (from :meth:`Settings.from_env`), naming the
    environment variable an operator sets, e.g. ``CALICO_MAX_LOBBIES=abc: Input should be a
    valid integer``. A secret's value is never repeated."""
    names = environ_names()
    by_variable = {v: f for f, v in names.items()}
    lines: list[str] = []
    for problem in error.errors():
        message = str(problem["msg"]).removeprefix("Value error, ")
        message = message.split(", unable to", 1)[0]
        loc = problem.get("loc") or ()
        if not loc:  # a rule between settings: its message names them
            lines.append(message)
            continue
        key = str(loc[0])
        field = key if key in names else by_variable.get(key.upper(), key)
        variable = names.get(field, key.upper())
        value = problem.get("input")
        shown = "" if field in _SECRET_FIELDS or not isinstance(value, str | int | float) \
            else f"={value}"
        lines.append(f"{variable}{shown}: {message}")
    return lines


__all__ = ["Settings", "bad_settings", "environ_names", "parse_ids"]
