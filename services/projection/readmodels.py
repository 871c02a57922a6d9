"""Storing and reading the read models: per game a hash with its summary, the public
(spectators') view, and its version; per partition a lobby index and the
checkpoint. A batch is stored with its checkpoint in one fenced script, so a change and
its checkpoint land together or not at all, and a redelivered event changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from services.core.codec import dumps, loads
from services.core.eventstore import EventStore
from services.core.eventstore.pipelined import Call, run_script_many
from services.kernel.game import SPECTATOR
from services.projection.keys import ReadModelKeys

NO_FENCE = "-"  # rebuilds write a generation nobody else writes
GAMES_ONLY = 0  # a save's position that leaves the checkpoint where it is
TOURNAMENTS = "tournament"  # streams of this type get a lobby of their own

STORE_LUA = """
-- KEYS: 1 checkpoint, 2 fence, 3 lobby of games, 4 lobby of tournaments, 5 finished
--       games (by end time, for the archiver), 6.. one hash per game
-- ARGV: 1 fence token or '-', 2 new checkpoint (0: games only, the checkpoint stays),
--       then per game: version, lobby score, lobby (3 or 4), over (0/1), field count,
--       field, value...
if ARGV[1] ~= '-' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'fenced' end
local checkpoint = tonumber(redis.call('GET', KEYS[1]) or '0')
local position = tonumber(ARGV[2])
if position > 0 and checkpoint >= position then return 'stale' end
local i = 3
for g = 6, #KEYS do
  local version, score, lobby = tonumber(ARGV[i]), ARGV[i + 1], tonumber(ARGV[i + 2])
  local over, n = ARGV[i + 3], tonumber(ARGV[i + 4])
  local stored = tonumber(redis.call('HGET', KEYS[g], 'v') or '0')
  if version > stored then
    local fields = {'v', version}
    for f = 1, n do
      fields[#fields + 1] = ARGV[i + 4 + 2 * f - 1]
      fields[#fields + 1] = ARGV[i + 4 + 2 * f]
    end
    redis.call('HSET', KEYS[g], unpack(fields))
    local id = string.sub(KEYS[g], string.find(KEYS[g], ':game:') + 6)
    redis.call('ZADD', KEYS[lobby], score, id)
    if over == '1' then redis.call('ZADD', KEYS[5], score, id) end
  end
  i = i + 5 + 2 * n
end
if position > 0 then redis.call('SET', KEYS[1], ARGV[2]) end
return 'ok'
"""


@dataclass(frozen=True)
class GameModel:
    """One game's read model at one version."""

    game_id: str
    version: int
    summary: dict[str, Any]
    views: dict[int, dict[str, Any]]  # seat -> view: the spectators' (-1) only

    def fields(self) -> list[str | bytes]:
        out: list[str | bytes] = ["summary", dumps(self.summary)]
        for seat, view in self.views.items():
            out += [f"view:{seat}", dumps(view)]
        return out


@dataclass(frozen=True)
class Save:
    """A partition's batch of read models, to be stored with its new checkpoint."""

    partition: int
    fence: str
    position: int
    games: list[GameModel]


class ReadModels:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.keys = ReadModelKeys(store.keys)
        self._store_script = store.redis.register_script(STORE_LUA)

    async def generation(self) -> int:
        raw = await self.store.redis.get(self.keys.generation)
        return int(raw) if raw else 1

    async def checkpoint(self, gen: int, partition: int) -> int:
        raw = await self.store.redis.get(self.keys.checkpoint(gen, partition))
        return int(raw) if raw else 0

    async def save(
        self, gen: int, partition: int, fence: str, position: int, games: list[GameModel]
    ) -> str:
        return (await self.save_many(gen, [Save(partition, fence, position, games)]))[0]

    async def save_many(self, gen: int, saves: list[Save]) -> list[str]:
        """Each partition's batch with its checkpoint, fenced on its own, all in one
        round trip: "ok", "stale" (already stored) or "fenced" for each."""
        calls = [self._store_call(gen, s) for s in saves]
        replies = await run_script_many(self.store.redis, self._store_script, calls)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in replies]

    def _store_call(self, gen: int, save: Save) -> Call:
        keys = [
            self.keys.checkpoint(gen, save.partition),
            self.keys.fence(save.partition),
            self.keys.lobby(gen, save.partition),
            self.keys.lobby(gen, save.partition, TOURNAMENTS),
            self.keys.ended(save.partition),
            *(self.keys.game(gen, g.game_id) for g in save.games),
        ]
        args: list[str | int | bytes] = [save.fence, save.position]
        for g in save.games:
            fields = g.fields()
            lobby = 4 if g.summary.get("game") == TOURNAMENTS else 3
            score = int(g.summary.get("updated_ms", 0))
            over = 1 if g.summary.get("status", {}).get("over") else 0
            args += [g.version, score, lobby, over, len(fields) // 2, *fields]
        return keys, args

    # -- reads (the gateway) ----------------------------------------------------------

    async def public_view(self, gen: int, game_id: str) -> tuple[int, dict[str, Any]] | None:
        """The version and the spectators' view of a game, if the projection has it."""
        key, field = self.keys.game(gen, game_id), f"view:{SPECTATOR}"
        raw = cast(list[bytes | None], await self.store.redis.hmget(key, ["v", field]))
        if raw[0] is None or raw[1] is None:
            return None
        return int(raw[0]), loads(raw[1])

    async def version(self, gen: int, game_id: str) -> int | None:
        """The version the projection holds of a game (one small read: whether a page
        made from its view is still current)."""
        raw = await self.store.redis.hget(self.keys.game(gen, game_id), "v")
        return int(raw) if raw is not None else None

    async def summaries(self, gen: int, game_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The summaries of these games the projection has, in one round trip."""
        pipe = self.store.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(self.keys.game(gen, game_id), "summary")
        replies = await pipe.execute()
        return {g: loads(r) for g, r in zip(game_ids, replies, strict=True) if r}

    async def lobby(self, gen: int, limit: int, kind: str = "") -> list[dict[str, Any]]:
        """The most recently updated games (``kind="tournament"``: tournaments) of every
        partition, newest first."""
        pipe = self.store.redis.pipeline(transaction=False)
        for p in range(self.store.settings.partitions):
            pipe.zrevrange(self.keys.lobby(gen, p, kind), 0, limit - 1, withscores=True)
        entries: list[tuple[float, str]] = []
        for reply in await pipe.execute():
            entries += [(score, member.decode()) for member, score in reply]
        entries.sort(reverse=True)
        pipe = self.store.redis.pipeline(transaction=False)
        for _, game_id in entries[:limit]:
            pipe.hget(self.keys.game(gen, game_id), "summary")
        return [loads(raw) for raw in await pipe.execute() if raw]
