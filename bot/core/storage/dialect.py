"""What differs between the two backends' SQL, and nothing else.

The statements (:mod:`bot.core.storage.sql`) are written once, in the form PostgreSQL needs for
several processes: ``?`` placeholders, row locks (``FOR UPDATE``, ``FOR UPDATE SKIP LOCKED``)
where a concurrent writer could interfere, ``max(a, b)`` for the larger of two values. Each
backend spells them its way, once per distinct statement (cached):

- SQLite drops the row locks: one process, and ``BEGIN IMMEDIATE`` already serializes writers;
- PostgreSQL numbers the placeholders (``$1, $2, ...``) and writes ``greatest(a, b)``;
- a :class:`~bot.core.storage.steps.Batch` insert is ``VALUES`` run per row on SQLite (cheap
  in process) and one ``unnest`` of per-column arrays on PostgreSQL (one round trip);
- notifications and transaction locks are PostgreSQL's (:data:`NOTIFY`, :data:`LOCK`);
  SQLite has no other process to tell or to wait for.

Both understand ``ON CONFLICT ... DO UPDATE``/``DO NOTHING``, ``RETURNING`` and
``UPDATE ... FROM`` (SQLite 3.35+), so upserts and claims are one statement on both.
"""

from __future__ import annotations

import functools
import re

from bot.core.storage.steps import Batch

_LOCKS = re.compile(r" FOR UPDATE( SKIP LOCKED)?")
_MARK = re.compile(r"\?")
# max() of two plain values (the aggregate max(x) has one argument).
_MAX2 = re.compile(r"\bmax\(([^(),]+), ([^(),]+)\)")

#: PostgreSQL: tell the other processes (``LISTEN calico``) at commit.
CHANNEL = "calico"
NOTIFY = "SELECT pg_notify($1, $2)"
#: PostgreSQL: a lock on (namespace, key) to the end of the transaction.
LOCK = "SELECT pg_advisory_xact_lock($1, $2)"


@functools.lru_cache(maxsize=512)
def sqlite(sql: str) -> str:
    return _LOCKS.sub("", sql)


@functools.lru_cache(maxsize=512)
def postgres(sql: str) -> str:
    """``?`` as ``$1, $2, ...`` (our SQL has no ``?`` in literals); ``max(a, b)`` as
    ``greatest(a, b)``."""
    counter = iter(range(1, 10_000))
    text = _MARK.sub(lambda _: f"${next(counter)}", sql)
    return _MAX2.sub(r"greatest(\1, \2)", text)


@functools.lru_cache(maxsize=64)
def sqlite_batch(batch: Batch) -> str:
    marks = ", ".join("?" for _ in batch.types)
    return sqlite(f"{batch.head} VALUES ({marks}) {batch.tail}".rstrip())


@functools.lru_cache(maxsize=64)
def postgres_batch(batch: Batch) -> str:
    arrays = ", ".join(f"${i}::{t}[]" for i, t in enumerate(batch.types, start=1))
    return f"{batch.head} SELECT * FROM unnest({arrays}) {batch.tail}".rstrip()
