"""gather_all: every task runs to its end before the first failure is raised, so a
worker retrying a failed batch never races a task of the failed attempt."""

from __future__ import annotations

import asyncio

import pytest

from services.core.errors import RuleViolation
from services.core.worker import gather_all


async def test_gather_all_finishes_everything_then_raises_the_first_failure() -> None:
    finished: list[str] = []

    async def slow(name: str) -> str:
        await asyncio.sleep(0.05)
        finished.append(name)
        return name

    async def failing() -> str:
        raise RuleViolation("no", "refused")

    with pytest.raises(RuleViolation):
        await gather_all([failing(), slow("a"), slow("b")])
    assert sorted(finished) == ["a", "b"]  # not cancelled, not left running
    assert await gather_all([slow("c"), slow("d")]) == ["c", "d"]
