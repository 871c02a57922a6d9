"""Backups under Sentinel copy a replica that holds everything the primary had when the
backup began: one the sentinels count healthy may be behind, or still loading its first
copy after a failover, and a backup of it would silently lack the latest games."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from redis import Redis

from services.backup import replica_of
from services.core.local_redis import RedisServer
from services.core.local_sentinel import SentinelGroup
from services.core.settings import StoreSettings


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    # Sentinels slow to call a frozen replica down: it stays on their list meanwhile.
    started = SentinelGroup(
        tmp_path_factory.mktemp("backup"), replicas=1, appendfsync="everysec", down_after_ms=8000
    ).start()
    yield started
    started.stop()


def settings_of(group: SentinelGroup) -> StoreSettings:
    return StoreSettings(redis_url=group.url, redis_sentinels=group.sentinel_addresses)


def nodes(group: SentinelGroup) -> tuple[Redis, RedisServer]:
    primary = group.primary_port()
    replica = next(n for n in group.nodes if n.port != primary)
    return Redis(port=primary), replica


def frozen(replica: RedisServer) -> int:
    assert replica.process is not None
    os.kill(replica.process.pid, signal.SIGSTOP)
    return replica.process.pid


def test_a_replica_that_holds_what_the_primary_has_is_copied(group: SentinelGroup) -> None:
    primary, replica = nodes(group)
    primary.set("before-the-backup", "1")
    host, port = replica_of(settings_of(group), catch_up_s=10)
    assert port == replica.port
    assert Redis(host=host, port=port).get("before-the-backup") == b"1"


def test_a_backup_waits_for_the_replica_to_hold_what_the_primary_had(
    group: SentinelGroup,
) -> None:
    primary, replica = nodes(group)
    pid = frozen(replica)
    primary.set("written-while-the-replica-was-behind", "2")
    thaw = threading.Timer(1.0, os.kill, (pid, signal.SIGCONT))
    thaw.start()
    started = time.monotonic()
    try:
        host, port = replica_of(settings_of(group), catch_up_s=20)
    finally:
        thaw.join()
    assert port == replica.port and time.monotonic() - started >= 0.9
    assert Redis(host=host, port=port).get("written-while-the-replica-was-behind") == b"2"


def test_the_primary_is_copied_when_no_replica_catches_up_in_time(group: SentinelGroup) -> None:
    primary, replica = nodes(group)
    pid = frozen(replica)
    try:
        primary.set("only-the-primary-has-this", "3")
        host, port = replica_of(settings_of(group), catch_up_s=0.5)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert port == group.primary_port()
    assert Redis(host=host, port=port).get("only-the-primary-has-this") == b"3"
