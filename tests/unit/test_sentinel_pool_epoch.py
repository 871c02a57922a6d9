"""Which primary the pool follows when sentinels disagree: the one named with the highest
config epoch. A sentinel that has not yet heard of a failover names the old primary, and
once that is thawed it looks healthy; following it sent an append there (the flaky
tests/integration/test_stale_primary.py)."""

from __future__ import annotations

from typing import Any

from redis.asyncio.sentinel import Sentinel

from services.core.eventstore.connect import listener_client
from services.core.eventstore.sentinel_pool import BlockingSentinelPool, EpochSentinelPool
from services.core.settings import StoreSettings


def state(port: int, epoch: int) -> dict[str, Any]:
    """A primary's state as ``SENTINEL MASTERS`` gives it (parsed by redis-py)."""
    return {
        "name": "raffe",
        "ip": "127.0.0.1",
        "port": port,
        "config-epoch": epoch,
        "flags": "master",
        "is_master": True,
        "is_sdown": False,
        "is_odown": False,
        "num-other-sentinels": 2,
    }


def pool() -> BlockingSentinelPool:
    client = Sentinel([("127.0.0.1", 1)]).master_for(
        "raffe", connection_pool_class=BlockingSentinelPool
    )
    found = client.connection_pool
    assert isinstance(found, BlockingSentinelPool)
    return found


def test_the_primary_named_with_the_newest_epoch_wins_whatever_the_order() -> None:
    assert pool()._newest([state(7001, 0), state(7002, 1)]) == ("127.0.0.1", 7002)
    assert pool()._newest([state(7002, 1), state(7001, 0)]) == ("127.0.0.1", 7002)


def test_a_sentinel_behind_the_followed_epoch_does_not_move_the_pool_back() -> None:
    followed = pool()
    assert followed._newest([state(7002, 1)]) == ("127.0.0.1", 7002)
    followed.master_address = ("127.0.0.1", 7002)
    # Only the stale sentinel answers (the others slow or restarting).
    assert followed._newest([state(7001, 0)]) == ("127.0.0.1", 7002)
    assert followed._newest([state(7003, 2)]) == ("127.0.0.1", 7003)  # a later failover


def test_an_older_primary_is_not_followed_while_a_newer_one_is_being_promoted() -> None:
    """One sentinel has the new configuration, its primary not yet vouched for (the
    promotion under way); another, behind, names the old primary, thawed and healthy.
    A pool that had not yet moved followed the old one: a write there is lost when it is
    made a replica (a gap the failover test's rare 422s may have come through). It
    follows none until the new primary is named."""
    promoting = {**state(7002, 2), "flags": "master,s_down", "is_sdown": True}
    assert pool()._newest([state(7001, 1), promoting]) is None
    assert pool()._newest([state(7001, 1), state(7002, 2)]) == ("127.0.0.1", 7002)


def test_no_sentinel_naming_a_healthy_primary_names_none() -> None:
    down = {**state(7001, 0), "is_odown": True, "flags": "master,o_down"}
    assert pool()._newest([down]) is None


def test_the_live_hubs_listener_settles_by_epoch_too() -> None:
    """The pub/sub connection of the live hub has a pool of its own: it too follows the
    newest epoch, or a stale sentinel would subscribe it on a thawed old primary, where
    no move is published."""
    settings = StoreSettings(redis_sentinels="127.0.0.1:1,127.0.0.1:2")
    pool = listener_client(settings).connection_pool
    assert isinstance(pool, EpochSentinelPool)
    assert pool._newest([state(7001, 0), state(7002, 1)]) == ("127.0.0.1", 7002)
