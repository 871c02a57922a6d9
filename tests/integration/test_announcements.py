"""Each append announces its events on the game stream's name (services.core.eventstore.
announce), and a gateway's live fan-out sends them on without reading them back (#17)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis

from gateway.accounts.tokens import Caller
from gateway.live.hub import LiveHub
from services.core.eventstore import EventStore, NewEvent
from services.core.eventstore.announce import parse_announcement
from services.core.runtime import GameRuntime
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import bot_moves
from tests.eventstore_helpers import append

NAMES = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FFF, exclude_categories=("Cc", "Cs")),
    min_size=1,
    max_size=16,
)
EVENTS = st.lists(
    st.tuples(NAMES, st.binary(max_size=300), st.integers(-1, 9)), min_size=1, max_size=5
)


async def announced(store: EventStore, game: str, *events: NewEvent) -> bytes:
    """What appending ``events`` (to a new game) published on the game's channel."""
    async with store.redis.pubsub() as pubsub:
        await pubsub.subscribe(store.keys.game(game))
        await pubsub.get_message(timeout=1)  # the subscription's confirmation
        await append(store, game, 0, *events)
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
    assert message is not None
    return bytes(message["data"])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(events=EVENTS)
async def test_an_announcement_holds_the_events_as_a_read_returns_them(
    store: EventStore, events: list[tuple[str, bytes, int]]
) -> None:
    """Any names, any payload bytes (newlines, nothing, not UTF-8), any actor."""
    game = "g" + uuid.uuid4().hex
    new = [NewEvent(id=f"e{i}", type=t, payload=p, actor=a) for i, (t, p, a) in enumerate(events)]
    said = parse_announcement(game, "test-game", await announced(store, game, *new))
    assert said.version == len(events)
    assert said.events == await store.read_game(game)


async def test_a_large_append_announces_its_version_only(store: EventStore) -> None:
    game = "g" + uuid.uuid4().hex
    big = [NewEvent(id=f"e{i}", type="Big", payload=b"x" * 6000) for i in range(3)]
    said = parse_announcement(game, "test-game", await announced(store, game, *big))
    assert (said.version, said.events) == (3, [])
    with pytest.raises(ValueError):
        parse_announcement(game, "test-game", b"3\n1\ncid\n5\nengine\ne1\nT\n1\n0\n99\nshort")


async def xranges(redis: Redis) -> int:
    stats: dict[str, Any] = await redis.info("commandstats")
    return int(stats.get("cmdstat_xrange", {}).get("calls", 0))


@pytest.fixture
async def hub(store: EventStore, redis_url: str) -> AsyncIterator[LiveHub]:
    live = LiveHub(store, GAMES, Redis.from_url(redis_url))
    live.start()
    for _ in range(100):  # listening once its connection is subscribed
        if live.channels.listening:
            break
        await asyncio.sleep(0.02)
    yield live
    await live.close()


async def test_watched_moves_reach_the_viewer_without_reading_the_stream(
    store: EventStore, hub: LiveHub
) -> None:
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="live", practice=True)
    frames = hub.frames(created.game_id, game.name, Caller(0), 0)
    assert b"id: 1\n" in await anext(frames)  # the catch-up: read, as a new viewer must
    before = await xranges(store.redis)
    moves = bot_moves(game, 3, "live", game.bot("random"))[:12]
    for seat, version, command in moves:
        done = await engine.execute(
            created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
        )
        got = b""
        while f"id: {done.result.version}\n".encode() not in got:
            got += await asyncio.wait_for(anext(frames), 5)
    assert await xranges(store.redis) == before  # every move came with its announcement
    await frames.aclose()


async def test_a_stream_joining_as_the_last_one_leaves_still_gets_the_moves(
    store: EventStore, hub: LiveHub
) -> None:
    """A spectator reconnects (its new stream is catching up) while its old stream is
    still leaving: the old one was the game's last viewer here, and the hub forgot the
    game, so the new stream registered on a copy nobody fanned out to and got nothing
    more (an e2e resume test stalled about one run in three)."""
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="rejoin", practice=True)
    old = hub.frames(created.game_id, game.name, Caller(), 0)
    assert b"id: 1\n" in await anext(old)
    new = hub.frames(created.game_id, game.name, Caller(), 1)
    joining = asyncio.create_task(anext(new))
    await asyncio.sleep(0)  # it subscribed and is reading its catch-up from Redis
    assert not joining.done()
    await old.aclose()  # the old stream leaves meanwhile
    seat, version, command = bot_moves(game, 3, "rejoin", game.bot("random"))[0]
    done = await engine.execute(
        created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
    )
    got = await joining  # its catch-up, or the move already
    while f"id: {done.result.version}\n".encode() not in got:
        got += await asyncio.wait_for(anext(new), 5)
    await new.aclose()


async def test_a_stream_lets_its_catch_up_go_once_sent(store: EventStore, hub: LiveHub) -> None:
    """A stream lives for hours: its generator must not hold what it read and drew to
    catch up (the events, the state it joined at, its first view), or every stream of a
    game in play pins a state of its own and its first frames."""
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="let-go", practice=True)
    for seat, version, command in bot_moves(game, 3, "let-go", game.bot("random"))[:3]:
        await engine.execute(
            created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
        )
    stream = hub.frames(created.game_id, game.name, Caller(), 0, views=True)
    first = await anext(stream)
    assert b"event: view" in first and b"id: 1\n" in first
    waiting = asyncio.create_task(anext(stream))  # now waiting for the next frame
    await asyncio.sleep(0.05)
    held = list(stream.ag_frame.f_locals.values())  # type: ignore[attr-defined]
    watched = hub.watched[created.game_id]
    assert not [v for v in held if isinstance(v, bytes) and len(v) > 64]  # no frames
    assert not [v for v in held if isinstance(v, list)]  # no events
    assert not [v for v in held if type(v) is type(watched.state)]  # no state of its own
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
        await waiting
    await stream.aclose()


async def test_each_audience_of_a_live_move_sees_only_what_it_may(
    store: EventStore, hub: LiveHub
) -> None:
    """A batch is parsed once and a frame is encoded once for every audience that sees an
    event as stored; an audience that sees it redacted gets its own frame, never one
    encoded for another audience (a chosen card reaches its chooser only)."""
    game = GAMES["riff-raff"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 2, {}, seed="audiences", practice=True)
    seat, version, command = bot_moves(game, 2, "audiences", game.bot("random"))[0]
    assert command["type"] == "choose_card"
    streams = {
        who: hub.frames(created.game_id, game.name, Caller(seat=who), version)
        for who in (seat, 1 - seat, -1)
    }
    waiting = {who: asyncio.create_task(anext(stream)) for who, stream in streams.items()}
    await asyncio.sleep(0.05)  # every stream registered and waiting
    await engine.execute(
        created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
    )
    got = {who: await asyncio.wait_for(task, 5) for who, task in waiting.items()}
    card = b'"card":%d' % command["card"]
    assert card in got[seat]  # the chooser's own choice, to the chooser
    assert card not in got[1 - seat] and card not in got[-1]
    assert got[1 - seat] == got[-1]  # the same redaction, the same frame
    for stream in streams.values():
        await stream.aclose()


async def reads(redis: Redis) -> int:
    """XRANGE and GET calls so far (a game's stream, an archive)."""
    stats = await redis.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("xrange", "get"))


async def test_a_stream_joining_a_game_watched_here_reads_nothing(
    store: EventStore, hub: LiveHub
) -> None:
    """Every seat of a table opens its stream at the current version: once one watches
    the game here, the others read nothing from Redis (an empty catch-up cost the stream's
    read and the archive's), and still get every move."""
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="no-reads", practice=True)
    seat, version, command = bot_moves(game, 3, "no-reads", game.bot("random"))[0]
    first = hub.frames(created.game_id, game.name, Caller(), version)
    waiting = [asyncio.create_task(anext(first))]
    await until(lambda: _watching(hub, created.game_id, 1))
    before = await reads(store.redis)
    others = [hub.frames(created.game_id, game.name, Caller(seat=s), version) for s in (0, 1)]
    waiting += [asyncio.create_task(anext(stream)) for stream in others]
    await until(lambda: _watching(hub, created.game_id, 3))
    assert await reads(store.redis) == before
    await engine.execute(
        created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
    )
    for task in waiting:
        assert f"id: {version + 1}\n".encode() in await asyncio.wait_for(task, 5)
    for stream in [first, *others]:
        await stream.aclose()


async def _watching(hub: LiveHub, game_id: str, count: int) -> bool:
    watched = hub.watched.get(game_id)
    return watched is not None and sum(map(len, watched.viewers.values())) == count


async def subscribers(store: EventStore, game_id: str) -> int:
    """Connections subscribed to the game's announcements, by name or by any pattern."""
    reply = await store.redis.execute_command("PUBSUB", "NUMSUB", store.keys.game(game_id))
    return int(reply[1]) + int(await store.redis.execute_command("PUBSUB", "NUMPAT"))


async def until(check: Any) -> None:
    for _ in range(250):
        if await check():
            return
        await asyncio.sleep(0.02)


async def test_a_gateway_hears_only_the_games_someone_there_watches_or_waits_on(
    store: EventStore, hub: LiveHub
) -> None:
    """Nobody here holds a game: its moves are not sent to this gateway at all (they were,
    every game's, with one pattern subscription). A waiter holds it until it is done,
    then for the linger only."""
    hub.channels.linger_s = 0.05
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="quiet", practice=True)
    moves = bot_moves(game, 3, "quiet", game.bot("random"))[:2]

    async def move(i: int) -> None:
        seat, version, command = moves[i]
        await engine.execute(
            created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
        )

    await move(0)
    assert await subscribers(store, created.game_id) == 0
    # A version that exists already is answered from the store, subscribing nothing.
    assert await hub.wait_version(created.game_id, moves[0][1] + 1, 1) is True
    assert await subscribers(store, created.game_id) == 0
    waiting = asyncio.create_task(hub.wait_version(created.game_id, moves[1][1] + 1, 10))
    await until(lambda: _held(store, created.game_id))
    assert await subscribers(store, created.game_id) == 1
    await move(1)
    assert await asyncio.wait_for(waiting, 10) is True
    await until(lambda: _released(store, created.game_id))
    assert await subscribers(store, created.game_id) == 0


async def test_a_gateway_forgets_the_channels_of_games_nobody_watches_any_more(
    store: EventStore, hub: LiveHub
) -> None:
    """A gateway runs for days and sees every game it serves come and go: once a game's
    channel is dropped (Redis confirmed the unsubscribe), nothing of it stays (the
    per-channel counts of subscriptions did: a slow leak, a channel a game)."""
    hub.channels.linger_s = 0.0
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    games = [
        (await engine.create([SeatSpec("human")] * 3, {}, seed=f"gone-{i}", practice=True)).game_id
        for i in range(3)
    ]
    for game_id in games:
        stream = hub.frames(game_id, game.name, Caller(), 0)
        assert b"id: 1\n" in await anext(stream)
        await stream.aclose()
    channels = hub.channels
    for game_id in games:
        await until(lambda game_id=game_id: _released(store, game_id))

    async def forgotten() -> bool:  # the hub's own channels (chat, revocations) stay
        counted = [*channels._sent, *channels._confirmed, *channels.holders]
        return not [c for c in counted if ":game:" in c]

    await until(forgotten)
    assert await forgotten(), (channels._sent, channels._confirmed)
    # A game watched again is heard again: a fresh subscription, confirmed as the first.
    again = hub.frames(games[0], game.name, Caller(), 0)
    assert b"id: 1\n" in await anext(again)
    assert await subscribers(store, games[0]) == 1
    await again.aclose()


async def _held(store: EventStore, game_id: str) -> bool:
    return await subscribers(store, game_id) == 1


async def _released(store: EventStore, game_id: str) -> bool:
    return await subscribers(store, game_id) == 0


async def test_a_version_appended_while_its_waiter_subscribes_is_never_missed(
    store: EventStore, hub: LiveHub
) -> None:
    """The waiter looks at the store only once Redis confirmed its subscription: an
    append racing the subscription is seen either way."""
    hub.channels.linger_s = 0.0
    for i in range(30):
        game_id = f"race{i}-{uuid.uuid4().hex[:6]}"
        waiting = asyncio.create_task(hub.wait_version(game_id, 1, 3))
        await asyncio.sleep(0)
        await append(store, game_id, 0, NewEvent(id="e1", type="T", payload=b"{}"))
        assert await waiting is True
