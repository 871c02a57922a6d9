"""A live stream's place in the gateway's counts (gateway.live.admission): taken when
admitted, given back once however often its release is called (a stream's end may be
reached by its body and by the app closing it), and an address with no stream left is
forgotten (the counts are per client address: a crowd must not leave one key each)."""

from __future__ import annotations

from collections import Counter

from gateway.live.admission import Admission


def test_a_place_is_given_back_once_and_an_address_with_none_is_forgotten() -> None:
    counts: Counter[str] = Counter()
    first, second = Admission(counts, "203.0.113.1"), Admission(counts, "203.0.113.1")
    other = Admission(counts, "203.0.113.2")
    assert counts == {"203.0.113.1": 2, "203.0.113.2": 1}
    first()
    first()  # its body ended it, then the app closed it: one place, given back once
    assert counts == {"203.0.113.1": 1, "203.0.113.2": 1}
    second()
    other()
    assert counts == {} and not counts.total()
