"""A viewer's mailbox (gateway.live.watched): the bounded FIFO a stream waits on, as
asyncio.Queue was, for a fraction of its memory."""

from __future__ import annotations

import asyncio

import pytest

from gateway.live.watched import Mailbox, Viewer


async def test_items_come_out_in_order_and_a_waiting_stream_wakes() -> None:
    box = Mailbox(10)
    waiting = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    box.put_nowait((b"a", False))
    box.put_nowait((b"b", True))
    assert await waiting == (b"a", False)
    assert await box.get() == (b"b", True)
    assert box.empty()


async def test_a_full_mailbox_refuses_and_a_slow_viewer_is_ended() -> None:
    box = Mailbox(2)
    box.put_nowait(None)
    box.put_nowait(None)
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(None)
    viewer = Viewer(0)
    viewer.queue = Mailbox(3)
    viewer.push([(b"x", False)] * 5)  # too slow: its stream ends, to resume from its id
    assert await viewer.queue.get() is None and viewer.queue.empty()


async def test_a_cancelled_wait_leaves_the_mailbox_usable() -> None:
    box = Mailbox(5)
    waiting = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    box.put_nowait((b"later", False))
    assert await asyncio.wait_for(box.get(), 1) == (b"later", False)
