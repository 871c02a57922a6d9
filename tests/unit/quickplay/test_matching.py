"""Forming quick-play tables (services.quickplay.matching), pure: whatever the queue, no
player sits twice, every table has a player and its size, a table with bots forms only
once its oldest player's wait is up, and players far apart in rating are not seated
together before their windows have grown to reach."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.quickplay.matching import BASE_WINDOW, Waiting, bot_level, tables, window

queues = st.lists(
    st.builds(
        Waiting,
        st.sampled_from([f"pl{i}" for i in range(12)]),
        st.integers(0, 60_000),
        st.floats(-20, 60, allow_nan=False),
    ),
    max_size=12,
    unique_by=lambda w: w.player,
)


@settings(max_examples=200, deadline=None)
@given(queues, st.integers(2, 5), st.integers(0, 90_000), st.integers(0, 60_000))
def test_tables_seat_each_player_once_and_only_when_due(
    waiting: list[Waiting], size: int, now: int, bots_after: int
) -> None:
    now = max(now, max((w.joined_ms for w in waiting), default=0))
    formed = tables(waiting, size, now, bots_after)
    seated = [p for t in formed for p in t if p is not None]
    assert len(seated) == len(set(seated))
    by_player = {w.player: w for w in waiting}
    for table in formed:
        assert len(table) == size
        players = [by_player[p] for p in table if p is not None]
        assert players
        oldest = min(players, key=lambda w: (w.joined_ms, w.player))
        if None in table:  # bots only once the oldest has waited long enough
            assert now - oldest.joined_ms >= bots_after
        reach = window(now - oldest.joined_ms)
        assert all(abs(w.score - oldest.score) <= reach for w in players)


def test_near_players_sit_at_once_and_far_ones_wait() -> None:
    near = [Waiting("a", 0, 1.0), Waiting("b", 10, 2.0)]
    assert tables(near, 2, 20, 30_000) == [["a", "b"]]
    far = [Waiting("a", 0, 0.0), Waiting("b", 10, BASE_WINDOW + 100)]
    assert tables(far, 2, 20, 30_000) == []
    # Once due, each sits with a bot (their windows, 35 points, still do not meet).
    assert tables(far, 2, 30_000, 30_000) == [["a", None]]
    assert tables(far, 2, 30_010, 30_000) == [["a", None], ["b", None]]
    # The window widens with the wait: 20 points apart meet after 15 s.
    apart = [Waiting("a", 0, 0.0), Waiting("b", 0, 20.0)]
    assert tables(apart, 2, 14_000, 60_000) == []
    assert tables(apart, 2, 15_000, 60_000) == [["a", "b"]]


def test_bots_are_the_level_rated_nearest_the_table() -> None:
    levels: dict[str, float | None] = {"random": -5.0, "heuristic": 8.0, "expert": None}
    assert bot_level([7.0, 10.0], levels, "heuristic") == "heuristic"
    assert bot_level([-3.0], levels, "heuristic") == "random"
    assert bot_level([5.0], {"random": None}, "normal") == "normal"
