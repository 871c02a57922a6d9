"""The baseline for live streams (#58), as the minimal chain is for commands: the least a
server must do to fan a game's moves out over Server-Sent Events.

    RAFFE_REDIS_URL=... RAFFE_PORT=... SSE_HEARTBEAT_S=15 python -m bench.sse_baseline

The same HTTP server as the gateway (uvicorn with uvloop and httptools), a raw ASGI app
(no framework), one Redis pub/sub connection and one heartbeat clock for every stream.
``GET /games/<id>/events`` subscribes to the game's announcement channel (the one the
engines' append script publishes on) and relays each announcement as a frame: ``id``
the version, ``data`` the announcement's bytes as a JSON string. No redaction, no
state, no presence, no tokens: what the gateway does beyond this is the product's work.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import uvicorn
from redis.asyncio import Redis
from redis.exceptions import RedisError

from services.core.eventstore.keys import Keys
from services.core.local_redis import free_port
from services.core.loop import tune_gc
from services.core.settings import StoreSettings

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]
PING = b": ping\n\n"
HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]


class Fanout:
    """Streams by game, one subscription a game, one clock for all heartbeats."""

    def __init__(self, redis_url: str, heartbeat_s: float) -> None:
        self.redis = Redis.from_url(redis_url)
        self.keys = Keys(StoreSettings().key_prefix, StoreSettings().partitions)
        self.heartbeat_s = heartbeat_s
        self.streams: dict[str, set[asyncio.Queue[bytes]]] = defaultdict(set)
        self.pubsub = self.redis.pubsub()
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self.pubsub.subscribe("baseline:nothing")  # connected before the first game
        self.tasks = [asyncio.create_task(self._relay()), asyncio.create_task(self._beat())]

    async def _relay(self) -> None:
        async for message in self.pubsub.listen():
            if message["type"] != "message":
                continue
            game = message["channel"].decode().rpartition(":game:")[2]
            data = bytes(message["data"])
            version = data.split(b"\n", 1)[0]
            out = b"id: %s\ndata: %s\n\n" % (version, orjson.dumps(data.decode("latin-1")))
            for queue in self.streams.get(game, ()):
                queue.put_nowait(out)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            for queues in self.streams.values():
                for queue in queues:
                    if queue.empty():
                        queue.put_nowait(PING)

    async def stream(self, game: str, send: Send, receive: Receive) -> None:
        """Frames until the client goes (a task that hears it, as Starlette's streaming
        answer has)."""
        me = asyncio.current_task()
        assert me is not None

        async def gone() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            me.cancel()

        hears = asyncio.create_task(gone())
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        if not self.streams[game]:
            await self.pubsub.subscribe(self.keys.game(game))
        self.streams[game].add(queue)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            while True:
                body = await queue.get()
                await send({"type": "http.response.body", "body": body, "more_body": True})
        except asyncio.CancelledError:
            pass
        finally:
            hears.cancel()
            self.streams[game].discard(queue)
            if not self.streams[game]:
                del self.streams[game]
                # Redis stopped first at a run's end: nothing left to unsubscribe from.
                with contextlib.suppress(RedisError):
                    await self.pubsub.unsubscribe(self.keys.game(game))


def app_of(fanout: Fanout) -> Callable[..., Awaitable[None]]:
    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await receive()
            await fanout.start()
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await send({"type": "lifespan.shutdown.complete"})
            return
        parts = scope["path"].strip("/").split("/")
        if len(parts) == 3 and parts[0] == "games" and parts[2] == "events":
            await fanout.stream(parts[1], send, receive)
            return
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return app


def start_baseline(redis_url: str, heartbeat: float) -> tuple[subprocess.Popen[str], int]:
    """This server in a process of its own on a free port, once it answers."""
    port = free_port()
    env = {
        **os.environ,
        "RAFFE_REDIS_URL": redis_url,
        "RAFFE_PORT": str(port),
        "SSE_HEARTBEAT_S": str(heartbeat),
    }
    process = subprocess.Popen([sys.executable, "-m", "bench.sse_baseline"], env=env, text=True)
    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.1)
    return process, port


if __name__ == "__main__":
    tune_gc()  # as the gateway does
    heartbeat = float(os.environ.get("SSE_HEARTBEAT_S", "15"))
    fanout = Fanout(os.environ["RAFFE_REDIS_URL"], heartbeat)
    port = int(os.environ["RAFFE_PORT"])
    uvicorn.run(app_of(fanout), host="127.0.0.1", port=port, log_level="warning", backlog=4096)
