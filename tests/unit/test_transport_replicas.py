"""Which engine targets list replicas for the command lanes (services.core.transport.replicas)."""

from __future__ import annotations

import uuid
from collections import Counter

from services.core.transport.replicas import ReplicaChannels, channel_target, home, rank


async def test_targets_that_list_replicas_and_those_that_do_not() -> None:
    listed = ReplicaChannels.of("ipv4:127.0.0.1:5001,127.0.0.1:5002", [])
    assert listed is not None and sorted(listed.replicas) == ["127.0.0.1:5001", "127.0.0.1:5002"]
    await listed.close()
    named = ReplicaChannels.of("dns:///raffe-giraffometer:50062", [])
    assert named is not None and (named.host, named.port) == ("raffe-giraffometer", 50062)
    authority = ReplicaChannels.of("dns://10.0.0.10/raffe-riff-raff:50063", [])
    assert authority is not None and (authority.host, authority.port) == ("raffe-riff-raff", 50063)
    bare = ReplicaChannels.of("dns:///raffe-engine", [])
    assert bare is not None and (bare.host, bare.port) == ("raffe-engine", 443)
    assert ReplicaChannels.of("127.0.0.1:50061", []) is None  # one address: the shared channel
    assert ReplicaChannels.of("ipv4:127.0.0.1:50061", []) is None
    assert channel_target("[::1]:5001") == "ipv6:[::1]:5001"
    assert channel_target("10.0.0.1:5001") == "ipv4:10.0.0.1:5001"


def test_a_games_home_is_its_hash_but_a_groups_tables_take_the_replicas_in_turn() -> None:
    replicas = [f"10.0.0.{i}:50061" for i in range(1, 5)]
    for game_id in (uuid.uuid4().hex for _ in range(20)):  # rendezvous: the highest rank
        assert home(replicas, game_id) == max(replicas, key=lambda a: rank(a, game_id))
        assert home(list(reversed(replicas)), game_id) == home(replicas, game_id)
    for group in (f"{uuid.uuid4().hex}-r{n}" for n in range(1, 6)):
        tables = [home(replicas, f"{group}-t{t}") for t in range(10)]
        assert sorted(Counter(tables).values()) == [2, 2, 3, 3]  # 10 over 4, in turn
        assert tables[:4] == tables[4:8] and len(set(tables[:4])) == 4
    # Not a table: a hyphen, "t" and digits must end the id.
    assert home(replicas, "abc-t") == max(replicas, key=lambda a: rank(a, "abc-t"))
