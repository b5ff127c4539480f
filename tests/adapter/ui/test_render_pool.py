"""The render pool (bot.adapter.ui.render_pool, bot.adapter.ui.images.draw): pictures for
someone waiting on a click go before the outbox's posts; its size is CALICO_RENDER_THREADS."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bot.adapter.ui import images
from bot.adapter.ui.render_pool import BACKGROUND, URGENT, RenderPool


def test_urgent_pictures_go_before_queued_posts() -> None:
    pool = RenderPool(1)
    gate = threading.Event()
    order: list[str] = []
    try:
        busy = pool.submit(gate.wait)  # the one thread is drawing something
        posts = [pool.submit(lambda k=k: order.append(f"post{k}"), BACKGROUND) for k in range(3)]
        answer = pool.submit(lambda: order.append("answer"), URGENT)
        later = pool.submit(lambda: order.append("answer2"), URGENT)
        gate.set()
        for f in [busy, *posts, answer, later]:
            f.result(timeout=5)
    finally:
        pool.shutdown()
    assert order == ["answer", "answer2", "post0", "post1", "post2"]  # each kind in order


def test_errors_reach_the_caller_and_the_thread_goes_on() -> None:
    pool = RenderPool(1)
    try:
        def broken() -> None:
            raise ValueError("bad picture")

        with pytest.raises(ValueError, match="bad picture"):
            pool.submit(broken).result(timeout=5)
        assert pool.submit(lambda: 41 + 1).result(timeout=5) == 42
    finally:
        pool.shutdown()


def test_a_picture_nobody_waits_for_is_not_drawn_and_shutdown_finishes_the_queue() -> None:
    pool = RenderPool(1)
    gate = threading.Event()
    drawn: list[str] = []
    blocker = pool.submit(gate.wait)
    dropped = pool.submit(lambda: drawn.append("dropped"))
    kept = pool.submit(lambda: drawn.append("kept"), BACKGROUND)
    assert dropped.cancel()  # the click's task was cancelled before its turn came
    pool.shutdown()
    with pytest.raises(RuntimeError):
        pool.submit(lambda: None)
    gate.set()
    blocker.result(timeout=5)
    kept.result(timeout=5)
    for thread in pool.threads:
        thread.join(timeout=5)
        assert not thread.is_alive()
    assert drawn == ["kept"]


def test_a_pool_asked_for_no_threads_still_draws() -> None:
    pool = RenderPool(0)
    try:
        assert len(pool.threads) == 1
        assert pool.submit(lambda: "drawn").result(timeout=5) == "drawn"
    finally:
        pool.shutdown()


def test_draw_puts_the_outbox_pictures_behind_the_clicks() -> None:
    gate = threading.Event()
    order: list[str] = []

    def mark(name: str) -> str:
        order.append(name)
        return name

    async def deliver_like() -> str:
        token = images.in_background.set(True)
        try:
            return await images.draw(mark, "post")
        finally:
            images.in_background.reset(token)

    async def scene() -> list[str]:
        hold = asyncio.ensure_future(images.draw(gate.wait))
        await asyncio.sleep(0.05)  # the render thread is busy with it
        post = asyncio.ensure_future(deliver_like())
        await asyncio.sleep(0.05)
        answer = asyncio.ensure_future(images.draw(mark, "answer"))
        await asyncio.sleep(0.05)
        gate.set()
        await hold
        return list(await asyncio.gather(post, answer))

    previous = images.RENDER_THREADS
    images.set_render_threads(1)
    try:
        assert asyncio.run(scene()) == ["post", "answer"]
    finally:
        images.set_render_threads(previous)
    assert order == ["answer", "post"]  # asked later, drawn first


@pytest.mark.parametrize("threads", [1, 2])
def test_pictures_drawn_at_once_only_with_two_render_threads(threads: int) -> None:
    barrier = threading.Barrier(2, timeout=2.0)  # generous: a busy machine starts threads late

    def meet() -> str:
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return "alone"
        return threading.current_thread().name

    async def two() -> list[str]:
        return list(await asyncio.gather(images.draw(meet), images.draw(meet)))

    previous = images.RENDER_THREADS
    images.set_render_threads(threads)
    try:
        got = asyncio.run(two())
    finally:
        images.set_render_threads(previous)
    if threads == 1:
        assert "alone" in got  # one after the other: never both at the barrier
    else:
        assert all(name.startswith("calico-render") for name in got)
