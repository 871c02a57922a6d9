"""Concurrent runs of one script, sent together: every call made in one turn of the event
loop goes out in one write on one connection, and their replies come back in one read.

Why: redis-py's per-call path (a pool checkout under a lock, a readiness probe, a retry
wrapper, metrics hooks, a release) cost the engine several times what sending the
command and parsing its reply cost; an engine runs many commands at once, so their
appends can share it. Redis
gains too: one read and one write per batch instead of per call.

Order and atomicity are unchanged: each call is still its own EVALSHA, run in the order
the calls were made. A batch in flight holds its connection; calls made meanwhile form
the next batch, sent as soon as the first is answered (so a lone call waits one round
trip at most, never a timer).

A call refused for an unknown script did not run; it is sent again after loading the
script. A call whose connection broke may or may not have run; it is sent again too,
which the append's command id makes safe (a duplicate is answered, not applied twice).
What fails twice takes the script's own path (redis-py's retries with backoff). A call
that times out fails with TimeoutError, as one call through redis-py does; it too may
have run, and the client's retry with the same command id is answered as a duplicate.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Sequence
from typing import Any

import hiredis
from prometheus_client import Counter
from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import (
    ConnectionError,
    DataError,
    NoScriptError,
    ResponseError,
    TimeoutError,
)

BATCHES = Counter("raffe_store_batches_total", "Batches of script calls sent to Redis")
# Over BATCHES: how many calls a batch shared its round trip with (bench.scaleout reads it).
BATCHED = Counter("raffe_store_batched_calls_total", "Script calls sent in batches")
_FALLBACK = object()  # a future's result: send this call again on the script's own path
Pending = tuple[bytes, "asyncio.Future[Any]"]  # a call in Redis's protocol, its reply's future


class ScriptBatcher:
    """``await batcher.run(keys, args)`` is ``await script(keys=keys, args=args)``,
    batched with the other calls of the same loop turn."""

    def __init__(self, redis: Redis, script: AsyncScript, retry_unconnected: bool = True) -> None:
        """``retry_unconnected=False``: when no connection can be had (Redis out of
        reach: redis-py has already retried connecting), the calls fail with that error
        at once, as one call through redis-py does, instead of trying twice more (a
        second batch, then the script's own path: three times as long). For writes a
        caller waits on and need not outlast an outage (a stream's presence)."""
        self.redis = redis
        self.script = script
        self.retry_unconnected = retry_unconnected
        self._queue: list[Pending] = []
        self._sender: asyncio.Task[None] | None = None
        self.batches = 0  # sent so far (tests and benchmarks read how calls were grouped)

    async def run(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        call = _packed(("EVALSHA", self.script.sha, len(keys), *keys, *args))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((call, future))
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_all())
        reply = await future
        if reply is _FALLBACK:
            return await self.script(keys=keys, args=args)
        return reply

    async def _send_all(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                await self._send(batch)
        finally:  # the queue is left non-empty only by a cancellation: hand it back
            self._sender = None
            _settle(self._queue, _FALLBACK)
            self._queue = []

    async def _send(self, batch: list[Pending]) -> None:
        """One batch. Calls refused for an unknown script (a restarted or flushed server)
        and calls a broken connection left unanswered are sent once more, in their
        order, on a connection from the pool (after loading the script); what is still
        unanswered then takes the script's own path. A timeout is raised to its
        calls."""
        again, unknown_script = await self._send_once(batch)
        if not again:
            return
        if unknown_script:
            try:
                await self.redis.script_load(self.script.script)
            except (ConnectionError, TimeoutError, OSError):
                _settle(again, _FALLBACK)
                return
        again, _ = await self._send_once(again)
        _settle(again, _FALLBACK)

    async def _send_once(self, batch: list[Pending]) -> tuple[list[Pending], bool]:
        """Sends the batch on one connection and answers each call's future. Returns
        the calls left unanswered, in order, and whether any met NOSCRIPT."""
        pool = self.redis.connection_pool
        try:
            connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        except (ConnectionError, TimeoutError, OSError) as error:
            if self.retry_unconnected:
                return batch, False
            for _, future in batch:  # nothing was sent: fail as one call would
                if not future.done():
                    future.set_exception(error)
            return [], False
        unanswered: list[Pending] = []
        unknown_script = False
        read = 0
        try:
            commands = b"".join([call for call, _ in batch])
            await _write(connection, commands)
            for pending in batch:
                try:
                    reply = await connection.read_response()
                except NoScriptError:
                    unanswered.append(pending)
                    unknown_script = True
                except ResponseError as error:
                    _answer(pending[1], error)
                else:
                    _answer(pending[1], reply)
                read += 1
        except TimeoutError as error:
            # Raised to every caller still waiting, as redis-py raises it for one call
            # (it does not retry a timeout): a Redis this slow would be as slow again.
            await connection.disconnect()
            for _, future in batch[read:]:
                if not future.done():
                    future.set_exception(error)
        except (ConnectionError, OSError):
            await connection.disconnect()
            unanswered += batch[read:]
        except BaseException:
            await connection.disconnect()  # replies may be left unread on it
            _settle(batch, _FALLBACK)
            raise
        finally:
            await pool.release(connection)
        self.batches += 1
        BATCHES.inc()
        BATCHED.inc(len(batch))
        return unanswered, unknown_script


async def _write(connection: Any, data: bytes) -> None:
    """``data`` onto the connection's socket in this turn of the loop. redis-py's
    ``send_packed_command`` wraps its write in ``asyncio.wait_for``, which on Python 3.11
    runs it as a task of its own: the batch left a loop turn later, and its sender went
    on reading a turn after that, a task and two turns a batch. The timeout is the
    socket's, as redis-py applies it; the write itself is redis-py's (a private method:
    redis is pinned in constraints.txt, and tests/integration/test_script_batching.py
    says whether a batch leaves at once)."""
    try:
        async with asyncio.timeout(connection.socket_timeout):
            await connection._send_packed_command([data])
    except builtins.TimeoutError as error:  # Redis takes in nothing (redis-py's is apart)
        await connection.disconnect(nowait=True)
        raise TimeoutError("Timeout writing to socket") from error  # redis-py's, as it raises


def _packed(command: tuple[Any, ...]) -> bytes:
    """A command in Redis's protocol, packed by hiredis in C: redis-py's packer encodes
    each argument in Python first, which was a twentieth of the engine's CPU (an append
    has ~38 arguments). Arguments are bytes, str (UTF-8), integers or floats, encoded as
    redis-py encodes them (a property test compares the two); anything else is refused
    as redis-py refuses it."""
    try:
        return hiredis.pack_command(command)  # type: ignore[no-any-return]
    except TypeError as error:
        raise DataError(str(error)) from error


def _answer(future: asyncio.Future[Any], reply: Any) -> None:
    if future.done():  # its caller was cancelled
        return
    if isinstance(reply, ResponseError):
        future.set_exception(reply)
    else:
        future.set_result(reply)


def _settle(batch: list[Pending], result: Any) -> None:
    for _, future in batch:
        if not future.done():
            future.set_result(result)
