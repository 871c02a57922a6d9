"""A bot account's requests a minute slide (gateway.accounts.bot_limits): the count is this
clock minute's plus the last one's share still inside the minute, and a refusal's
Retry-After is the first whole second the bot may send again (a refused request is not
counted: ``current`` is what was let through)."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from gateway.accounts.bot_limits import last_minute, wait_s


def later(current: int, previous: int, elapsed: float, t: float) -> float:
    """The count ``t`` seconds on, with nothing more sent."""
    if elapsed + t < 60:
        return last_minute(current, previous, elapsed + t)
    return last_minute(0, current, elapsed + t - 60)


@given(
    st.integers(0, 500),
    st.integers(0, 500),
    st.floats(0, 59.999),
    st.integers(1, 300),
)
def test_retry_after_is_the_first_second_one_more_request_fits(
    current: int, previous: int, elapsed: float, limit: int
) -> None:
    assume(last_minute(current, previous, elapsed) + 1 > limit)  # one more is refused
    wait = wait_s(current, previous, elapsed, limit)
    assert 1 <= wait <= 120
    assert later(current, previous, elapsed, wait) + 1 <= limit + 1e-9
    if wait > 1:
        assert later(current, previous, elapsed, wait - 1) + 1 > limit


def test_a_burst_across_a_minutes_end_counts_once_not_twice() -> None:
    # 120 requests in the last second of a minute, then 120 in the first of the next: a
    # fixed window took both; the sliding minute counts the first burst almost whole.
    assert last_minute(120, 120, 1.0) > 120
    assert last_minute(120, 0, 1.0) == 120
