"""The settings of the health listener, the metrics and the log format.

Read from the environment (and ``.env``) with the ``CALICO_`` prefix, beside the bot's own
:class:`bot.settings.Settings`:

- ``CALICO_HEALTH_PORT``: the port of ``/healthz`` and ``/metrics``; unset or empty: no listener
  (the default). 0 picks a free port (tests);
- ``CALICO_HEALTH_HOST``: where it listens, 127.0.0.1 unless told otherwise (``0.0.0.0`` for a
  scraper on another host: the body names internals, so that is a deliberate choice);
- ``CALICO_LOG_JSON``: ``true`` for one JSON object per line (log collectors); plain otherwise;
- ``CALICO_HEALTH_MAX_SWEEP_AGE``, ``CALICO_HEALTH_MAX_OUTBOX_AGE`` (seconds),
  ``CALICO_HEALTH_MIN_SHARD_FRACTION``: the health thresholds most worth tuning.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.ops.health import DEFAULT_HOST, HealthThresholds

_DEFAULTS = HealthThresholds()


class OpsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CALICO_", env_file=".env", extra="ignore",
                                      env_ignore_empty=True, frozen=True)

    health_port: int | None = Field(default=None, ge=0, le=65535)
    health_host: str = DEFAULT_HOST
    log_json: bool = False
    health_max_sweep_age: float = Field(default=_DEFAULTS.max_sweep_age, gt=0)
    health_max_outbox_age: float | None = Field(default=_DEFAULTS.max_outbox_age, gt=0)
    health_min_shard_fraction: float = Field(default=_DEFAULTS.min_shard_fraction, ge=0, le=1)

    @property
    def health_enabled(self) -> bool:
        return self.health_port is not None

    def thresholds(self) -> HealthThresholds:
        return HealthThresholds(max_sweep_age=self.health_max_sweep_age,
                                max_outbox_age=self.health_max_outbox_age,
                                min_shard_fraction=self.health_min_shard_fraction)
