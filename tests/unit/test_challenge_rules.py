"""A challenge's rules (services/challenges/rules.py): open until answered, taken back or
past its time; only the invitee answers, only the challenger takes it back; folding its
events gives the same state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from services.challenges import rules
from services.challenges.rules import Challenge
from services.kernel.errors import RaffeError
from services.kernel.events import stored


def issued(expires_ms: int = 1_000) -> Challenge:
    events = rules.issue(Challenge(), "ann", "bob", "giraffometer", 2, {}, expires_ms)
    return rules.fold([(stored(e), 0) for e in events])


def test_an_open_challenge_expires_at_its_time() -> None:
    ch = issued(expires_ms=1_000)
    assert ch.shown_state(999) == "open" and ch.shown_state(1_000) == "expired"
    with pytest.raises(RaffeError) as late:
        rules.accept(ch, "bob", "g", 1_000)
    assert late.value.code == "challenge_expired"
    assert rules.accept(ch, "bob", "g", 999)


@pytest.mark.parametrize(
    ("decide", "code"),
    [
        (lambda ch: rules.accept(ch, "ann", "g", 0), "not_yours"),
        (lambda ch: rules.decline(ch, "ann", "generic", 0), "not_yours"),
        (lambda ch: rules.cancel(ch, "bob", 0), "not_yours"),
        (lambda ch: rules.decline(ch, "bob", "rude", 0), "bad_reason"),
        (lambda ch: rules.issue(ch, "ann", "bob", "giraffometer", 2, {}, 5), "exists"),
    ],
)
def test_who_may_do_what(decide: Callable[[Challenge], object], code: str) -> None:
    with pytest.raises(RaffeError) as refused:
        decide(issued())
    assert refused.value.code == code


def test_answered_is_final_and_folds_back() -> None:
    ch = issued()
    events = rules.accept(ch, "bob", "game-1", 0)
    after = rules.fold([(stored(e), 0) for e in events], ch)
    assert (after.state, after.game_id, after.version) == ("accepted", "game-1", 2)
    with pytest.raises(RaffeError) as again:
        rules.decline(after, "bob", "generic", 0)
    assert again.value.code == "challenge_accepted"
    with pytest.raises(RaffeError) as none:
        rules.accept(Challenge(), "bob", "g", 0)
    assert none.value.code == "no_challenge"
