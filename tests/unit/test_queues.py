"""services.core.queues.together: what both ends of a command lane send as one message."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from services.core.queues import together


@given(st.lists(st.lists(st.integers(), min_size=1, max_size=5), max_size=5))
def test_items_come_in_order_all_that_was_queued_at_once_and_then_the_end(
    bursts: list[list[int]],
) -> None:
    async def run() -> list[list[int] | None]:
        queue: asyncio.Queue[int | None] = asyncio.Queue()
        taken: list[list[int] | None] = []
        for burst in bursts:
            for item in burst:
                queue.put_nowait(item)
            taken.append(await together(queue))
        queue.put_nowait(None)
        taken.append(await together(queue))
        return taken

    assert asyncio.run(run()) == [*bursts, None]


def test_the_end_waits_for_what_was_queued_before_it() -> None:
    async def run() -> tuple[list[int] | None, list[int] | None]:
        queue: asyncio.Queue[int | None] = asyncio.Queue()
        for item in (1, 2, None):
            queue.put_nowait(item)
        return await together(queue), await together(queue)

    assert asyncio.run(run()) == ([1, 2], None)
