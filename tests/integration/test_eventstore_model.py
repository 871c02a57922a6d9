"""A hypothesis state machine drives appends (right and wrong versions, retries, reads)
against the real store and an in-memory model, and checks they agree after every step:
versions, game streams, partition logs and the attended logs (the runners' share)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from services.core.errors import VersionConflict
from services.core.eventstore import NewEvent, open_store
from services.core.eventstore.store import parse_log_entry
from services.core.local_redis import RedisCluster as LocalCluster
from services.core.settings import StoreSettings

T = TypeVar("T")
GAMES = ["alpha", "bravo", "charlie", "delta"]
ATTENDED = {"alpha", "charlie"}  # created attended; the others not


class StoreMachine(RuleBasedStateMachine):
    url = ""
    cluster = False

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        # 4 partitions so that several games share a partition log.
        config = StoreSettings(
            key_prefix="m" + uuid.uuid4().hex[:10], partitions=4, cluster=self.cluster
        )
        self.store = self.run(open_store(config.model_copy(update={"redis_url": self.url})))
        self.events: dict[str, list[tuple[str, str]]] = {g: [] for g in GAMES}
        self.results: dict[tuple[str, str], tuple[int, int]] = {}
        # The first version each game's events go to the attended log from.
        self.attended_from = {g: 1 if g in ATTENDED else 2**62 for g in GAMES}

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        self.run(self.store.redis.aclose())
        self.loop.close()

    async def _append(
        self, game: str, expected: int, command_id: str, types: list[str], follow: bool = False
    ) -> Any:
        batch = [NewEvent(id=str(uuid.uuid4()), type=t, payload=t.encode()) for t in types]
        # Whether a game is attended is set when it is created: later appends saying "no"
        # change nothing; one saying "yes" (``follow``) makes it attended from then on.
        attended = follow or (game in ATTENDED and expected == 0)
        result = await self.store.append(
            game,
            "model",
            expected,
            command_id,
            batch,
            time_ms=5,
            engine_version="m",
            attended=attended,
        )
        return result, batch

    @rule(
        game=st.sampled_from(GAMES),
        types=st.lists(st.sampled_from(["A", "B", "Cé"]), min_size=1, max_size=4),
    )
    def append_at_the_current_version(self, game: str, types: list[str]) -> None:
        command_id = uuid.uuid4().hex
        version = len(self.events[game])
        result, batch = self.run(self._append(game, version, command_id, types))
        assert not result.duplicate
        assert (result.first_version, result.version) == (version + 1, version + len(types))
        self.events[game] += [(e.id, e.type) for e in batch]
        self.results[(game, command_id)] = (result.version, result.count)

    @rule(game=st.sampled_from(GAMES))
    def append_asking_the_runners_to_follow(self, game: str) -> None:
        version = len(self.events[game])
        result, batch = self.run(self._append(game, version, uuid.uuid4().hex, ["F"], True))
        self.events[game] += [(e.id, e.type) for e in batch]
        self.attended_from[game] = min(self.attended_from[game], result.first_version)

    @rule(
        game=st.sampled_from(GAMES), delta=st.integers(min_value=1, max_value=5), down=st.booleans()
    )
    def append_at_a_wrong_version(self, game: str, delta: int, down: bool) -> None:
        current = len(self.events[game])
        wrong = current - delta if down else current + delta
        if wrong < 0:
            wrong = current + delta
        try:
            self.run(self._append(game, wrong, uuid.uuid4().hex, ["X"]))
        except VersionConflict as conflict:
            assert conflict.current == current
        else:
            raise AssertionError("a wrong version was accepted")

    @rule(data=st.data(), expected=st.integers(min_value=0, max_value=30))
    def retry_a_known_command(self, data: st.DataObject, expected: int) -> None:
        if not self.results:
            return
        game, command_id = data.draw(st.sampled_from(sorted(self.results)))
        result, _ = self.run(self._append(game, expected, command_id, ["Retry"]))
        assert result.duplicate
        assert (result.version, result.count) == self.results[(game, command_id)]

    @rule(partition=st.integers(min_value=0, max_value=3), data=st.data())
    def resume_a_partition_log_anywhere(self, partition: int, data: st.DataObject) -> None:
        """A reader resuming at any position (inside an append's entry too) reads the
        rest of the log, in a few reads of ``count`` appends each, and no event twice."""
        whole = self.run(self.store.read_partition(partition, 0, count=10_000))
        head = self.run(self.store.partition_head(partition))
        assert [e.position for e in whole] == list(range(1, head + 1))
        start = data.draw(st.integers(min_value=0, max_value=head))
        count = data.draw(st.integers(min_value=1, max_value=3))
        read: list[Any] = []
        after = start
        while more := self.run(self.store.read_partition(partition, after, count=count)):
            read += more
            after = more[-1].position
        assert read == whole[start:]  # positions are 1..head: the events past ``start``

    @rule(game=st.sampled_from(GAMES), after=st.integers(min_value=0, max_value=12))
    def read_a_game(self, game: str, after: int) -> None:
        read = self.run(self.store.read_game(game, after))
        assert [(e.id, e.type) for e in read] == self.events[game][after:]
        assert [e.version for e in read] == list(range(after + 1, len(self.events[game]) + 1))

    @invariant()
    def versions_and_partition_logs_agree(self) -> None:
        for game in GAMES:
            assert self.run(self.store.version(game)) == len(self.events[game])
        logged: dict[str, list[tuple[str, str]]] = {g: [] for g in GAMES}
        for p in range(4):
            for e in self.run(self.store.read_partition(p, 0, count=10_000)):
                logged[e.game_id].append((e.id, e.type))
        assert logged == self.events

    @invariant()
    def attended_logs_hold_the_attended_games_entries_under_their_ids(self) -> None:
        redis, keys = self.store.redis, self.store.keys
        for p in range(4):
            log = self.run(redis.xrange(keys.log(p)))
            attended = self.run(redis.xrange(keys.attended(p)))
            since = self.attended_from
            assert attended == [
                (eid, f) for eid, f in log if _first_version(eid, f) >= since[f[b"g"].decode()]
            ]


def _first_version(entry_id: bytes, fields: dict[bytes, bytes]) -> int:
    """The version of the first event of the append a log entry holds."""
    return parse_log_entry(entry_id, fields)[0].version


MACHINE_SETTINGS = settings(
    max_examples=25,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_store_agrees_with_the_model(redis_url: str) -> None:
    StoreMachine.url, StoreMachine.cluster = redis_url, False
    StoreMachine.TestCase.settings = MACHINE_SETTINGS
    StoreMachine.TestCase().runTest()


@pytest.mark.cluster
def test_store_agrees_with_the_model_on_a_cluster(redis_cluster: LocalCluster) -> None:
    StoreMachine.url, StoreMachine.cluster = redis_cluster.url, True
    StoreMachine.TestCase.settings = settings(MACHINE_SETTINGS, max_examples=10)
    StoreMachine.TestCase().runTest()
