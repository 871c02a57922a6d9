"""The ratings' read models, folded from each kind's ratings stream (and only from it, so
a rebuild from zero draws the same): per kind

- ``ratings``: player -> {mu, sigma, score, games} (score: openskill's ordinal);
- ``board:<season>`` and ``board:all``: player -> score, for players past their
  provisional games (RAFFE_PROVISIONAL_GAMES), their score after their last game of
  that season;
- ``hist:<player>``: the player's rated games by end time, and ``histe:<player>`` each
  game's entry (places, players, rating before and after).

Every value is a function of one event (GameRated records the games count too), so
folding an event twice writes the same again: two projection replicas may both fold, and
a crash between a write and its checkpoint costs nothing. A kind's keys share one hash
tag, so an event's writes and the checkpoint go in one MULTI, on a cluster too."""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass
from typing import Any, cast

from services.core.codec import dumps, loads, to_domain
from services.core.eventstore import EventStore
from services.ratings.events import TYPES, GameRated
from services.ratings.rater import stream_id
from services.ratings.rules import score, shown

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class Seasons:
    """Seasons of ``length_days`` from ``start`` (a date, UTC); season 0 holds any game
    before it."""

    start: str = "2026-01-01"
    length_days: int = 30

    @property
    def start_ms(self) -> int:
        day = datetime.date.fromisoformat(self.start)
        moment = datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
        return int(moment.timestamp() * 1000)

    def of(self, time_ms: int) -> int:
        return max(0, (time_ms - self.start_ms) // (self.length_days * DAY_MS))

    def bounds(self, season: int) -> tuple[int, int]:
        first = self.start_ms + season * self.length_days * DAY_MS
        return first, first + self.length_days * DAY_MS


class Boards:
    def __init__(self, store: EventStore, seasons: Seasons, provisional_games: int) -> None:
        self.store, self.seasons, self.provisional = store, seasons, provisional_games
        self.seen: dict[str, int] = {}  # per kind: the version folded when last looked

    async def news(self, games: list[str], block_ms: int) -> list[str]:
        """The kinds whose ratings streams hold more than was folded when last looked,
        waiting up to ``block_ms`` for one: a single XREAD over every kind's stream, so a
        follower with nothing to fold costs Redis and itself nothing (it used to ask
        each kind's checkpoint and stream five times a second). One XREAD cannot span a
        cluster's slots: there, every kind counts as news after ``block_ms``."""
        if self.store.settings.cluster or any(g not in self.seen for g in games):
            await asyncio.sleep(block_ms / 1000 if self.store.settings.cluster else 0)
            return games
        keys = {self.store.keys.game(stream_id(g)).encode(): g for g in games}
        block_ms = min(block_ms, int(self.store.settings.redis_timeout_s * 500))
        found = await self.store.redis.xread(
            {k: f"{self.seen[g]}-0" for k, g in keys.items()}, count=1, block=max(1, block_ms)
        )
        return [keys[key] for key, _ in cast(list[tuple[bytes, Any]], found or [])]

    def key(self, game: str, *parts: str) -> str:
        return ":".join([f"{self.store.settings.key_prefix}:{{rt:{game}}}", *parts])

    async def catch_up(self, game: str, limit: int = 500) -> int:
        """Fold what the kind's ratings stream holds past the checkpoint; how many."""
        done = int(await self.store.redis.get(self.key(game, "cp")) or 0)
        self.seen[game] = done
        stored = await self.store.read_game(stream_id(game), done, limit)
        if not stored:
            return 0
        self.seen[game] = stored[-1].version
        pipe = self.store.redis.pipeline(transaction=True)
        for e in stored:
            self._fold(pipe, cast(GameRated, TYPES.parse(to_domain(e))))
        pipe.set(self.key(game, "cp"), stored[-1].version)
        await pipe.execute()
        return len(stored)

    def _fold(self, pipe: Any, e: GameRated) -> None:
        season = str(self.seasons.of(e.ended_ms))
        entry = {
            "game_id": e.game_id,
            "ended_ms": e.ended_ms,
            "players": e.players,
            "places": e.places,
        }
        for seat, player in enumerate(e.players):
            after, games = e.after[seat], e.games[seat]
            rated = {"mu": after[0], "sigma": after[1], "score": score(after), "games": games}
            pipe.hset(self.key(e.game, "ratings"), player, dumps(rated))
            if games >= self.provisional:
                for board in (season, "all"):
                    pipe.zadd(self.key(e.game, "board", board), {player: score(after)})
            mine = {**entry, "seat": seat, "before": e.before[seat], "after": after}
            pipe.zadd(self.key(e.game, "hist", player), {e.game_id: e.ended_ms})
            pipe.hset(self.key(e.game, "histe", player), e.game_id, dumps(mine))

    # -- reading ------------------------------------------------------------------------

    async def ratings_of(self, games: list[str], player: str) -> dict[str, dict[str, Any]]:
        pipe = self.store.redis.pipeline(transaction=False)
        for game in games:
            pipe.hget(self.key(game, "ratings"), player)
        found = await pipe.execute()
        return {g: self._rating(loads(r)) for g, r in zip(games, found, strict=True) if r}

    def _rating(self, raw: dict[str, Any]) -> dict[str, Any]:
        left = max(0, self.provisional - raw["games"])
        return {
            **raw,
            "rating": shown(raw["score"]),
            "provisional": left > 0,
            "provisional_left": left,
        }

    async def board(
        self, game: str, season: str, first: int, count: int
    ) -> list[tuple[int, str, float]]:
        """(rank, player, score) from rank ``first`` (1 = best)."""
        found = await self.store.redis.zrevrange(
            self.key(game, "board", season), first - 1, first + count - 2, withscores=True
        )
        rows = cast(list[tuple[bytes, float]], found)
        return [(first + i, p.decode(), s) for i, (p, s) in enumerate(rows)]

    async def rank(self, game: str, season: str, player: str) -> int | None:
        found = await self.store.redis.zrevrank(self.key(game, "board", season), player)
        return None if found is None else cast(int, found) + 1

    async def size(self, game: str, season: str) -> int:
        return int(await self.store.redis.zcard(self.key(game, "board", season)))

    async def ratings_many(self, game: str, players: list[str]) -> dict[str, dict[str, Any]]:
        if not players:
            return {}
        found = await self.store.redis.hmget(self.key(game, "ratings"), players)
        return {p: self._rating(loads(r)) for p, r in zip(players, found, strict=True) if r}

    async def history(self, game: str, player: str, limit: int) -> list[dict[str, Any]]:
        """The player's rated games of this kind, newest first."""
        key = self.key(game, "hist", player)
        ids = cast(list[bytes], await self.store.redis.zrevrange(key, 0, limit - 1))
        if not ids:
            return []
        found = await self.store.redis.hmget(self.key(game, "histe", player), ids)
        return [loads(r) for r in found if r]
