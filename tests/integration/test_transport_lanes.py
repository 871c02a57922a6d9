"""Commands multiplexed over ExecuteBatches streams (services.core.transport.lanes), against a
real Giraffometer engine on loopback: the same answers and typed errors as unary calls,
many commands in flight at once, engines that go away and come back, and bugs."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import grpc
import pytest

from raffe.v1 import common_pb2, common_pb2_grpc
from raffe.v1.common_pb2_grpc import EngineServicer
from services.core.engine_service import EngineService
from services.core.errors import RuleViolation, UnknownGame, VersionConflict
from services.core.grpc_errors import EngineUnavailable
from services.core.server import start_engine
from services.core.settings import ServiceSettings, StoreSettings
from services.core.transport import EngineClient
from services.core.transport.lanes import Lane
from services.core.transport.replicas import rank
from services.giraffometer.game import GAME
from services.kernel.game import Game, SeatSpec
from tests.engine_fixtures import cid, running_engine

VOTE = {"type": "vote", "lowest": 5, "highest": 3}


@pytest.fixture
def store(redis_url: str, store_settings: StoreSettings) -> StoreSettings:
    return store_settings.model_copy(update={"redis_url": redis_url})


@asynccontextmanager
async def unary_and_streamed(
    game: Game[Any], store: StoreSettings
) -> AsyncIterator[tuple[EngineClient, EngineClient]]:
    """One engine, and a unary and a multiplexed client of it."""
    async with running_engine(game, store, multiplexed=True) as (streamed, engine):
        unary = EngineClient.connect(f"127.0.0.1:{engine.port}")
        try:
            yield unary, streamed
        finally:
            await unary.close()


async def test_streams_answer_as_unary_calls_do(store: StoreSettings) -> None:
    async with unary_and_streamed(GAME, store) as (unary, streamed):
        games = [(await unary.create([SeatSpec("human")] * 3, {})).game_id for _ in range(2)]
        one = await unary.execute(games[0], 0, VOTE, "same-id", 3)
        two = await streamed.execute(games[1], 0, VOTE, "same-id", 3)
        assert (one.version, len(one.events), one.view.keys()) == (
            two.version,
            len(two.events),
            two.view.keys(),
        )
        again = await streamed.execute(games[1], 0, VOTE, "same-id", 3)
        assert again.duplicate and again.version == two.version
        with pytest.raises(VersionConflict) as conflict:
            await streamed.execute(games[1], 1, VOTE, cid(), 3)
        assert conflict.value.current == two.version
        with pytest.raises(RuleViolation):  # seat 0 has voted already
            await streamed.execute(games[1], 0, VOTE, cid(), two.version)
        with pytest.raises(UnknownGame):
            await streamed.execute("no-such-game", 0, VOTE, cid(), 1)


async def test_many_commands_in_flight_each_get_their_own_answer(store: StoreSettings) -> None:
    async with running_engine(GAME, store, multiplexed=True) as (client, _):
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(40)]
        results = await asyncio.gather(*(client.execute(g, 0, VOTE, cid(), 3) for g in games))
        for game, result in zip(games, results, strict=True):
            assert result.version == 4 and result.events[0]["game_id"] == game
        assert client.streams is not None and len(client.streams._lanes) == client.streams.lanes


async def test_a_command_sent_while_the_engine_restarts_goes_through_once(
    store: StoreSettings,
) -> None:
    async with running_engine(GAME, store, multiplexed=True) as (client, engine):
        game = (await client.create([SeatSpec("human")] * 3, {})).game_id
        await client.execute(game, 0, VOTE, cid(), 3)  # the lanes are open
        await engine.stop(grace=0)
        sending = asyncio.create_task(client.execute(game, 1, VOTE, "while-down", 4))
        await asyncio.sleep(0.1)  # its lane ends; it waits to be sent again
        settings = ServiceSettings(host="127.0.0.1", port=engine.port, store=store)
        again = await start_engine(GAME, settings)
        try:
            result = await sending
            assert result.version == 5 and not result.duplicate
            _, events = await client.events(game, -1)
            assert [e["command_id"] for e in events].count("while-down") == 1
        finally:
            await again.stop(grace=1)


async def test_without_an_engine_a_command_fails_as_unavailable(store: StoreSettings) -> None:
    """It is sent again and again (backing off) until its time is up, then fails typed."""
    async with running_engine(GAME, store) as (_, engine):
        await engine.stop(grace=0)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine.port}")
        client = EngineClient(channel, timeout=1.0, multiplexed=True)
        try:
            with pytest.raises(EngineUnavailable):
                await client.execute("any-game", 0, VOTE, cid(), 1)
            assert client.streams is not None
            await asyncio.sleep(1.2)  # past the longest backoff
            waiting = [s for lane in client.streams._lanes for s in lane.pending.values()]
            assert all(s.answer.done() for s in waiting)  # given up: nothing waits for one
        finally:
            await client.close()


def _broken_decide(*args: object, **kwargs: object) -> list[object]:
    raise ZeroDivisionError("a bug in a game's rules")


async def test_a_bug_is_an_internal_error_on_both_paths_and_the_engine_serves_on(
    store: StoreSettings,
) -> None:
    """The real gRPC server over a game whose decide has a bug: unary and streamed
    commands both end as INTERNAL (no details, so EngineUnavailable for clients)."""
    async with unary_and_streamed(replace(GAME, decide=_broken_decide), store) as clients:
        unary, streamed = clients
        game = (await unary.create([SeatSpec("human")] * 3, {})).game_id
        for client in clients:
            with pytest.raises(EngineUnavailable, match="internal error"):
                await client.execute(game, 0, VOTE, cid(), 3)
        assert (await streamed.view(game, 0))[0] == 3  # nothing appended, still serving


@asynccontextmanager
async def counted_replicas(
    store: StoreSettings, n: int
) -> AsyncIterator[tuple[list[Any], list[list[str]]]]:
    """``n`` replicas of the engine, and per replica the game of each command it ran."""
    settings = ServiceSettings(host="127.0.0.1", port=0, store=store)
    replicas = [await start_engine(GAME, settings) for _ in range(n)]
    served: list[list[str]] = [[] for _ in replicas]
    for i, replica in enumerate(replicas):

        async def counted(
            game_id: str, *args: Any, i: int = i, run: Any = replica.runtime.execute, **kw: Any
        ) -> Any:
            served[i].append(game_id)
            return await run(game_id, *args, **kw)

        replica.runtime.execute = counted
    try:
        yield replicas, served
    finally:
        for replica in replicas:  # one a test stopped already: a no-op
            await replica.stop(grace=1)


def count_creations(replicas: list[Any]) -> list[list[str]]:
    """Per replica, the id of each game created there (filled as they are)."""
    created: list[list[str]] = [[] for _ in replicas]
    for i, replica in enumerate(replicas):

        async def counted(
            *args: Any, i: int = i, run: Any = replica.runtime.create, **kw: Any
        ) -> Any:
            outcome = await run(*args, **kw)
            created[i].append(outcome.game_id)
            return outcome

        replica.runtime.create = counted
    return created


def target_of(replicas: list[Any]) -> str:
    return "ipv4:" + ",".join(f"127.0.0.1:{r.port}" for r in replicas)


async def test_a_games_commands_keep_to_one_replica_and_games_spread_over_both(
    store: StoreSettings,
) -> None:
    """Two replicas behind one target: each replica caches the games it serves, so a
    game's commands stay on the replica of its lane (no read and fold of what another
    replica appended), while the games, and the work, spread over both."""
    async with counted_replicas(store, 2) as (replicas, served):
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        try:
            # A lane keeps its games while it has at most 4 more unanswered than twice
            # the least busy's, so no burst of these makes a game move. (Sixteen games
            # are placed on both replicas but for odds of 3e-5.)
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(16)]
            for seat in range(3):  # every game's three votes, the games' commands at once
                order = random.Random(seat).sample(games, len(games))  # each round another
                await asyncio.gather(*(client.execute(g, seat, VOTE, cid()) for g in order))
        finally:
            await client.close()
    assert sorted(served[0] + served[1]) == sorted(games * 3)
    assert not set(served[0]) & set(served[1])  # no game was served by both
    assert served[0] and served[1]


async def test_a_game_is_created_on_the_replica_its_commands_go_to(
    store: StoreSettings,
) -> None:
    """Creations went round robin and a game's commands to its own replica, which then
    read and folded the game from the start at its first command; now both go there."""
    async with counted_replicas(store, 3) as (replicas, served):
        created = count_creations(replicas)
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        try:
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(12)]
            await asyncio.gather(*(client.execute(g, 0, VOTE, cid()) for g in games))
        finally:
            await client.close()
    assert [sorted(ids) for ids in created] == [sorted(ids) for ids in served]
    assert sum(map(bool, created)) >= 2  # spread (all on one of three: odds of 6e-6)


async def test_every_unary_call_about_a_game_goes_to_its_replica(
    store: StoreSettings,
) -> None:
    """A client without lanes (the bot, tournament and timer runners) sent its calls
    round robin, one after the other to each replica: most commands then reached a copy
    of the game behind the last one and read and folded it first. Now a game's views and
    commands all go to its own replica, as its lanes' do, where its cache is current."""
    async with counted_replicas(store, 3) as (replicas, served):
        created = count_creations(replicas)
        client = EngineClient.connect(target_of(replicas))
        viewed: list[list[str]] = [[] for _ in replicas]
        for i, replica in enumerate(replicas):

            async def counted(
                game_id: str,
                *args: Any,
                i: int = i,
                run: Any = replica.runtime.view_and_commands,
                **kw: Any,
            ) -> Any:
                viewed[i].append(game_id)
                return await run(game_id, *args, **kw)

            replica.runtime.view_and_commands = counted
        try:
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(6)]
            for seat in range(3):
                for g in games:
                    version, _, _, _ = await client.view_and_commands(g, seat)
                    await client.execute(g, seat, VOTE, cid(), version)
        finally:
            await client.close()
    assert [sorted(set(ids)) for ids in served] == [sorted(ids) for ids in created]
    assert [sorted(set(ids)) for ids in viewed] == [sorted(ids) for ids in created]
    assert all(created)


async def test_new_games_and_a_rounds_tables_spread_evenly_over_the_replicas(
    store: StoreSettings,
) -> None:
    """A game's replica was the hash of its id alone, which left some replicas more games
    than others (64 over 4: typically 12 to 20), and a tournament round waited on its
    busiest replica. A client's new games now take the replicas in turn, and so do the
    tables of a round, whichever process creates them."""
    async with counted_replicas(store, 3) as (replicas, _):
        created = count_creations(replicas)
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        try:
            for _ in range(12):  # exactly 4 each by chance: odds of 0.07
                await client.create([SeatSpec("human")] * 3, {})
            assert sorted(map(len, created)) == [4, 4, 4]
            round_ = uuid.uuid4().hex + "-r1"
            for table in range(6):  # exactly 2 each by chance: odds of 0.12
                await client.create([SeatSpec("human")] * 3, {}, game_id=f"{round_}-t{table}")
            assert sorted(sum(i.startswith(round_) for i in ids) for ids in created) == [2, 2, 2]
        finally:
            await client.close()


async def test_a_creation_whose_replica_is_gone_goes_to_another(store: StoreSettings) -> None:
    """A game is created on its own replica; one that does not answer (here an address
    nobody listens on, its channel not yet known to fail) leaves the creation to the
    others instead of failing it."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{probe.getsockname()[1]}"
    async with counted_replicas(store, 1) as (replicas, _):
        client = EngineClient.connect(f"{target_of(replicas)},{dead}", multiplexed=True)
        assert client.replicas is not None
        try:
            ids = [uuid.uuid4().hex for _ in range(40)]
            lost = [
                g for g in ids if max(client.replicas.replicas, key=lambda a: rank(a, g)) == dead
            ]
            made = [await client.create([SeatSpec("human")] * 3, {}, game_id=g) for g in lost]
            assert [c.game_id for c in made] == lost and lost  # half of them, but for 1e-12
            assert all([(await client.view(g, -1))[0] for g in lost])
        finally:
            await client.close()


async def test_two_gateways_send_a_game_to_the_same_replica(store: StoreSettings) -> None:
    """Two gateways, each with its own lanes, take turns at a game's commands: both send
    it to the game's own replica, so its cache holds the game current (each gateway
    chose the least busy lane of its own, and a table spread over two gateways moved
    between replicas at every move)."""
    async with counted_replicas(store, 3) as (replicas, served):
        gateways = [EngineClient.connect(target_of(replicas), multiplexed=True) for _ in "ab"]
        try:
            make = gateways[0].create
            games = [(await make([SeatSpec("human")] * 3, {})).game_id for _ in range(9)]
            # The second gateway served other tables before (its lanes' turn is elsewhere).
            others = [(await make([SeatSpec("human")] * 3, {})).game_id for _ in range(5)]
            for g in others:
                await gateways[1].execute(g, 0, VOTE, cid())
            for seat, client in enumerate((*gateways, gateways[0])):
                await asyncio.gather(*(client.execute(g, seat, VOTE, cid()) for g in games))
        finally:
            for client in gateways:
                await client.close()
    for g in games:
        assert sum(g in ids for ids in served) == 1, "a game served by one replica"
        assert sum(ids.count(g) for ids in served) == 3


async def test_games_on_one_replica_spread_over_its_idle_lanes(store: StoreSettings) -> None:
    """Two games whose last commands took the same lane send again at once while the
    other lanes idle: each goes on a lane of its own (any lane of the replica finds the
    game in its cache; kept to one lane, the second answer waited for the first's write)."""
    async with running_engine(GAME, store, multiplexed=True) as (client, engine):
        streams = client.streams
        assert streams is not None
        streams.lanes = 4
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(5)]
        for game in games:  # one at a time: lanes in turn, so the fifth shares the first's
            await client.execute(game, 0, VOTE, cid())
        assert streams._homes[games[0]] == streams._homes[games[4]]
        gate, run = asyncio.Event(), engine.runtime.execute

        async def held(*args: Any, **kwargs: Any) -> Any:
            await gate.wait()
            return await run(*args, **kwargs)

        engine.runtime.execute = held
        both = [asyncio.create_task(client.execute(g, 1, VOTE, cid())) for g in games[::4]]
        await asyncio.sleep(0)  # both sent, neither answered
        unanswered = sorted(len(lane.pending) for lane in streams._lanes)
        gate.set()
        assert all(r.version for r in await asyncio.gather(*both))
    assert unanswered == [0, 0, 1, 1]


async def test_a_burst_of_one_games_commands_stays_on_one_replica(store: StoreSettings) -> None:
    """Forty commands of one game at once (a tournament's registrations): its lane is far
    busier than the others, yet the game stays while its commands are unanswered there
    (moved, they raced each other from several replicas to one stream: 503 contended)."""
    async with counted_replicas(store, 3) as (replicas, served):
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        try:
            game = (await client.create([SeatSpec("human")] * 3, {})).game_id
            burst = [client.execute(game, i % 3, VOTE, cid()) for i in range(40)]
            await asyncio.gather(*burst, return_exceptions=True)  # second votes are refused
        finally:
            await client.close()
    assert sum(game in ids for ids in served) == 1, [ids.count(game) for ids in served]
    assert sum(ids.count(game) for ids in served) == 40


async def test_every_replica_gets_lanes_and_a_lost_one_hands_its_commands_on(
    store: StoreSettings,
) -> None:
    """Lanes opened through the shared round-robin channel landed wherever its turn fell,
    and there were 4 of them: a fifth or sixth replica never got a command. A lane now
    opens on replica i mod n, with as many lanes as replicas: every replica serves, lanes
    renewed or not. A replica stopped mid-play: its lanes end, and its games' commands go
    through on the others."""
    async with counted_replicas(store, 6) as (replicas, served):
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        assert client.streams is not None
        client.streams.lane_seconds = 0.05  # lanes replaced between the rounds below
        try:
            # Games are placed by id: with 60, every replica has one but for odds of 1e-4.
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(60)]
            for round_ in range(6):  # unary calls in between, as a gateway's reads are
                await asyncio.sleep(0.06)
                await asyncio.gather(*(client.view(g, -1) for g in games[: round_ + 1]))
                for ids in served:
                    ids.clear()
                # Stale commands: each reaches its replica's runtime, which refuses it.
                stale = [client.execute(g, 0, VOTE, cid(), 1) for g in games]
                refused = await asyncio.gather(*stale, return_exceptions=True)
                assert all(isinstance(r, VersionConflict) for r in refused)
                assert all(served), round_  # every replica had a lane
            await asyncio.gather(*(client.execute(g, 0, VOTE, cid()) for g in games))
            before = [(await client.view(g, -1))[0] for g in games]
            await replicas[0].stop(grace=0)
            await asyncio.gather(*(client.execute(g, 1, VOTE, cid()) for g in games))
            after = [(await client.view(g, -1))[0] for g in games]
            assert all(a > b for a, b in zip(after, before, strict=True))  # second votes in
        finally:
            await client.close()


async def test_each_replica_gets_its_own_lanes(store: StoreSettings) -> None:
    """Lanes are counted per replica: 16 lanes per target shared by four replicas left
    each four, so each engine took fewer commands per wake-up the more replicas served
    (bench.scaleout: wake-ups per move 2.1 at one replica, 3.9 at four)."""
    async with counted_replicas(store, 3) as (replicas, _):
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        assert client.streams is not None
        client.streams.lanes = 2
        try:
            game = (await client.create([SeatSpec("human")] * 3, {})).game_id
            await client.execute(game, 0, VOTE, cid())
            per_replica = Counter(lane.replica for lane in client.streams._lanes)
        finally:
            await client.close()
    assert sorted(per_replica.values()) == [2, 2, 2]
    assert sorted(per_replica) == sorted(f"127.0.0.1:{r.port}" for r in replicas)


async def test_the_engine_counts_how_its_cache_found_each_game(store: StoreSettings) -> None:
    """raffe_engine_cache_total tells an operator whether games keep to their replica:
    a command on a replica that has not seen the game reads it from the start ("cold"),
    one on a replica whose copy another moved on reads and folds the rest ("behind")."""
    from prometheus_client import REGISTRY

    def count(found: str) -> float:
        labels = {"game": GAME.name, "found": found}
        return REGISTRY.get_sample_value("raffe_engine_cache_total", labels) or 0.0

    settings = ServiceSettings(host="127.0.0.1", port=0, store=store)
    replicas = [await start_engine(GAME, settings) for _ in range(2)]
    a, b = (EngineClient.connect(f"127.0.0.1:{r.port}") for r in replicas)
    try:
        cold, trusted = count("cold"), count("trusted")
        game = (await a.create([SeatSpec("human")] * 3, {})).game_id
        version = (await a.execute(game, 0, VOTE, cid())).version
        # The replica that created the game holds it: no read, then or before the append.
        assert (count("cold"), count("trusted")) == (cold, trusted + 1)
        cold, behind, trusted = count("cold"), count("behind"), count("trusted")
        version = (await b.execute(game, 1, VOTE, cid(), version)).version
        assert (count("cold"), count("behind")) == (cold + 1, behind)  # b had never seen it
        await a.execute(game, 2, VOTE, cid(), version)
        assert (count("cold"), count("behind")) == (cold + 1, behind + 1)  # a was one behind
        await a.execute(game, 0, VOTE, cid())
        assert count("trusted") == trusted + 1  # a is current: no read before the append
    finally:
        await asyncio.gather(a.close(), b.close())
        for replica in replicas:
            await replica.stop(grace=1)


async def test_a_dns_target_is_resolved_into_replicas_for_the_lanes(store: StoreSettings) -> None:
    """dns:/// names (a Kubernetes headless Service) are resolved by the client every few
    seconds; lanes then open on the addresses found. Here localhost: 127.0.0.1 serves (and
    ::1, if the name has it, does not: its channel fails and it gets no lanes)."""
    async with counted_replicas(store, 1) as (replicas, served):
        client = EngineClient.connect(f"dns:///localhost:{replicas[0].port}", multiplexed=True)
        assert client.replicas is not None and client.streams is not None
        client.streams.lane_seconds = 0.05
        try:
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(4)]
            for seat in range(3):  # lanes renewed between, on what the name resolved to
                await asyncio.sleep(0.06)
                await asyncio.gather(*(client.execute(g, seat, VOTE, cid()) for g in games))
            assert f"127.0.0.1:{replicas[0].port}" in client.replicas.replicas
        finally:
            await client.close()
    assert sorted(served[0]) == sorted(games * 3)


def _calls(games: list[str]) -> list[common_pb2.ExecuteCall]:
    return [
        common_pb2.ExecuteCall(
            call=n,
            request=common_pb2.ExecuteRequest(
                command=common_pb2.Command(
                    game_id=g,
                    seat=0,
                    command_json=json.dumps(VOTE).encode(),
                    command_id=cid(),
                    expected_version=3,
                )
            ),
        )
        for n, g in enumerate(games, start=1)
    ]


async def test_answers_ready_together_go_out_in_one_message(store: StoreSettings) -> None:
    """ExecuteBatches: calls sent in one message are all answered, each by its number,
    and the answers their shared append makes ready at once share messages (a message
    per answer was a fifth of the engine's and the gateway's CPU per move)."""
    async with running_engine(GAME, store) as (client, engine):
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(8)]
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine.port}")
        stub = common_pb2_grpc.EngineStub(channel)

        async def one_message() -> AsyncIterator[common_pb2.ExecuteCalls]:
            yield common_pb2.ExecuteCalls(calls=_calls(games))

        messages = [m async for m in stub.ExecuteBatches(one_message())]
        await channel.close()
    answers = [a for m in messages for a in m.answers]
    assert sorted(a.call for a in answers) == list(range(1, 9))
    assert all(a.response.version == 4 for a in answers)
    assert len(messages) < len(answers)


async def test_execute_many_still_answers_a_message_per_call(store: StoreSettings) -> None:
    """A gateway from before ExecuteBatches keeps its lanes on an engine of today."""
    async with running_engine(GAME, store) as (client, engine):
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(4)]
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{engine.port}")
        stub = common_pb2_grpc.EngineStub(channel)

        async def calls() -> AsyncIterator[common_pb2.ExecuteCall]:
            for call in _calls(games):
                yield call

        answers = [a async for a in stub.ExecuteMany(calls())]
        await channel.close()
    assert sorted(a.call for a in answers) == [1, 2, 3, 4]
    assert all(a.response.version == 4 for a in answers)


async def test_commands_queued_while_a_lane_writes_go_out_together(
    store: StoreSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lane sends the commands queued since its last message in one message."""
    sizes: list[int] = []
    outgoing = Lane._outgoing

    async def counted(lane: Lane) -> AsyncIterator[common_pb2.ExecuteCalls]:
        async for message in outgoing(lane):
            sizes.append(len(message.calls))
            yield message

    monkeypatch.setattr(Lane, "_outgoing", counted)
    async with running_engine(GAME, store, multiplexed=True) as (client, _):
        assert client.streams is not None
        client.streams.lanes = 1
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(20)]
        results = await asyncio.gather(*(client.execute(g, 0, VOTE, cid(), 3) for g in games))
    assert [r.version for r in results] == [4] * 20
    assert sum(sizes) == 20 and len(sizes) < 20


async def test_lanes_fall_back_to_execute_many_on_an_engine_from_before(
    store: StoreSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a rolling upgrade a gateway may meet an engine without ExecuteBatches: its
    lanes end refused (UNIMPLEMENTED), and their commands go again, one a message, on
    ExecuteMany lanes."""
    monkeypatch.setattr(EngineService, "ExecuteBatches", EngineServicer.ExecuteBatches)
    async with running_engine(GAME, store, multiplexed=True) as (client, _):
        games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(6)]
        results = await asyncio.gather(*(client.execute(g, 0, VOTE, cid(), 3) for g in games))
        assert [r.version for r in results] == [4] * 6
        assert client.streams is not None
        assert not any(lane.batched for lane in client.streams._lanes)


async def test_a_stopping_replica_ends_its_lanes_once_answered_and_commands_go_on(
    store: StoreSettings,
) -> None:
    """#55 item 3: on SIGTERM an engine answers what its lanes had read, then ends them
    (before, an open lane kept it alive until the client renewed it, or to the end of
    its grace period); the client sends later commands on lanes to the other replica and
    every command is applied once."""
    async with counted_replicas(store, 2) as (replicas, _):
        client = EngineClient.connect(target_of(replicas), multiplexed=True)
        assert client.streams is not None
        client.streams.lane_seconds = 600  # no renewal would end the lanes in this test
        try:
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(8)]
            voted: list[tuple[str, int]] = []

            async def vote(game: str, seat: int) -> None:
                await client.execute(game, seat, VOTE, f"{game}-{seat}")
                voted.append((game, seat))

            first = [asyncio.create_task(vote(g, 0)) for g in games]
            await asyncio.sleep(0)  # on their lanes, both replicas', as the stop begins
            grace = 60.0
            stopping = asyncio.create_task(replicas[0].stop(grace=grace))
            await asyncio.gather(*first, *(vote(g, 1) for g in games))
            # Ended by its lanes finishing, not by the grace period running out.
            await asyncio.wait_for(stopping, timeout=grace / 2)
            await asyncio.gather(*(vote(g, 2) for g in games))
            assert len(voted) == 3 * len(games)
            for game in games:
                _, events = await client.events(game, -1)
                cast = [e["command_id"] for e in events if e["type"] == "VoteCast"]
                assert sorted(cast) == [f"{game}-{seat}" for seat in range(3)]  # each once
        finally:
            await client.close()
