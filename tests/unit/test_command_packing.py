"""Commands packed in C (services.core.eventstore.packing) are byte for byte what
redis-py's own packer sends, and refused the same way."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio.connection import Connection
from redis.exceptions import DataError

from services.core.eventstore.packing import PackedConnection

ARGS = st.one_of(
    st.text(),
    st.binary(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.binary(min_size=7000, max_size=9000),  # past redis-py's chunking cutoff
)
NAMES = st.sampled_from(["EVALSHA", "SCRIPT LOAD", b"CLIENT SETNAME", "XADD", b"GET"])


@given(name=NAMES, args=st.lists(ARGS, max_size=40))
def test_the_same_bytes_as_redis_py(name: str | bytes, args: list[object]) -> None:
    ours, theirs = PackedConnection(), Connection()
    assert b"".join(ours.pack_command(name, *args)) == b"".join(theirs.pack_command(name, *args))


@pytest.mark.parametrize("bad", [None, True, {"a": 1}])
def test_what_redis_py_refuses_is_refused_alike(bad: object) -> None:
    with pytest.raises(DataError):
        PackedConnection().pack_command("SET", "key", bad)
