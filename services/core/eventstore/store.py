"""The Redis Streams event store: append with expected version and idempotent command
ids, read a game, read a partition log (DESIGN §3)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any, cast

import orjson
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from services.core.errors import (
    EventTooLarge,
    GameTypeMismatch,
    InvalidArgument,
    TooManyEvents,
    VersionConflict,
)
from services.core.eventstore.announce import parse_announcement
from services.core.eventstore.batching import ScriptBatcher
from services.core.eventstore.keys import Keys, check_game_id
from services.core.eventstore.model import AppendResult, GameMeta, NewEvent, StoredEvent
from services.core.eventstore.replication import confirm, evalsha_and_wait
from services.core.lru import BytesLRU
from services.core.settings import StoreSettings

RedisClient = Redis | RedisCluster
# Stream entries as the client returns them with decode_responses off.
Entry = tuple[bytes, dict[bytes, bytes]]
APPEND_LUA = files("services.core.eventstore").joinpath("append.lua").read_text()
# Codes the script reports that mean "a limit from the settings", not "malformed".
_LIMIT_ERRORS: dict[str, type[InvalidArgument]] = {
    "event_too_large": EventTooLarge,
    "too_many_events": TooManyEvents,
    "game_type_mismatch": GameTypeMismatch,
}


# KEYS: 1 game stream, 2 meta, 3 command ids, 4 archive, 5 seats, 6 bound tokens' digests.
# ARGV: 1 the version the caller read, 2 the compressed events, 3 seconds to keep (0: ever)
# Kept for a time, the game goes whole: its archive, metadata and seats expire together
# (a meta and a seats hash kept for ever made Redis grow in the hour's soak); its
# tokens' bindings are shortened by the archiver.
ARCHIVE_LUA = """
if tonumber(redis.call('HGET', KEYS[2], 'version') or '0') ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('SET', KEYS[4], ARGV[2])
redis.call('HSET', KEYS[2], 'archived', '1')
if tonumber(ARGV[3]) > 0 then
  for i = 2, 6 do
    if i ~= 3 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
  end
end
redis.call('DEL', KEYS[1], KEYS[3])
return 1
"""

TYPES_CACHE_BYTES = 4 * 1024 * 1024  # game id -> type, for some 30,000 games
TYPE_ENTRY_BYTES = 120  # an entry's keys, tuple and links, besides the id's characters
_CONTROL = re.compile(rb"[\x00-\x1f\x7f]")  # bytes no id, type or name may hold


def _text(value: object, what: str, max_bytes: int) -> bytes:
    """UTF-8 bytes of a non-empty printable string, or a typed error."""
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{what} must be a non-empty string", f"bad_{what.replace(' ', '_')}")
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"{what} is not valid UTF-8", "not_utf8") from exc
    if len(raw) > max_bytes or _CONTROL.search(raw):
        raise InvalidArgument(
            f"{what} must be at most {max_bytes} bytes of printable text",
            f"bad_{what.replace(' ', '_')}",
        )
    return raw


def _uint(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 10**15:
        raise InvalidArgument(f"{what} must be a non-negative integer", "bad_version")
    return value


class EventStore:
    """Async event store over one Redis (or Redis Cluster) connection pool."""

    def __init__(self, redis: RedisClient, settings: StoreSettings) -> None:
        self.redis = redis
        self.settings = settings
        self.keys = Keys(settings.key_prefix, settings.partitions)
        self._append = redis.register_script(APPEND_LUA)
        # A cluster routes each call by its keys, so its appends keep the script's path.
        self._appends = (
            None if isinstance(redis, RedisCluster) else ScriptBatcher(redis, self._append)
        )
        self._archive = redis.register_script(ARCHIVE_LUA)
        self.archive_ttl_s = settings.archive_ttl_s
        self.wait_replicas = settings.redis_wait_replicas
        self._types: BytesLRU[str, str] = BytesLRU(TYPES_CACHE_BYTES)

    def on_failover(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` whenever the sentinels name another primary (connect.py's
        BlockingSentinelPool): what was read of the old one may be gone."""
        hooks = getattr(getattr(self.redis, "connection_pool", None), "failover_hooks", None)
        if hooks is not None:
            hooks.append(hook)

    def partition_of(self, game_id: str) -> int:
        return self.keys.partition_of(game_id)

    # -- append -----------------------------------------------------------------

    async def append(
        self,
        game_id: str,
        game_type: str,
        expected_version: int,
        command_id: str,
        events: Sequence[NewEvent],
        *,
        time_ms: int,
        engine_version: str,
        attended: bool = False,
        idempotency_key: str = "",
        digest: str = "",
        command: bytes = b"",
    ) -> AppendResult:
        """Append ``events`` atomically if the game is at ``expected_version``.

        Raises VersionConflict (with the current version) and InvalidArgument subclasses;
        in both cases nothing was written. A command id seen before returns the original
        result with ``duplicate=True`` and writes nothing.

        The idempotency key defaults to the command id; the runtime scopes it by seat
        (``"<seat>:<command id>"``) and passes the command's ``digest``, which a
        duplicate reports back so a reused id with another command can be refused.

        ``attended`` when the game is created (expected version 0): the game's events go
        to its partition's attended log too, which the runners follow; on a later append
        it makes an unattended game attended from that append on (never the reverse).

        ``command``: the command as sent (JSON), kept with the first event in the game's
        stream (StoredEvent.command) for the game's portable record (services.records).
        """
        args = self._append_args(
            game_id,
            game_type,
            expected_version,
            command_id,
            events,
            time_ms,
            engine_version,
            attended,
            idempotency_key or command_id,
            digest,
            command,
        )
        keys = self.keys.append_keys(game_id)
        if not self.wait_replicas:
            if self._appends is None:
                reply = await self._append(keys=keys, args=args)
            else:
                reply = await self._appends.run(keys, args)
            return self._parse_reply(game_id, expected_version, reply)
        wait = self.wait_replicas, self.settings.redis_wait_ms
        reply = await evalsha_and_wait(self.redis, self._append, keys, args, *wait)
        result = self._parse_reply(game_id, expected_version, reply)
        if result.duplicate:  # the original append may be unconfirmed yet: confirm it
            await confirm(self.redis, self.keys.sync(game_id), *wait)
        return result

    def _append_args(
        self,
        game_id: str,
        game_type: str,
        expected_version: int,
        command_id: str,
        events: Sequence[NewEvent],
        time_ms: int,
        engine_version: str,
        attended: bool,
        idempotency_key: str,
        digest: str,
        command: bytes = b"",
    ) -> list[bytes | int | str]:
        check_game_id(game_id)
        _uint(expected_version, "expected version")
        _uint(time_ms, "time")
        limit = self.settings.max_events_per_append
        if not events:
            raise InvalidArgument("an append needs at least one event", "no_events")
        if len(events) > limit:
            raise TooManyEvents(f"at most {limit} events per append, got {len(events)}")
        args: list[bytes | int | str] = [
            expected_version,
            _text(command_id, "command id", 128),
            game_id,
            _text(game_type, "game type", 64),
            time_ms,
            _text(engine_version, "engine version", 64),
            self.partition_of(game_id),
            limit,
            self.settings.max_event_bytes,
            len(events),
            1 if attended else 0,
            _text(idempotency_key, "command id", 200),
            digest,
            command,
        ]
        for index, event in enumerate(events, start=1):
            args.extend(self._event_args(index, event))
        return args

    def _event_args(self, index: int, event: NewEvent) -> list[bytes | int]:
        etype = _text(event.type, "event type", 64)
        if not isinstance(event.payload, bytes):
            raise InvalidArgument(f"event {index}: payload must be bytes", "bad_payload")
        size = len(event.payload) + len(etype)
        if size > self.settings.max_event_bytes:
            raise EventTooLarge(
                f"event {index} is {size} bytes; the limit is {self.settings.max_event_bytes}"
            )
        if isinstance(event.actor, bool) or not isinstance(event.actor, int):
            raise InvalidArgument(f"event {index}: actor seat must be an integer", "bad_actor")
        return [
            _text(event.id, "event id", 64),
            etype,
            _uint(event.schema_version, "schema version"),
            event.payload,
            event.actor,
        ]

    def _parse_reply(self, game_id: str, expected: int, reply: list[Any]) -> AppendResult:
        status = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        if status == "conflict":
            raise VersionConflict(expected, int(reply[1]))
        if status == "invalid":
            code, message = reply[1].decode(), reply[2].decode()
            raise _LIMIT_ERRORS.get(code, InvalidArgument)(message, code)
        return AppendResult(
            version=int(reply[1]),
            partition=self.partition_of(game_id),
            first_position=int(reply[2]),
            count=int(reply[3]),
            duplicate=status == "dup",
            digest=_decoded(reply[4]) if status == "dup" else "",
        )

    # -- read -------------------------------------------------------------------

    async def read_game(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events of a game with version > ``after_version``, oldest first."""
        return await self.read_game_range(game_id, after_version, None, limit)

    async def read_game_range(
        self,
        game_id: str,
        after_version: int,
        to_version: int | None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        """Events with ``after_version < version <= to_version`` (no upper bound if None)."""
        check_game_id(game_id)
        _uint(after_version, "version")
        end = "+" if to_version is None else f"{_uint(to_version, 'version')}-0"
        if to_version is not None and to_version <= after_version:
            return []  # an empty window (a reader already there): no round trip, nor the archive's
        entries = cast(
            list[Entry],
            await self.redis.xrange(
                self.keys.game(game_id), f"{after_version + 1}-0", end, count=limit
            ),
        )
        if not entries:
            return await self._from_archive(game_id, after_version, to_version, limit)
        game_type = await self.game_type(game_id)
        return [parse_game_entry(game_id, game_type, eid, fields) for eid, fields in entries]

    async def read_game_tail(self, game_id: str, count: int) -> list[StoredEvent]:
        """A game's last ``count`` events, oldest first (none for an archived game: it
        is over)."""
        check_game_id(game_id)
        entries = cast(
            list[Entry], await self.redis.xrevrange(self.keys.game(game_id), count=count)
        )
        if not entries:
            return []
        game_type = await self.game_type(game_id)
        return [parse_game_entry(game_id, game_type, i, f) for i, f in reversed(entries)]

    async def _from_archive(
        self, game_id: str, after: int, to: int | None, limit: int | None
    ) -> list[StoredEvent]:
        """The same range from the game's archive, if it was archived (else nothing)."""
        meta = cast(
            list[bytes | None],
            await self.redis.hmget(self.keys.meta(game_id), ["archived", "type"]),
        )
        if meta[0] != b"1":
            return []
        raw = cast(bytes | None, await self.redis.get(self.keys.archive(game_id)))
        if raw is None:  # its archive expired (RAFFE_ARCHIVE_TTL_S)
            return []
        game_type = (meta[1] or b"").decode()
        out = [
            e
            for e in archived_events(game_id, game_type, raw)
            if after < e.version and (to is None or e.version <= to)
        ]
        return out[:limit] if limit else out

    async def archive(self, game_id: str, expected_version: int) -> bool:
        """Compact a game's stream (and its command ids) into one compressed value: what
        reads return stays the same. False if the game moved on meanwhile."""
        entries = cast(list[Entry], await self.redis.xrange(self.keys.game(game_id)))
        if not entries or _entry_number(entries[-1][0]) != expected_version:
            return False
        blob = zlib.compress(
            orjson.dumps(
                [
                    [eid.decode(), {k.decode(): v.decode() for k, v in f.items()}]
                    for eid, f in entries
                ]
            ),
            level=6,
        )
        keys = [
            self.keys.game(game_id),
            self.keys.meta(game_id),
            self.keys.commands(game_id),
            self.keys.archive(game_id),
            self.keys.seats(game_id),
            self.keys.bound_tokens(game_id),
        ]
        done = await self._archive(keys=keys, args=[expected_version, blob, self.archive_ttl_s])
        return bool(done)

    async def read_partition(
        self,
        partition: int,
        after_position: int = 0,
        count: int = 500,
        block_ms: int | None = None,
    ) -> list[StoredEvent]:
        """Events of a partition log after ``after_position``, in log order: those of up
        to ``count`` appends (the log keeps an entry per append).

        With ``block_ms`` it waits up to that long for new events when none are there.
        """
        if not 0 <= partition < self.settings.partitions:
            raise InvalidArgument(f"partition must be in 0..{self.settings.partitions - 1}")
        key = self.keys.log(partition)
        start = f"{_uint(after_position, 'position')}-0"
        entries: list[Entry]
        if block_ms is None:
            entries = cast(list[Entry], await self.redis.xrange(key, f"({start}", "+", count=count))
        else:
            reply = cast(
                list[tuple[bytes, list[Entry]]],
                await self.redis.xread({key: start}, count=count, block=block_ms),
            )
            entries = reply[0][1] if reply else []
        return log_events(entries, after_position)

    async def command_result(self, game_id: str, key: str) -> AppendResult | None:
        """The result of an append under idempotency ``key``, if there was one."""
        check_game_id(game_id)
        raw = cast(bytes | None, await self.redis.hget(self.keys.commands(game_id), key))
        if raw is None:
            return None
        version, position, count, *digest = raw.decode().split(":")
        return AppendResult(
            int(version),
            self.partition_of(game_id),
            int(position),
            int(count),
            duplicate=True,
            digest=digest[0] if digest else "",
        )

    async def partition_head(self, partition: int) -> int:
        """The last position written to a partition log (0 when empty)."""
        return (await self.partition_heads([partition]))[0]

    async def partition_heads(self, partitions: Sequence[int]) -> list[int]:
        """The last positions of several partition logs, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for p in partitions:
            pipe.get(self.keys.log_seq(p))
        return [int(raw) if raw else 0 for raw in await pipe.execute()]

    async def meta(self, game_id: str) -> GameMeta | None:
        check_game_id(game_id)
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(self.keys.meta(game_id)))
        if not raw:
            return None
        return GameMeta(
            game_id=game_id,
            game_type=raw[b"type"].decode(),
            version=int(raw[b"version"]),
            partition=int(raw[b"partition"]),
            created_ms=int(raw[b"created"]),
            updated_ms=int(raw[b"updated"]),
            last_event_id=raw[b"last_event_id"].decode(),
        )

    async def version(self, game_id: str) -> int:
        check_game_id(game_id)
        raw = await self.redis.hget(self.keys.meta(game_id), "version")
        return int(raw) if raw else 0

    async def game_type(self, game_id: str) -> str:
        """A game's type ("" for no game). It never changes once the game exists, so it
        is read from Redis once per game (bounded by bytes), not on every read (it was
        half the round trips of a live stream's reads; the gateway asks on every request)."""
        known = self._types.get(game_id)
        if known is not None:
            return known
        raw = cast(bytes | None, await self.redis.hget(self.keys.meta(game_id), "type"))
        if not raw:
            return ""
        game_type = raw.decode()
        self._types.put(game_id, game_type, TYPE_ENTRY_BYTES + len(game_id))
        return game_type


def _decoded(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _entry_number(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[0])


def parse_game_entry(
    game_id: str, game_type: str, entry_id: bytes, f: dict[bytes, bytes]
) -> StoredEvent:
    return StoredEvent(
        game_id=game_id,
        game_type=game_type,
        version=_entry_number(entry_id),
        id=f[b"i"].decode(),
        type=f[b"t"].decode(),
        schema_version=int(f[b"s"]),
        payload=f[b"p"],
        actor=int(f[b"a"]),
        command_id=f[b"c"].decode(),
        time_ms=int(f[b"m"]),
        engine_version=f[b"e"].decode(),
        command=f.get(b"k", b""),
    )


def archived_events(game_id: str, game_type: str, blob: bytes) -> list[StoredEvent]:
    entries = orjson.loads(zlib.decompress(blob))
    return [
        parse_game_entry(
            game_id, game_type, eid.encode(), {k.encode(): v.encode() for k, v in f.items()}
        )
        for eid, f in entries
    ]


def log_events(entries: Sequence[Entry], after: int = 0) -> list[StoredEvent]:
    """The events of partition log entries, in log order, past position ``after`` (a
    reader may resume inside an append's entry: the positions it has seen are left out)."""
    out: list[StoredEvent] = []
    for entry_id, fields in entries:
        out.extend(parse_log_entry(entry_id, fields))
    if out and out[0].position <= after:
        return [e for e in out if e.position > after]
    return out


def parse_log_entry(entry_id: bytes, f: dict[bytes, bytes]) -> list[StoredEvent]:
    """An append's events from its log entry: under the append's last position, the game
    ('g'), its type ('y') and the events as the append announced them ('x'). An entry of
    one event with its own fields ('v', 'i', ...) is how logs were written before."""
    last = _entry_number(entry_id)
    if b"x" not in f:
        return [_event_entry(last, f)]
    return parse_announcement(f[b"g"].decode(), f[b"y"].decode(), f[b"x"], last).events


def _event_entry(position: int, f: dict[bytes, bytes]) -> StoredEvent:
    return StoredEvent(
        game_id=f[b"g"].decode(),
        game_type=f[b"y"].decode(),
        version=int(f[b"v"]),
        id=f[b"i"].decode(),
        type=f[b"t"].decode(),
        schema_version=int(f[b"s"]),
        payload=f[b"p"],
        actor=int(f[b"a"]),
        command_id=f[b"c"].decode(),
        time_ms=int(f[b"m"]),
        engine_version=f[b"e"].decode(),
        position=position,
    )
