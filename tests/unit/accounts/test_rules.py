"""The account rules (services.accounts.rules), pure: any sequence of commands keeps an
account within its bounds, folding the events gives the state deciding saw, and what
ends a session is what revokes its token."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from argon2 import PasswordHasher
from hypothesis import given, settings
from hypothesis import strategies as st

from services.accounts import rules, sealing
from services.accounts.events import TYPES, SessionOpened
from services.accounts.passwords import Passwords
from services.accounts.rules import Account
from services.kernel.errors import RaffeError
from services.kernel.events import stored

Command = tuple[str, Any]


def opened(i: int, kind: str, scopes: list[str] | None = None) -> SessionOpened:
    return SessionOpened(
        session_id=f"{i:016x}",
        kind=kind,
        token_hash=f"h{i}",
        scopes=scopes or (["read", "play", "account"] if kind == "session" else ["play"]),
        label="",
        expires_ms=0 if kind == "token" else 10**13,
    )


commands = st.lists(
    st.one_of(
        st.tuples(st.just("session"), st.none()),
        st.tuples(st.just("token"), st.none()),
        st.tuples(st.just("close"), st.integers(0, 80)),
        st.tuples(st.just("everywhere"), st.none()),
        st.tuples(st.just("claim"), st.none()),
        st.tuples(st.just("erase"), st.none()),
    ),
    max_size=150,
)


def decide(state: Account, command: Command, now: int) -> list[Any]:
    kind, arg = command
    if kind in ("session", "token"):  # ids and token hashes are unique, as drawn ones are
        return rules.open_session(state, opened(now, kind), now)
    if kind == "close":
        live = state.sessions[arg % len(state.sessions)] if state.sessions else None
        return rules.close_session(state, live.session_id if live else "0" * 16, "session")
    if kind == "everywhere":
        return rules.sign_out_everywhere(state)
    if kind == "claim":
        return rules.claim(state, "n", "p")
    return rules.erase(state)


@settings(max_examples=60, deadline=None)
@given(st.booleans(), commands)
def test_an_account_stays_within_its_bounds(guest: bool, script: list[Command]) -> None:
    state = Account()
    log = []
    first = rules.register(state, guest, "name", "" if guest else "pw")
    for e in first:
        state = rules.evolve(state, e, 0)
        log.append((stored(e), 0))
    for now, command in enumerate(script, start=1):
        try:
            events = decide(state, command, now)
        except RaffeError:
            continue  # refused: nothing happens
        ended = {s.token_hash for s in rules.closed_by(state, events)}
        before = {s.token_hash for s in state.sessions}
        for e in events:
            state = rules.evolve(state, e, now)
            log.append((stored(e), now))
        after = {s.token_hash for s in state.sessions}
        # Exactly the sessions that ended lose their tokens (none vanish unrevoked).
        assert before - after == ended
        assert sum(s.kind == "session" for s in state.sessions) <= rules.MAX_SESSIONS
        assert sum(s.kind == "token" for s in state.sessions) <= rules.MAX_TOKENS
        if state.erased:
            assert state.sessions == () and state.name == "" and state.password == ""
    assert rules.fold(log) == state


def test_an_erased_account_decides_nothing() -> None:
    state = rules.fold([(stored(e), 0) for e in rules.register(Account(), True, "n", "")])
    state = rules.evolve(state, rules.erase(state)[0], 1)
    for decide_again in (
        lambda: rules.open_session(state, opened(1, "session"), 2),
        lambda: rules.claim(state, "n", "p"),
        lambda: rules.erase(state),
    ):
        with pytest.raises(RaffeError) as refused:
            decide_again()
        assert refused.value.code == "account_erased"


def test_a_token_cannot_manage_the_account_and_tokens_are_bounded() -> None:
    state = rules.fold([(stored(e), 0) for e in rules.register(Account(), False, "n", "p")])
    with pytest.raises(RaffeError) as refused:
        rules.open_session(state, opened(1, "token", ["account"]), 1)
    assert refused.value.code == "bad_scope"
    for i in range(rules.MAX_TOKENS):
        state = rules.evolve(state, rules.open_session(state, opened(i, "token"), i)[0], i)
    with pytest.raises(RaffeError) as full:
        rules.open_session(state, opened(99, "token"), 99)
    assert full.value.code == "too_many_tokens"
    assert set(TYPES) >= {"Registered", "SessionOpened", "Erased"}


def test_a_sealed_name_opens_only_with_its_key_and_account() -> None:
    key = sealing.new_key()
    name = "Zoë Quartermaine"
    sealed = sealing.seal(key, "pl1", name)
    # (a short name could turn up by chance in the base64 ciphertext: 12 letters do not)
    assert "Quartermaine" not in sealed and sealing.open_sealed(key, "pl1", sealed) == name
    assert sealing.open_sealed(key, "pl2", sealed) is None  # copied to another account
    assert sealing.open_sealed(sealing.new_key(), "pl1", sealed) is None
    assert sealing.open_sealed(None, "pl1", sealed) is None  # the key was erased


class CountingHasher(PasswordHasher):
    """Real argon2, counting the hashes verified."""

    verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        CountingHasher.verified += 1
        return super().verify(hash, password)


def test_no_such_account_still_costs_one_argon2_verification() -> None:
    passwords = Passwords(time_cost=1, memory_kib=64)
    passwords.hasher = CountingHasher(time_cost=1, memory_cost=64, parallelism=1)
    hashed = passwords.hash("right password")
    assert passwords.verify(hashed, "right password")
    assert not passwords.verify(hashed, "wrong password")
    assert not passwords.verify(None, "any password")
    assert CountingHasher.verified == 3


def test_follows_are_kept_once_never_of_oneself_and_end_with_the_account() -> None:
    """docs/social.md: following again or unfollowing someone not followed appends
    nothing; nobody follows themself; an erased account follows nobody."""
    state = rules.fold([(stored(e), 1) for e in rules.register(Account(), False, "n", "p")])

    def after(events: list[Any]) -> Account:
        return rules.fold([(stored(e), 2) for e in events], state)

    assert rules.follow(state, "me", "you")
    state = after(rules.follow(state, "me", "you"))
    assert state.following == {"you"}
    assert rules.follow(state, "me", "you") == []
    assert rules.unfollow(state, "nobody") == []
    with pytest.raises(RaffeError) as refused:
        rules.follow(state, "me", "me")
    assert refused.value.code == "self"
    assert after(rules.unfollow(state, "you")).following == frozenset()
    assert after(rules.erase(state)).following == frozenset()


def test_a_block_ends_a_follow_and_is_kept_once() -> None:
    state = rules.fold([(stored(e), 1) for e in rules.register(Account(), False, "n", "p")])

    def after(events: list[Any]) -> Account:
        return rules.fold([(stored(e), 2) for e in events], state)

    state = after(rules.follow(state, "me", "you"))
    state = after(rules.block(state, "me", "you"))
    assert state.blocking == {"you"} and state.following == frozenset()
    assert rules.block(state, "me", "you") == []
    with pytest.raises(RaffeError):
        rules.block(state, "me", "me")
    assert after(rules.unblock(state, "you")).blocking == frozenset()
