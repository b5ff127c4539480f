"""A transaction written once, run by either backend: a *plan* is a generator that yields
steps (a statement and its arguments) and receives each one's result.

The plans (:mod:`bot.core.storage.plans`) say what to run and what to check; a backend says how:
SQLite drives a plan synchronously on its writer thread (:func:`drive`, the whole transaction in
one hop), PostgreSQL awaits each step on one pooled connection (:func:`drive_async`). Neither
knows what the plan does, and no statement sequence is written twice.

A result of :class:`Execute` is the number of rows changed, of :class:`Fetch` the rows, of
:class:`Insert` the rows inserted; :class:`Notify` and :class:`Lock` exist on PostgreSQL only
(SQLite has one process and serializes its writers). A unique constraint refusing a row comes
back into the plan as :class:`ConflictError`; :class:`Rollback` ends a plan early, undoing its
writes, with a value for the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

from bot.core.storage.rows import StorageError

T = TypeVar("T")


class Row(Protocol):
    """A result row of either driver (a tuple, an asyncpg Record): indexable by position."""

    def __getitem__(self, index: int, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class Batch:
    """An INSERT of many rows, for the dialect to spell: ``VALUES`` run once per row (SQLite),
    or one statement over ``unnest`` of per-column arrays of ``types`` (PostgreSQL)."""

    head: str  # "INSERT INTO t (a, b)"
    types: tuple[str, ...]  # PostgreSQL column types, for the array casts
    tail: str = ""  # "ON CONFLICT ... DO ..."


# Steps are named tuples, not dataclasses: a move makes a dozen of them, and a tuple is the
# cheapest immutable value to build (a frozen dataclass costs several times more).


class Execute(NamedTuple):
    sql: str
    args: tuple[Any, ...] = ()


class Fetch(NamedTuple):
    sql: str
    args: tuple[Any, ...] = ()


class ExecuteMany(NamedTuple):
    sql: str
    rows: Sequence[tuple[Any, ...]]


class Insert(NamedTuple):
    batch: Batch
    rows: Sequence[tuple[Any, ...]]


class Claim(NamedTuple):
    """Lease due rows of ``table`` to their claimer: pick ``columns`` (keys first) of the rows
    ``where`` says (with its order and limit), set ``sets`` on them, and return the picked rows.
    A dialect difference: PostgreSQL runs one UPDATE over the pick ``FOR UPDATE SKIP LOCKED``
    (rows another process is claiming are skipped, not waited for); SQLite, whose writers are
    serialized, picks and then updates by key in one transaction (four times cheaper there than
    its UPDATE ... FROM)."""

    table: str
    keys: tuple[str, ...]
    columns: tuple[str, ...]
    where: str
    sets: str
    where_args: tuple[Any, ...]
    set_args: tuple[Any, ...]


class Notify(NamedTuple):
    """Tell other processes (PostgreSQL's NOTIFY, sent at commit)."""

    payload: str


class Lock(NamedTuple):
    """A lock on a key held to the end of the transaction (a row that does not exist yet
    cannot be locked itself)."""

    key: str


Step = Execute | Fetch | ExecuteMany | Insert | Claim | Notify | Lock
Plan = Generator[Step, Any, T]


class ConflictError(StorageError):
    """A unique constraint refused a row (the driver's own error, translated)."""


class Rollback(Exception):  # noqa: N818 - a signal, not an error
    """Undo the plan's writes and hand ``value`` to the caller instead of its result."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self.value = value


# -- the steps as typed sub-plans: ``n = yield from execute(SQL, a, b)``

def execute(sql: str, *args: Any) -> Plan[int]:
    changed: int = yield Execute(sql, args)
    return changed


def fetch(sql: str, *args: Any) -> Plan[list[Row]]:
    rows: list[Row] = yield Fetch(sql, args)
    return rows


def fetch_one(sql: str, *args: Any) -> Plan[Row | None]:
    rows: list[Row] = yield Fetch(sql, args)
    return rows[0] if rows else None


def execute_many(sql: str, rows: Sequence[tuple[Any, ...]]) -> Plan[None]:
    if rows:
        yield ExecuteMany(sql, rows)


def insert(batch: Batch, rows: Sequence[tuple[Any, ...]]) -> Plan[int]:
    if not rows:
        return 0
    inserted: int = yield Insert(batch, rows)
    return inserted


def notify(payload: str) -> Plan[None]:
    yield Notify(payload)


def lock(key: str) -> Plan[None]:
    yield Lock(key)


# -- drivers

C = TypeVar("C")
#: How a backend runs each kind of step on its connection, by the step's type (a table
#: lookup rather than a chain of checks: SQLite runs plans inside the one hop of a move).
Runners = Mapping[type, Callable[[C, Any], Any]]


def _ended(refused: bool) -> None:
    """A plan that met a refused row (:class:`ConflictError`) must end by raising (its own
    error, or :class:`Rollback`): PostgreSQL has aborted the transaction by then, so going on,
    or returning as if it had worked, would lose its writes there and keep them on SQLite."""
    if refused:
        raise StorageError("a plan carried on after a refused row: raise instead")


def drive(plan: Plan[T], runners: Runners[C], conn: C) -> T:
    """Run ``plan`` to its end on ``conn``, synchronously."""
    result: Any = None
    error: ConflictError | None = None
    refused = False
    try:
        while True:
            try:
                step = plan.send(result) if error is None else plan.throw(error)
            except StopIteration as stop:
                _ended(refused)
                return stop.value  # type: ignore[no-any-return]
            error = None
            try:
                result = runners[type(step)](conn, step)
            except ConflictError as e:
                error, refused = e, True
    finally:
        plan.close()


async def drive_async(plan: Plan[T], runners: Runners[C], conn: C) -> T:
    """:func:`drive` with runners that return awaitables."""
    result: Any = None
    error: ConflictError | None = None
    refused = False
    try:
        while True:
            try:
                step = plan.send(result) if error is None else plan.throw(error)
            except StopIteration as stop:
                _ended(refused)
                return stop.value  # type: ignore[no-any-return]
            error = None
            try:
                result = await runners[type(step)](conn, step)
            except ConflictError as e:
                error, refused = e, True
    finally:
        plan.close()
