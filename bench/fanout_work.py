"""What a live move costs a gateway's fan-out, part by part, against the minimal SSE
server's relay (#58 item 1), both in this process on the same announcements:

    python -m bench.fanout_work [--games 20] [--rounds 5]

Giraffe Raffe games of four are played through an engine on a Redis of its own, and
every announcement the append script publishes is kept (what a gateway's listener
hears). Then, per move, for four seats and a spectator:

- the relay (bench.sse_baseline): the version split off, one frame of the announcement's
  bytes, pushed to five mailboxes;
- the gateway (gateway.live.hub): the announcement parsed into events, folded into the
  game's state, redacted once per audience, framed and pushed (``LiveHub._hand_out``,
  the code the hub runs), and the same with each part alone (parse; parse and fold).

CPU per move, medians over rounds taken in turn, and each against the relay. What the
rows add up to is the product's work a move; the sockets' writes, which both pay alike,
are not here (bench.crowd --baseline measures the whole).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import orjson
from redis.asyncio import Redis

from bench.common import Figure, against, print_table, write_json
from gateway.live.hub import LiveHub
from gateway.live.watched import Viewer, Watched
from services.core.eventstore import EventStore, StoredEvent, open_store
from services.core.eventstore.announce import parse_announcement
from services.core.local_redis import RedisServer
from services.core.runtime import GameRuntime
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.game import SPECTATOR, SeatSpec
from services.kernel.playthrough import bot_moves

GAME, SEATS = "giraffe-raffe", 4
# One game: its events before the first move (its creation), then every move's
# announcement, in order.
Game = tuple[list[StoredEvent], list[bytes]]


def version_before(heard: list[bytes]) -> int:
    """The version the game was at before its first move was announced."""
    first = parse_announcement("g", GAME, heard[0])
    return first.version - len(first.events)


def started(created: list[StoredEvent]) -> Watched:
    """A watched game as the hub holds it when the first move comes."""
    game = GAMES[GAME]
    watched = Watched(game, game.initial())
    watched.fold(created)
    return watched


async def played(store: EventStore, games: int) -> list[Game]:
    """The announcements of ``games`` whole games, as a listener hears them."""
    game, runtime, out = GAMES[GAME], GameRuntime(GAMES[GAME], store), []
    for n in range(games):
        seed = f"fanout-{n}"
        created = await runtime.create([SeatSpec("human")] * SEATS, {}, seed=seed, practice=True)
        heard: list[bytes] = []
        async with store.redis.pubsub() as pubsub:
            await pubsub.subscribe(store.keys.game(created.game_id))
            await pubsub.get_message(timeout=1)  # the subscription's confirmation
            for i, (seat, version, command) in enumerate(
                bot_moves(game, SEATS, seed, game.bot("random"))
            ):
                await runtime.execute(
                    created.game_id, seat, command, command_id=f"m{i}", expected_version=version
                )
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
                assert message is not None
                heard.append(bytes(message["data"]))
        created_events = await store.read_game_range(created.game_id, 0, version_before(heard))
        out.append((created_events, heard))
        print(f"  game {n + 1}/{games}: {len(heard)} moves", file=sys.stderr, flush=True)
    return out


def relay(games: list[Game]) -> None:
    """The minimal server's work a move (bench.sse_baseline's _relay)."""
    for _, heard in games:
        mailboxes: list[list[bytes]] = [[] for _ in range(SEATS + 1)]
        for data in heard:
            version = data.split(b"\n", 1)[0]
            out = b"id: %s\ndata: %s\n\n" % (version, orjson.dumps(data.decode("latin-1")))
            for box in mailboxes:
                box.append(out)


def parse(games: list[Game]) -> None:
    for _, heard in games:
        for data in heard:
            parse_announcement("g", GAME, data)


def parse_fold(games: list[Game]) -> None:
    for created, heard in games:
        watched = started(created)
        for data in heard:
            watched.fold(parse_announcement("g", GAME, data).events)


def hub_of(store: EventStore) -> Callable[[list[Game]], None]:
    """The hub's whole fan-out a move, as it runs for a move announced with its events."""
    hub = LiveHub(store, GAMES, Redis())  # never started: no connection is made

    def fan_out(games: list[Game]) -> None:
        for created, heard in games:
            watched = started(created)
            viewers = [Viewer(seat) for seat in [*range(SEATS), SPECTATOR]]
            for v in viewers:
                watched.viewers[v.seat].add(v)
            for data in heard:
                events = parse_announcement("g", GAME, data).events
                hub._hand_out("g", watched, events)
                for v in viewers:  # the streams take their frames
                    while not v.queue.empty():
                        v.queue.get_nowait()

    return fan_out


def timed(work: Callable[[list[Game]], None], games: list[Game]) -> float:
    """CPU microseconds a move of one run."""
    moves = sum(len(h) for _, h in games)
    cpu = time.process_time()
    work(games)
    return (time.process_time() - cpu) / moves * 1e6


async def measure(games: int, rounds: int) -> dict[str, list[float]]:
    server = RedisServer(directory=tempfile.mkdtemp()).start()
    try:
        store = await open_store(StoreSettings(redis_url=server.url))
        try:
            heard = await played(store, games)
            sides = {
                "relay": relay,
                "parse": parse,
                "parse+fold": parse_fold,
                "hub": hub_of(store),
            }
            got: dict[str, list[float]] = {name: [] for name in sides}
            for r in range(rounds):
                order = list(sides) if r % 2 == 0 else list(reversed(sides))
                for name in order:
                    got[name].append(timed(sides[name], heard))
                print(
                    f"  round {r + 1}/{rounds}: "
                    + ", ".join(f"{n} {got[n][-1]:.0f} us" for n in sides),
                    file=sys.stderr,
                    flush=True,
                )
            return got
        finally:
            await store.redis.aclose()
    finally:
        server.stop()


def figures(got: dict[str, list[float]]) -> list[Figure]:
    cpu = {name: statistics.median(runs) for name, runs in got.items()}
    base = cpu["relay"]
    return [
        Figure("relay (minimal SSE server): a move to 5 viewers", base, "us"),
        against("hub: parse the announcement", cpu["parse"], "us", "relay", base),
        against("hub: parse and fold", cpu["parse+fold"], "us", "relay", base),
        against("hub: parse, fold, redact, frame, push (all)", cpu["hub"], "us", "relay", base),
        Figure(
            "hub: redact, frame and push (all - parse and fold)",
            cpu["hub"] - cpu["parse+fold"],
            "us",
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    got = asyncio.run(measure(args.games, args.rounds))
    out = figures(got)
    print_table("a live move's fan-out, part by part (CPU a move, this process)", out)
    write_json("fanout-work", out)


if __name__ == "__main__":
    main()
