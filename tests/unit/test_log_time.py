"""Log lines' times: the seconds part is formatted once a second and cached, so a time
must never take another second's text."""

import time

from hypothesis import given
from hypothesis import strategies as st

from services.core.logs import timestamp


def expected(created: float) -> str:
    """The time as formatted afresh each time (before the cache)."""
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
    return f"{seconds}.{int(created * 1000) % 1000:03d}Z"


@given(st.lists(st.floats(min_value=0, max_value=4_000_000_000), min_size=1, max_size=20))
def test_each_time_reads_as_its_own_instant(times: list[float]) -> None:
    for created in times:  # several seconds in turn: the cache must not mix them up
        assert timestamp(created) == expected(created)


def test_two_instants_of_one_second_differ_only_in_milliseconds() -> None:
    assert timestamp(1_790_000_000.123) == "2026-09-21T14:13:20.123Z"
    assert timestamp(1_790_000_000.999) == "2026-09-21T14:13:20.999Z"
    assert timestamp(1_790_000_001.0) == "2026-09-21T14:13:21.000Z"
