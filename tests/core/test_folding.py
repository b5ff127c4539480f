"""Fewer posts for the same news (issue 29, finding 6), at the dispatcher: table posts waiting
in a row, computer moves after the first, are handed over as one run, shown as one post and
recorded together; a run in doubt after a crash is looked for under every length it may have
had, and what the post found covered is recorded with it, the rest goes on. Both backends."""

from __future__ import annotations

import dataclasses

from bot.core import folding
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.notices import Notice, NoticeKind, Table
from bot.core.outbox import Receipt
from bot.core.storage import NoticeStatus
from tests.core.conftest import ANN, RecordingDelivery, new_game, seeds, step


def table(ply: int, by: str) -> Notice:
    body = Table(seat=ply % 2, move="h0@C3>m1", by=by)
    from bot.core.notices import encode

    return Notice(id=ply, game_id=1, kind="table", user_id=None, ply=ply,
                  payload=encode(body), key=f"1.{ply}.0", attempts=0,
                  created_at=FakeClock().now(), guild_id=1, channel_id=2, thread_id=3)


def test_a_run_is_a_table_post_followed_by_computer_moves() -> None:
    notices = [table(1, "user"), table(2, "computer"), table(3, "computer"), table(4, "user"),
               table(5, "computer")]
    assert [n.ply for n in folding.run_at(notices, 0)] == [1, 2, 3]
    assert [n.ply for n in folding.run_at(notices, 3)] == [4, 5]
    assert [n.ply for n in folding.run_at(notices, 2)] == [3]  # a person's move starts anew
    assert len(folding.run_at([table(i, "computer") for i in range(30)], 0)) == folding.RUN_MAX


def test_a_runs_post_carries_its_first_key_and_its_length() -> None:
    assert folding.run_key("7.3.0", 1) == "7.3.0"  # alone: as before
    assert folding.run_key("7.3.0", 4) == "7.3.0+4"
    assert folding.run_keys("7.3.0", 3) == ["7.3.0", "7.3.0+2", "7.3.0+3"]


class Runs(RecordingDelivery):
    """Shows runs as one post (``posts``: each post's keys); a run whose first key is in
    ``out`` was posted already, covering ``out[key]`` notices."""

    shows_runs = True

    def __init__(self, out: dict[str, int] | None = None) -> None:
        super().__init__()
        self.posts: list[list[str]] = []
        self.out = out or {}
        self.looked: list[tuple[str, int]] = []

    async def deliver(self, notice: Notice) -> Receipt | None:
        run = notice.run or (notice,)
        if notice.look_first:
            self.looked.append((notice.key, len(run)))
            if notice.key in self.out:
                return Receipt(NoticeStatus.DONE, 9000 + notice.id, found=True,
                               covered=self.out[notice.key] if notice.run else None)
        self.posts.append([n.key for n in run])
        self.shown.extend(run)
        return Receipt(NoticeStatus.DONE, 5000 + notice.id)


async def test_moves_waiting_together_are_one_post_recorded_together(
        manager: Manager) -> None:
    g = await new_game(manager, computers=3, setup="beginner")
    for _ in range(6):  # ann's moves, each followed by three computer moves, all waiting
        g = await step(manager, g, ANN.id)
    out = Runs()
    d = manager.dispatcher(out)
    while await d.run_once():
        pass
    stored = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.TABLE]
    assert len(stored) == 24 and all(n.status == "done" for n in stored)
    table_posts = [p for p in out.posts if any(k in {n.key for n in stored} for k in p)]
    assert len(table_posts) <= 6  # one a round at most (a run ends at a person's move)
    by_post: dict[int | None, list[str]] = {}
    for n in stored:
        by_post.setdefault(n.message_id, []).append(n.key)
    assert sorted(by_post.values()) == sorted(table_posts)  # recorded with their post
    assert d.counts["folded"] == 24 - len(table_posts)


async def test_a_run_in_doubt_is_found_by_what_it_was_and_the_rest_goes_on(
        db_path: str, clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    try:
        g = await new_game(m, computers=3, setup="beginner")
        for _ in range(2):
            g = await step(m, g, ANN.id)
        tables = [n for n in await m.store.notices(g.id) if n.kind == NoticeKind.TABLE]
        # Everything before the tables was posted; a process then died posting the first
        # three tables as one post (unrecorded).
        first = tables[0]
        for n in await m.store.notices(g.id):
            if n.id < first.id and n.user_id is None:
                await m.store.finish_notice(n.id, NoticeStatus.DONE, to_ms(clock.now()))
        await m.store.mark_sent(first.id, to_ms(clock.now()))
        out = Runs(out={first.key: 3})
        d = m.dispatcher(out)
        while await d.run_once():
            pass
        assert out.looked == [(first.key, 4)]  # the run was four long by now
        stored = {n.key: n for n in await m.store.notices(g.id)}
        assert [stored[n.key].message_id for n in tables[:3]] == [9000 + first.id] * 3
        assert all(stored[n.key].status == "done" for n in tables)
        assert [k for p in out.posts for k in p if k in {n.key for n in tables}] == \
            [n.key for n in tables[3:]]  # nothing posted twice, nothing lost
    finally:
        await m.close()


async def test_a_delivery_that_shows_no_runs_gets_each_notice_alone(manager: Manager) -> None:
    g = await new_game(manager, computers=3, setup="beginner")
    g = await step(manager, g, ANN.id)
    out = RecordingDelivery()
    d = manager.dispatcher(out)
    while await d.run_once():
        pass
    assert all(not n.run for n in out.shown) and d.counts["folded"] == 0
    assert dataclasses.fields(Notice)[-1].name == "run"
