"""What the gateway talks to: the event store's Redis (read models, seat tokens), the
engines and the projection over gRPC. Built once by the app's lifespan."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from gateway.accounts.service import AccountLimits, Accounts
from gateway.accounts.tokens import SeatTokens
from gateway.games.recent import RecentViews
from gateway.games.rematch import Rematches
from gateway.http.quota import CreateQuota, JoinLimits
from gateway.live.delay import Delays
from gateway.live.holds import Holds
from gateway.live.hub import LiveHub
from gateway.settings import GatewaySettings
from gateway.tournaments.pages import TournamentPages
from raffe.v1 import common_pb2, projection_pb2_grpc
from services.accounts.passwords import Passwords
from services.core.codec import loads
from services.core.errors import UnknownGame
from services.core.eventstore import EventStore, check_game_id, open_store
from services.core.eventstore.connect import listener_client
from services.core.presence import Presence
from services.core.readiness import Readiness
from services.core.transport import EngineClient, typed_error
from services.projection.readmodels import ReadModels
from services.projection.streams import STREAMS
from services.quickplay.queue import Queue
from services.ratings.boards import Boards
from services.ratings.follow import boards_of
from services.ratings.rules import BOT_PREFIX


@dataclass
class Clients:
    settings: GatewaySettings
    store: EventStore
    engines: dict[str, EngineClient]
    projection: projection_pb2_grpc.ProjectionStub
    projection_channel: grpc.aio.Channel
    read_models: ReadModels
    tokens: SeatTokens
    live: LiveHub
    quota: CreateQuota
    joins: JoinLimits
    accounts: Accounts
    boards: Boards
    queue: Queue
    rematches: Rematches
    delays: Delays
    holds: Holds
    pages: TournamentPages
    recent_views: RecentViews = field(default_factory=RecentViews)
    _gen: tuple[float, int] = field(default=(0.0, 1))

    @classmethod
    async def open(cls, settings: GatewaySettings) -> Clients:
        store = await open_store(settings.store)
        channel = grpc.aio.insecure_channel(
            settings.projection, options=[("grpc.lb_policy_name", "round_robin")]
        )
        # Its own connection, outside the pool: it listens for as long as the gateway runs.
        listener = listener_client(settings.store)
        tokens = SeatTokens(store, settings.token_ttl_s)
        prefix, heartbeat = settings.store.key_prefix, settings.sse_heartbeat_s
        presence = Presence(
            store.redis, prefix, heartbeat, settings.gone_after_s, settings.claim_after_s
        )
        delays = Delays(store)
        live = LiveHub(
            store,
            STREAMS,
            listener,
            settings.streams_per_address,
            settings.max_streams,
            tokens,
            presence,
            delays,
            heartbeat,
        )
        live.start()
        engines = {
            name: EngineClient.connect(target, multiplexed=True)
            for name, target in settings.engines.items()
        }
        read_models = ReadModels(store)
        return cls(
            settings,
            store,
            engines,
            projection_pb2_grpc.ProjectionStub(channel),  # type: ignore[no-untyped-call]
            channel,
            read_models,
            tokens,
            live,
            CreateQuota(store, settings.creates_per_hour),
            JoinLimits(store, settings.joins_per_address, settings.joins_per_minute),
            accounts(store, tokens, settings),
            boards_of(store, settings.ratings),
            Queue(store),
            Rematches(store),
            delays,
            Holds(engines),
            TournamentPages(read_models),
        )

    async def failing(self) -> list[str]:
        """What this gateway needs and cannot reach now: "redis", "engine:<game>";
        "draining" once it stops (the load balancer sends it nothing new)."""
        if self.live.draining:
            return ["draining"]
        checks = [Readiness(self.store.redis).check()]
        checks += [engine.ready() for engine in self.engines.values()]
        names = ["redis", *(f"engine:{game}" for game in self.engines)]
        answers = await asyncio.gather(*checks)
        return [name for name, ok in zip(names, answers, strict=True) if not ok]

    async def names(self, game_ids: list[str]) -> dict[str, dict[int, str]]:
        """Each game's seats held by players (seat -> the player's name now)."""
        return (await self.seated(game_ids))[0]

    async def seated(
        self, game_ids: list[str]
    ) -> tuple[dict[str, dict[int, str]], dict[str, set[int]]]:
        """Each game's seats held by players: seat -> the player's name now; and the
        seats whose players are bot accounts (docs/bot-api.md), marked wherever shown."""
        seated = await self.tokens.players(game_ids)
        found = sorted({p for s in seated.values() for p in s.values()})
        entries = await self.accounts.entries(found)
        names = {
            g: {seat: entries.get(p, {}).get("name", "") for seat, p in players.items()}
            for g, players in seated.items()
        }
        bots = {
            g: {seat for seat, p in players.items() if entries.get(p, {}).get("bot")}
            for g, players in seated.items()
        }
        return names, bots

    async def player_names(self, players: list[str]) -> dict[str, str]:
        """Names of rated players: an account's name now, a bot level's own."""
        names = await self.accounts.names([p for p in players if not p.startswith(BOT_PREFIX)])
        for p in players:
            if p.startswith(BOT_PREFIX):
                names[p] = f"Bot ({p[len(BOT_PREFIX) :]})"
        return names

    async def close(self) -> None:
        await self.live.close()
        for engine in self.engines.values():
            await engine.close()
        await self.projection_channel.close()
        await self.store.redis.aclose()

    async def game_type(self, game_id: str) -> str:
        """The game's type (the event store remembers it, within a byte budget)."""
        check_game_id(game_id)
        game_type = await self.store.game_type(game_id)
        if not game_type:
            raise UnknownGame(f"no game {game_id}")
        return game_type

    async def engine_for(self, game_id: str) -> EngineClient:
        game = await self.game_type(game_id)
        if game not in self.engines:
            raise UnknownGame(f"game {game_id} is a {game} game, which this gateway does not serve")
        return self.engines[game]

    async def generation(self) -> int:
        """The read models' generation, re-read at most once a second."""
        checked, gen = self._gen
        if time.monotonic() - checked > 1.0:
            gen = await self.read_models.generation()
            self._gen = (time.monotonic(), gen)
        return gen

    async def projected_view(
        self, game_id: str, min_version: int
    ) -> tuple[int, dict[str, Any]] | None:
        """The read model's public (spectators') view if it has ``min_version``, else
        None: the caller asks the engine, once that version exists (``await_version``)."""
        found = await self.read_models.public_view(await self.generation(), game_id)
        return found if found and found[0] >= min_version else None

    async def await_version(self, game_id: str, min_version: int) -> None:
        """Until the game has ``min_version`` (woken by its announcement, no polling), or
        RAFFE_READ_WAIT_MS has passed."""
        if min_version:
            await self.live.wait_version(game_id, min_version, self.settings.read_wait_ms / 1000)

    async def replay(
        self, game_id: str, seat: int, version: int, reveal: bool = False
    ) -> dict[str, Any]:
        request = common_pb2.ReplayRequest(
            game_id=game_id, seat=seat, version=version, reveal=reveal
        )
        try:
            reply = await self.projection.Replay(request, timeout=10)
        except grpc.aio.AioRpcError as error:
            raise typed_error(error) from None
        return dict(loads(reply.view_json))


def accounts(store: EventStore, tokens: SeatTokens, settings: GatewaySettings) -> Accounts:
    limits = AccountLimits(
        store,
        {
            "register": settings.registrations_per_window,
            "sign_in": settings.sign_ins_per_window,
            "sign_in_account": settings.sign_ins_per_account,
            "queue_join": settings.queue_joins_per_window,
            # an address carries many players (a household, a school): ten times as many
            "queue_join_address": 10 * settings.queue_joins_per_window,
        },
        settings.account_window_s,
    )
    passwords = Passwords(settings.argon2_time_cost, settings.argon2_memory_kib)
    return Accounts(store, tokens, passwords, settings.session_ttl_s, limits)
