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

- a :class:`~bot.core.storage.steps.Claim` (lease due lanes or timers) is one ``UPDATE ...
  FROM (... FOR UPDATE SKIP LOCKED) RETURNING`` on PostgreSQL, and on SQLite the same pick
  then an update by key (:func:`claim_pick`, :func:`claim_lease`).

Both understand ``ON CONFLICT ... DO UPDATE``/``DO NOTHING`` and ``RETURNING`` (SQLite 3.35+),
so upserts are one statement on both.
"""

from __future__ import annotations

import functools
import re

from bot.core.storage.steps import Batch, Claim

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


def claim_pick(c: Claim) -> str:
    """SQLite's half of a claim: the due rows (then updated by key)."""
    return f"SELECT {', '.join(c.columns)} FROM {c.table} {c.where}"


def claim_lease(c: Claim) -> str:
    """SQLite's other half: the lease of one picked row, by its key."""
    keys = " AND ".join(f"{k} = ?" for k in c.keys)
    return f"UPDATE {c.table} SET {c.sets} WHERE {keys}"


def postgres_claim(c: Claim) -> str:
    """PostgreSQL's claim in one statement; arguments: ``set_args`` then ``where_args``."""
    keys = ", ".join(c.keys)
    join = " AND ".join(f"{c.table}.{k} = c.{k}" for k in c.keys)
    back = ", ".join(f"{c.table}.{col}" for col in c.columns)
    return postgres(f"UPDATE {c.table} SET {c.sets} FROM (SELECT {keys} FROM {c.table} "
                    f"{c.where} FOR UPDATE SKIP LOCKED) c WHERE {join} RETURNING {back}")
