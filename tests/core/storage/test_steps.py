"""Plans and their drivers (:mod:`bot.core.storage.steps`), without a database: a plan's steps
are run in order, each result sent back into it; a unique constraint's refusal comes back into
the plan where it can be handled; any other error ends the plan (its ``finally`` runs); the
synchronous and the asynchronous driver behave alike; and the typed helpers yield nothing for
nothing to do."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from bot.core.storage import StorageError
from bot.core.storage.steps import (
    Batch,
    ConflictError,
    Execute,
    ExecuteMany,
    Fetch,
    Insert,
    Lock,
    Notify,
    Plan,
    drive,
    drive_async,
    execute,
    execute_many,
    fetch,
    fetch_one,
    insert,
    lock,
    notify,
)

BATCH = Batch("INSERT INTO t (a)", ("bigint",))


class Fake:
    """Runners that log each step and answer from a script (an exception is raised)."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers or {}
        self.log: list[Any] = []

    def answer(self, step: Any) -> Any:
        self.log.append(step)
        key = getattr(step, "sql", None) or getattr(step, "payload", None) or \
            getattr(step, "key", None) or "insert"
        found = self.answers.get(key)
        if isinstance(found, BaseException):
            raise found
        return found

    def runners(self) -> dict[type, Callable[[str, Any], Any]]:
        return {t: lambda _conn, step: self.answer(step)
                for t in (Execute, Fetch, ExecuteMany, Insert, Notify, Lock)}

    def async_runners(self) -> dict[type, Callable[[str, Any], Any]]:
        async def run(_conn: str, step: Any) -> Any:
            return self.answer(step)

        return dict.fromkeys((Execute, Fetch, ExecuteMany, Insert, Notify, Lock), run)


async def both(plan: Callable[[], Plan[Any]], fake: Fake) -> Any:
    """The plan's result under each driver (the two must agree, and log the same steps)."""
    sync = drive(plan(), fake.runners(), "conn")
    steps = list(fake.log)
    fake.log.clear()
    async_ = await drive_async(plan(), fake.async_runners(), "conn")
    assert fake.log == steps
    assert sync == async_
    return sync


async def test_steps_run_in_order_each_result_sent_back() -> None:
    fake = Fake({"UPDATE a": 1, "SELECT b": [("x",), ("y",)], "insert": 2})

    def plan() -> Plan[tuple[Any, ...]]:
        changed = yield from execute("UPDATE a", 5)
        rows = yield from fetch("SELECT b")
        first = yield from fetch_one("SELECT b")
        inserted = yield from insert(BATCH, [(1,), (2,)])
        yield from notify("g:1:2")
        yield from lock("cup:1")
        return changed, rows, first, inserted

    assert await both(plan, fake) == (1, [("x",), ("y",)], ("x",), 2)
    assert fake.log == [Execute("UPDATE a", (5,)), Fetch("SELECT b", ()), Fetch("SELECT b", ()),
                        Insert(BATCH, [(1,), (2,)]), Notify("g:1:2"), Lock("cup:1")]


async def test_nothing_to_do_is_no_step() -> None:
    fake = Fake({"SELECT b": []})

    def plan() -> Plan[tuple[Any, ...]]:
        yield from execute_many("INSERT INTO t VALUES (?)", [])
        inserted = yield from insert(BATCH, [])
        none = yield from fetch_one("SELECT b")
        return inserted, none

    assert await both(plan, fake) == (0, None)
    assert fake.log == [Fetch("SELECT b", ())]


async def test_a_conflict_comes_back_into_the_plan() -> None:
    """A refused row comes back into the plan as ConflictError: the plan turns it into its own
    error (the challenge's second attempt), or it ends the plan as it is. A plan that would
    carry on after it is refused on both backends alike: PostgreSQL has aborted the
    transaction by then, so its writes would be lost there and kept on SQLite."""
    fake = Fake({"INSERT dup": ConflictError("unique"), "UPDATE instead": 1})

    class TakenError(Exception):
        pass

    def converts() -> Plan[str]:
        try:
            yield from execute("INSERT dup")
        except ConflictError:
            raise TakenError("that row is taken") from None
        return "inserted"

    with pytest.raises(TakenError):
        drive(converts(), fake.runners(), "conn")
    with pytest.raises(TakenError):
        await drive_async(converts(), fake.async_runners(), "conn")

    def carries_on() -> Plan[str]:
        try:
            yield from execute("INSERT dup")
        except ConflictError:
            changed = yield from execute("UPDATE instead")
            return f"updated {changed}"
        return "inserted"

    def swallows() -> Plan[str]:
        with contextlib.suppress(ConflictError):
            yield from execute("INSERT dup")
        return "inserted"

    for plan in (carries_on, swallows):
        with pytest.raises(StorageError, match="refused row"):
            drive(plan(), fake.runners(), "conn")
        with pytest.raises(StorageError, match="refused row"):
            await drive_async(plan(), fake.async_runners(), "conn")

    def unhandled() -> Plan[str]:
        yield from execute("INSERT dup")
        return "inserted"

    with pytest.raises(ConflictError):
        drive(unhandled(), fake.runners(), "conn")
    with pytest.raises(ConflictError):
        await drive_async(unhandled(), fake.async_runners(), "conn")


async def test_any_other_error_ends_the_plan_and_its_finally_runs() -> None:
    fake = Fake({"UPDATE a": RuntimeError("connection lost")})
    closed: list[str] = []

    def plan() -> Plan[str]:
        try:
            try:
                yield from execute("UPDATE a")
            except RuntimeError:
                return "never: only conflicts come back into a plan"
            return "done"
        finally:
            closed.append("finally")

    with pytest.raises(RuntimeError, match="connection lost"):
        drive(plan(), fake.runners(), "conn")
    with pytest.raises(RuntimeError, match="connection lost"):
        await drive_async(plan(), fake.async_runners(), "conn")
    assert closed == ["finally", "finally"]


async def test_a_plan_raising_ends_the_drive_with_its_error() -> None:
    fake = Fake({"SELECT b": []})

    def plan() -> Plan[None]:
        rows = yield from fetch("SELECT b")
        if not rows:
            raise LookupError("nothing there")

    with pytest.raises(LookupError):
        drive(plan(), fake.runners(), "conn")
    with pytest.raises(LookupError):
        await drive_async(plan(), fake.async_runners(), "conn")
