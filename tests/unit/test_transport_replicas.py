"""Which engine targets list replicas for the command lanes (services.core.transport.replicas)."""

from __future__ import annotations

from services.core.transport.replicas import ReplicaChannels, channel_target


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
