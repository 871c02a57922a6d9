"""When a daily e-mail digest goes (services.notifier.digest.next_digest_ms): the first
time after now at the player's hour, at most one span away."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.notifier.digest import HOUR_MS, next_digest_ms

DAY_S = 86_400


@given(
    now_ms=st.integers(0, 2**45),
    hour=st.integers(0, 23),
    every_s=st.sampled_from([1, 6, 3600, DAY_S]),
)
def test_the_next_digest_is_after_now_within_one_span_on_the_hour(
    now_ms: int, hour: int, every_s: int
) -> None:
    at = next_digest_ms(now_ms, hour, every_s)
    assert now_ms < at <= now_ms + every_s * 1000
    assert (at - hour * HOUR_MS) % (every_s * 1000) == 0


def test_a_daily_digest_is_at_the_hour_utc() -> None:
    midnight = 20_000 * DAY_S * 1000  # a day's start, UTC
    assert next_digest_ms(midnight + 1, 8, DAY_S) == midnight + 8 * HOUR_MS
    assert next_digest_ms(midnight + 8 * HOUR_MS, 8, DAY_S) == midnight + (24 + 8) * HOUR_MS
