"""The core's limits and timings, one per process (the bot reads them from its settings,
:mod:`bot.settings`; tests and benchmarks make their own)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True, slots=True)
class ManagerConfig:
    """The core's limits and timings (one per process; the bot reads them from its settings)."""

    idle_days: float = 30.0  # an active game (or lobby) with no move for this long ends
    max_reminders: int = 5  # stall cut-off for timeout_action "remind"
    reminder_gap: timedelta = timedelta(hours=1)  # at most one reminder DM per user per gap
    dm_retry_after: timedelta = timedelta(hours=24)  # closed DMs are tried again after this
    outbox_keep: timedelta = timedelta(days=14)  # notices that ended are deleted after this
    cache_size: int = 4096  # games kept parsed in memory
    # Of those, ended games: only the most recent few (their score sheet, replay and review
    # are drawn soon after the end; later ones load from storage). Kept without this bound,
    # every finished game stayed parsed until 4,096 of them: steady memory growth under play.
    ended_cache_size: int = 64
    sweep_batch: int = 200
    timer_lease: timedelta = timedelta(minutes=5)  # a claimed timer's lease
    # A computer's turn is played right after the move that leads to it; its timer comes due
    # this much later, so that another process (or this one after a restart) finishes a computer
    # turn that was started and not completed.
    computer_grace: timedelta = timedelta(seconds=30)
    timer_backoff: timedelta = timedelta(minutes=1)  # first retry of a failing timer
    timer_backoff_max: timedelta = timedelta(hours=6)
    # Per person (None: no limit): open lobbies hosted, and games in at once (bot.core.limits).
    max_lobbies: int | None = None
    max_active_games: int | None = None
    # New lobbies a person may open (cancelled ones included): this many at once, then one
    # more every 60/N minutes (None: no limit; bot.core.limits.LobbyAllowance).
    new_lobbies_per_hour: int | None = None
