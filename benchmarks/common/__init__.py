"""What the benchmarks share (the ``benchcommon`` of issue 19), so that none of them copies a
set-up block from another. Import from here: ``from benchmarks.common import print_machine``.

- ``machine``: ``print_machine`` / ``machine_line`` (the line every benchmark prints first:
  system, CPU, load average, Python and library versions), ``load_text``, ``load1``,
  ``cpu_model``; ``Stopwatch`` (wall and CPU time of a block), ``timed_calls`` /
  ``atimed_calls`` (wall time of each of N calls), ``rss_mb`` (this process or another),
  ``peak_rss_mb``; ``lag_monitor`` (event-loop lag), ``cancel`` (tasks); ``pct``
  (percentiles), ``ms``, ``table``; ``pool_results`` (a process pool's results, with
  progress on a terminal);
- ``storage``: ``PgServer`` / ``postgres_server`` (a throwaway PostgreSQL server with its CPU
  time), ``pg_size``, ``sqlite_size``;
- ``games``: ``two_player_game`` / ``numbered_game`` (a started game of two people),
  ``random_move`` / ``send_move`` / ``play_random_move`` (a random legal move of whoever must
  act, sent as the Discord layer sends it), ``dispatching`` (the outbox dispatcher running for
  a block), ``drained`` (back once no notice is pending).

The bot is imported inside the functions that need it: a benchmark of the engine or of the
renderer loads none of it. Nothing here is imported by the bot.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.common.games import (
    dispatching,
    drained,
    numbered_game,
    play_random_move,
    random_move,
    send_move,
    two_player_game,
    wall_ms,
)
from benchmarks.common.machine import (
    Stopwatch,
    atimed_calls,
    cancel,
    cpu_model,
    cpu_seconds,
    lag_monitor,
    load1,
    load_text,
    machine_line,
    ms,
    pct,
    peak_rss_mb,
    pids_running,
    pool_results,
    print_machine,
    rss_mb,
    table,
    timed_calls,
)
from benchmarks.common.storage import PgServer, pg_size, postgres_server, sqlite_size

ROOT = Path(__file__).resolve().parents[2]  # the repository

__all__ = [
    "ROOT", "PgServer", "Stopwatch", "atimed_calls", "cancel", "cpu_model", "cpu_seconds",
    "dispatching", "drained", "lag_monitor", "load1", "load_text", "machine_line", "ms",
    "numbered_game", "pct", "peak_rss_mb", "pg_size", "pids_running", "play_random_move",
    "pool_results", "postgres_server", "print_machine", "random_move", "rss_mb", "send_move",
    "sqlite_size", "table", "timed_calls", "two_player_game", "wall_ms",
]
