"""A viewer's mailbox (gateway.live.mailbox) behaves as the asyncio.Queue it replaced:
items in order, bounded, a waiting reader woken by a put, a cancelled wait losing
nothing (a model-based hypothesis test, and the waiting cases)."""

from __future__ import annotations

import asyncio
from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.live.mailbox import Mailbox

OPS = st.lists(st.one_of(st.integers(0, 10**6), st.none()), max_size=3000)


@given(OPS, st.integers(1, 50))
def test_it_keeps_order_and_bound_as_a_queue_does(ops: list[int | None], maxsize: int) -> None:
    box: Mailbox[int] = Mailbox(maxsize)
    model: deque[int] = deque()
    for op in ops:  # an int is put, None takes one
        if op is None:
            if model:
                assert box.get_nowait() == model.popleft()
            else:
                with pytest.raises(asyncio.QueueEmpty):
                    box.get_nowait()
        elif len(model) >= maxsize:
            with pytest.raises(asyncio.QueueFull):
                box.put_nowait(op)
        else:
            box.put_nowait(op)
            model.append(op)
        assert box.qsize() == len(model) and box.empty() == (not model)


def test_a_long_run_never_emptied_stays_in_order() -> None:
    box: Mailbox[int] = Mailbox(10)
    box.put_nowait(0)
    for n in range(1, 5000):  # always one behind: the list is compacted, not emptied
        box.put_nowait(n)
        assert box.get_nowait() == n - 1


async def test_a_waiting_reader_is_woken_and_a_cancelled_wait_loses_nothing() -> None:
    box: Mailbox[str] = Mailbox(10)
    waiting = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    box.put_nowait("a")
    assert await waiting == "a"
    cancelled = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    box.put_nowait("b")  # woken, then cancelled before it ran: "b" stays
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert await asyncio.wait_for(box.get(), 1) == "b"
