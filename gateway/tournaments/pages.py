"""A tournament's page (GET /v1/tournaments/{id}) and who sits where (GET /me), made once
per version of the projection's read model and kept encoded.

With a thousand entrants the page is a few hundred KiB (every player, every round's
tables, the standings, the ratings after each round), and every person on the
tournament page reads it and their own tables after a round is paired: made per request
(read the view, validate it through the response model, encode it) a thousand such
reads took the gateways seconds and the answers timed out (#28, bench.tournament_crowd).
Now a request costs one small Redis read (the version the projection holds) and, when a
newer version is there, one process per gateway makes its page: the body as the
response model encodes it and each player's tables, while the others wait for it.

When the projection lags (a round just paired, 250 games being made), the page comes
from the engine instead, and the same holds: one engine call per gateway and version,
the other readers wait for its page. (Each reader calling the engine sent a thousand
whole views to a tournament engine under a quarter core at once: 503s past the
deadline in bench.tournament_crowd.) Readers waiting for the projection to catch up
share one poller of its version per tournament and gateway, rather than each polling
Redis."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from gateway.games.models import Tournament
from services.core.lru import BytesLRU
from services.projection.readmodels import ReadModels
from services.tournament.ids import table_game_id

MAX_BYTES = 32 * 1024 * 1024  # a few large tournaments' pages at once
log = logging.getLogger(__name__)
CATCH_UP_S = 0.02  # how often a read waiting for the projection looks again


@dataclass(frozen=True)
class Page:
    version: int
    body: bytes  # the answer to GET /v1/tournaments/{id}
    tables: dict[int, list[dict[str, Any]]]  # player -> their tables, round by round
    over: bool


@dataclass
class _Watch:
    """A tournament's version in the projection, as one poller reads it for the
    readers waiting for a newer one."""

    version: int | None = None
    waiters: int = 0
    moved: asyncio.Condition = field(default_factory=asyncio.Condition)
    poller: asyncio.Task[None] | None = None  # held: a task nobody holds may vanish

    def has(self, version: int) -> bool:
        return self.version is not None and self.version >= version


class TournamentPages:
    def __init__(self, read_models: ReadModels, max_bytes: int = MAX_BYTES) -> None:
        self.read_models = read_models
        self._pages: BytesLRU[str, Page] = BytesLRU(max_bytes)
        self._making: dict[str, asyncio.Lock] = {}
        self._watches: dict[tuple[int, str], _Watch] = {}

    async def page(
        self, gen: int, tournament_id: str, min_version: int, wait_s: float = 0.0
    ) -> Page | None:
        """The page at the read model's version, if it has ``min_version`` (else None:
        the caller asks the engine), waiting up to ``wait_s`` for the projection to
        catch up."""
        version = await self.read_models.version(gen, tournament_id)
        if (version is None or version < min_version) and wait_s > 0:
            version = await self._caught_up(gen, tournament_id, min_version, wait_s)
        if version is None or version < min_version:
            return None
        kept = self._pages.get(tournament_id)
        if kept is not None and kept.version >= version:
            return kept
        lock = self._making.setdefault(tournament_id, asyncio.Lock())
        async with lock:  # one maker per tournament; the others find its page
            kept = self._pages.get(tournament_id)
            if kept is not None and kept.version >= version:
                return kept
            found = await self.read_models.public_view(gen, tournament_id)
            if found is None or found[0] < min_version:
                return None
            page = self._keep(tournament_id, make_page(tournament_id, *found))
        self._forget_lock(tournament_id, lock)
        return page

    async def from_engine(
        self,
        tournament_id: str,
        min_version: int,
        view: Callable[[], Awaitable[tuple[int, dict[str, Any]]]],
    ) -> Page:
        """The page from the engine's ``view`` (version, public view), asked once for
        every reader that needs ``min_version`` while the projection lags."""
        lock = self._making.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            kept = self._pages.get(tournament_id)
            if kept is not None and kept.version >= min_version:
                return kept
            page = make_page(tournament_id, *await view(), source="engine")
            page = self._keep(tournament_id, page)
        self._forget_lock(tournament_id, lock)
        return page

    async def _caught_up(
        self, gen: int, tournament_id: str, min_version: int, wait_s: float
    ) -> int | None:
        """The projection's version once it has ``min_version``, or as it is after
        ``wait_s``. One poller per tournament reads it for every reader waiting: hundreds of
        readers at a gateway, each polling on its own at a round's start, flooded Redis
        (bench.page_burst)."""
        key = (gen, tournament_id)
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = _Watch()
            watch.poller = asyncio.create_task(self._poll(key, watch))
        watch.waiters += 1
        try:
            async with watch.moved:
                caught = watch.moved.wait_for(lambda: watch.has(min_version))
                await asyncio.wait_for(caught, wait_s)
        except TimeoutError:
            pass
        finally:
            watch.waiters -= 1
        return watch.version

    async def _poll(self, key: tuple[int, str], watch: _Watch) -> None:
        """Read the projection's version every CATCH_UP_S while anyone waits for it."""
        try:
            while True:
                await asyncio.sleep(CATCH_UP_S)
                if not watch.waiters:
                    return
                try:
                    watch.version = await self.read_models.version(*key)
                except Exception as error:  # Redis out of reach: the readers time out
                    log.warning("projection version unread: %s", error)
                    return
                async with watch.moved:
                    watch.moved.notify_all()
        finally:
            if self._watches.get(key) is watch:
                del self._watches[key]

    def _keep(self, tournament_id: str, page: Page) -> Page:
        kept = self._pages.get(tournament_id)
        if kept is not None and kept.version >= page.version:
            return kept  # a newer page made meanwhile (from the other source)
        self._pages.put(tournament_id, page, 3 * len(page.body))
        return page

    def _forget_lock(self, tournament_id: str, lock: asyncio.Lock) -> None:
        if not lock.locked() and self._making.get(tournament_id) is lock:
            self._making.pop(tournament_id, None)


def make_page(
    tournament_id: str, version: int, view: dict[str, Any], source: str = "projection"
) -> Page:
    body = {"tournament_id": tournament_id, "version": version, "source": source}
    body |= with_games(tournament_id, view)
    encoded = orjson.dumps(Tournament.model_validate(body).model_dump(mode="json"))
    return Page(version, encoded, tables_by_player(tournament_id, view), view["status"]["over"])


def with_games(tournament_id: str, view: dict[str, Any]) -> dict[str, Any]:
    """The view with each table's game id, and the progress in games."""
    rounds = [
        {
            **r,
            "tables": [
                {**t, "game_id": table_game_id(tournament_id, r["round"], t["table"])}
                for t in r["tables"]
            ],
        }
        for r in view["rounds"]
    ]
    tables = [t for r in rounds for t in r["tables"]]
    done = sum(1 for t in tables if t["keys"] is not None)
    return {**view, "rounds": rounds, "progress": {"games": len(tables), "finished": done}}


def tables_by_player(tournament_id: str, view: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Every table each player sits at, round by round."""
    out: dict[int, list[dict[str, Any]]] = {}
    for r in view["rounds"]:
        for t in r["tables"]:
            for seat, player in enumerate(t["players"]):
                out.setdefault(player, []).append(
                    {
                        "round": r["round"],
                        "game": r["game"],
                        "game_id": table_game_id(tournament_id, r["round"], t["table"]),
                        "seat": seat,
                        "finished": t["keys"] is not None,
                    }
                )
    return out
