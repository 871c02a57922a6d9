"""Key layout, settings and the generated protobuf contract."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.core.errors import InvalidArgument
from services.core.eventstore import Keys, check_game_id
from services.core.settings import StoreSettings

GAME_IDS = st.from_regex(r"\A[A-Za-z0-9_-]{1,64}\Z")


@given(GAME_IDS, st.integers(min_value=1, max_value=1024))
def test_every_key_of_a_game_shares_its_partition_tag(game_id: str, partitions: int) -> None:
    keys = Keys("raffe", partitions)
    p = keys.partition_of(game_id)
    assert 0 <= p < partitions
    tags = {re.search(r"\{[^}]*\}", k).group(0) for k in keys.append_keys(game_id)}
    assert tags == {f"{{p:{p:02d}}}"}


@given(GAME_IDS, st.integers(min_value=1, max_value=1024))
def test_the_append_script_gets_the_keys_each_key_function_names(
    game_id: str, partitions: int
) -> None:
    keys = Keys("raffe", partitions)
    p = keys.partition_of(game_id)
    named = [keys.game(game_id), keys.meta(game_id), keys.commands(game_id)]
    assert keys.append_keys(game_id) == [*named, keys.log(p), keys.log_seq(p), keys.attended(p)]


@pytest.mark.parametrize("bad", ["", "a b", "x" * 65, "a{b}", "é", "a:b"])
def test_game_ids_outside_the_charset_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidArgument):
        check_game_id(bad)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAFFE_PARTITIONS", "16")
    monkeypatch.setenv("RAFFE_REDIS_CLUSTER", "true")
    settings = StoreSettings.from_env()
    assert (settings.partitions, settings.cluster) == (16, True)
    assert settings.max_event_bytes == 64 * 1024


def test_generated_protobuf_round_trips() -> None:
    from raffe.v1 import common_pb2, common_pb2_grpc

    event = common_pb2.Event(id="e", game_id="g", version=3, type="CardsPlayed", actor_seat=-1)
    assert common_pb2.Event.FromString(event.SerializeToString()) == event
    assert hasattr(common_pb2_grpc, "EngineServicer")
