"""Every role of :class:`~bot.core.storage.base.Store` over the shared SQL, for both backends.

A backend subclasses :class:`SqlStore` and only connects and runs: :meth:`SqlStore.run` takes a
plan (:mod:`bot.core.storage.plans`) and executes it, in one transaction when ``atomic``;
:meth:`SqlStore.fetch` and :meth:`SqlStore.execute` run one statement (most calls), without
the plan machinery. SQLite runs a whole plan on its writer thread in one hop; PostgreSQL on
one pooled connection. What a backend adds on top is its own: opening, health, bulk copying,
locks across processes.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, TypeVar

from bot.core.notices import Notice
from bot.core.storage import plans, sql
from bot.core.storage.base import Store
from bot.core.storage.rows import (
    GameRow,
    GameWrite,
    Lane,
    MoveRow,
    NewGame,
    NoticeStatus,
    OutboxStats,
    ResultRow,
    TimerRow,
    TotalsRow,
    UserRow,
)
from bot.core.storage.steps import Plan, Rollback

T = TypeVar("T")


class SqlStore(Store):
    """The shared implementation: each method builds a plan and runs it (see the module)."""

    @abc.abstractmethod
    async def run(self, plan: Plan[T], *, atomic: bool = False) -> T:
        """Run ``plan`` (in one transaction when ``atomic``; a plan that raises
        :class:`~bot.core.storage.steps.Rollback` has its writes undone)."""

    async def transact(self, plan: Plan[T]) -> T:
        try:
            return await self.run(plan, atomic=True)
        except Rollback as back:
            return back.value  # type: ignore[no-any-return]

    @abc.abstractmethod
    async def fetch(self, statement: str, args: tuple[Any, ...]) -> list[Any]:
        """One read (or one write returning rows), outside any transaction: the short path of
        most calls, without a plan."""

    @abc.abstractmethod
    async def execute(self, statement: str, args: tuple[Any, ...]) -> int:
        """One write, atomic by itself; returns the rows changed."""

    async def _rows(self, statement: str, *args: Any) -> list[Any]:
        return await self.fetch(statement, args)

    async def _row(self, statement: str, *args: Any) -> Any:
        found = await self._rows(statement, *args)
        return found[0] if found else None

    # -- games
    async def create_game(self, new: NewGame) -> int:
        game_id, queued = await self.transact(plans.create_game(new))
        if queued:
            self.notices_added.set()
        return game_id

    async def load_game(self, game_id: int) -> GameRow | None:
        return await self.run(plans.load_game(game_id))

    async def game_version(self, game_id: int) -> int | None:
        r = await self._row(sql.GAME_VERSION, game_id)
        return None if r is None else int(r[0])

    async def commit(self, write: GameWrite) -> int:
        queued = await self.transact(plans.commit(write))
        if queued:
            self.notices_added.set()
        return queued

    async def moves(self, game_id: int, before_ply: int | None = None) -> list[MoveRow]:
        if before_ply is None:
            rows = await self._rows(sql.MOVES, game_id)
        else:
            rows = await self._rows(sql.MOVES_BEFORE, game_id, before_ply)
        return [MoveRow(*r) for r in rows]

    async def results(self, game_id: int) -> list[ResultRow]:
        return [sql.result_row(r) for r in await self._rows(sql.RESULTS, game_id)]

    async def game_ids(self, *, user_id: int | None = None, thread_id: int | None = None,
                       channel_id: int | None = None, guild_id: int | None = None,
                       active_only: bool = False, limit: int | None = None) -> list[int]:
        statement, args = sql.game_ids(user_id, thread_id, channel_id, guild_id, active_only,
                                       limit)
        return [int(r[0]) for r in await self._rows(statement, *args)]

    async def rematches(self, game_id: int) -> list[int]:
        return [int(r[0]) for r in await self._rows(sql.REMATCHES, game_id, game_id)]

    async def waiting_games(self, user_id: int) -> list[int]:
        return [int(r[0]) for r in await self._rows(sql.WAITING, user_id)]

    async def active_games(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in await self._rows(sql.ACTIVE_GAMES)}

    async def count_games(self, user_id: int, statuses: Sequence[str]) -> int:
        r = await self._row(sql.count_games(len(statuses)), user_id, *statuses)
        return int(r[0] or 0) if r is not None else 0

    # -- outbox
    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int,
                          express: bool = False) -> list[Lane]:
        rows = await self.run(plans.claim(sql.claim_lanes(owner, now, now + lease_ms, limit,
                                                          express)))
        # served_since before ``now``: the lane's last serve never ended (see sql.claim_lanes).
        return [Lane(int(r[0]), int(r[1]), int(r[2]) if r[2] is not None and r[2] < now
                     else None) for r in rows]

    async def lane_notices(self, lane: Lane, limit: int) -> list[Notice]:
        rows = await self._rows(sql.LANE_NOTICES, lane.game_id, lane.recipient, limit)
        return [sql.notice_row(r) for r in rows]

    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        changed = await self.execute(sql.FINISH_NOTICE, (
            status.value, now, message_id, None if error is None else error[:500], notice_id))
        return changed == 1

    async def finish_notices(self, notice_ids: Sequence[int], status: NoticeStatus, now: int, *,
                             message_id: int | None = None, error: str | None = None) -> int:
        if len(notice_ids) == 1:
            return int(await self.finish_notice(notice_ids[0], status, now,
                                                message_id=message_id, error=error))
        return await self.transact(plans.finish_notices(
            notice_ids, status.value, now, message_id, None if error is None else error[:500]))

    async def retry_notice(self, notice_id: int, due: int, error: str, *,
                           sent_at: int | None = None) -> None:
        await self.execute(sql.RETRY_NOTICE, (due, error[:500], sent_at, notice_id))

    async def mark_sent(self, notice_id: int, at: int) -> None:
        await self.execute(sql.MARK_SENT, (at, notice_id))

    async def renew_lane(self, lane: Lane, owner: str, now: int, lease_ms: int) -> bool:
        until = now + lease_ms
        changed = await self.execute(sql.RENEW_LANE, (until, until, lane.game_id,
                                                      lane.recipient, owner))
        return changed == 1

    async def release_lane(self, lane: Lane, owner: str, due: int) -> None:
        await self.transact(plans.release_lane(lane, owner, due))

    async def notices(self, game_id: int | None = None) -> list[Notice]:
        if game_id is None:
            rows = await self._rows(sql.ALL_NOTICES)
        else:
            rows = await self._rows(sql.GAME_NOTICES, game_id)
        return [sql.notice_row(r) for r in rows]

    async def skip_pending_dms(self, user_id: int, now: int) -> list[int]:
        rows = await self._rows(sql.SKIP_DMS, now, user_id)
        return sorted({int(r[0]) for r in rows})

    async def outbox_stats(self, now: int) -> OutboxStats:
        return await self.run(plans.outbox_stats(now))

    async def prune_outbox(self, before: int) -> int:
        return await self.transact(plans.prune_outbox(before))

    # -- timers
    async def claim_timers(self, owner: str, now: int, lease_ms: int,
                           limit: int) -> list[TimerRow]:
        rows = await self.run(plans.claim(sql.claim_timers(owner, now, now + lease_ms, limit)))
        return sorted((sql.timer_row(r) for r in rows),
                      key=lambda t: (t.due_at, t.game_id, t.seat))

    async def timers(self, game_id: int) -> list[TimerRow]:
        return [sql.timer_row(r) for r in await self._rows(sql.GAME_TIMERS, game_id)]

    async def timer_failed(self, timer: TimerRow, owner: str, due: int, error: str) -> int:
        r = await self._row(sql.TIMER_FAILED, due, error[:500], timer.game_id, timer.kind,
                            timer.seat, owner)
        return 0 if r is None else int(r[0])

    async def release_timer(self, timer: TimerRow, owner: str) -> None:
        await self.execute(sql.RELEASE_TIMER, (timer.game_id, timer.kind, timer.seat, owner))

    # -- users and stats
    async def get_user(self, user_id: int) -> UserRow | None:
        r = await self._row(sql.GET_USER, user_id)
        return None if r is None else sql.user_row(r)

    async def set_user(self, user_id: int, **cols: Any) -> UserRow:
        return await self.transact(plans.set_user(user_id, cols))

    async def totals(self, user_id: int, guild_id: int) -> TotalsRow | None:
        r = await self._row(sql.TOTALS, guild_id, user_id)
        return None if r is None else TotalsRow(*r)

    async def best_without(self, user_id: int, guild_id: int, game_id: int) -> int | None:
        r = await self._row(sql.BEST_WITHOUT, user_id, game_id, guild_id, guild_id)
        return None if r is None or r[0] is None else int(r[0])

    async def leaderboard(self, guild_id: int, limit: int, min_games: int = 1
                          ) -> list[TotalsRow]:
        scope = (guild_id, guild_id)
        return [TotalsRow(*r) for r in await self._rows(sql.LEADERBOARD, *scope, *scope,
                                                         guild_id, min_games, limit)]

    # -- servers and shared state
    async def guild_settings(self, guild_id: int) -> str | None:
        r = await self._row(sql.GUILD_SETTINGS, guild_id)
        return None if r is None else str(r[0])

    async def set_guild_settings(self, guild_id: int, data: str, now: int) -> None:
        await self.execute(sql.SET_GUILD_SETTINGS, (guild_id, data, now))

    async def get_state(self, key: str) -> str | None:
        r = await self._row(sql.GET_STATE, key)
        return None if r is None else str(r[0])

    async def set_state(self, key: str, value: str, now: int) -> None:
        await self.execute(sql.SET_STATE, (key, value, now))

    # -- maintenance
    async def ping(self) -> None:
        await self._rows(sql.PING)

    async def count_rows(self, table: str) -> int:
        return int((await self._row(sql.count_rows(table)))[0])
