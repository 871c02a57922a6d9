"""The FastAPI app: routes, problem+json errors, CORS, body caps, rate limits, metrics."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from gateway import challenges, chat, moderation
from gateway.accounts import events as account_events
from gateway.accounts import friends, ladder, notifications, vacation
from gateway.accounts import routes as accounts
from gateway.clients import Clients
from gateway.games import catalog, quickplay, rematch_routes
from gateway.games import routes as games
from gateway.games.fast_path import CommandFastPath
from gateway.games.stream_fast_path import StreamFastPath
from gateway.http import openapi
from gateway.http.guard import Guard
from gateway.http.problems import HANDLERS
from gateway.live.stream import BODIES, LiveStream
from gateway.records import ratings
from gateway.records import routes as records
from gateway.settings import GatewaySettings
from gateway.tournaments import routes as tournaments
from gateway.web import mount_web

DESCRIPTION = """Raffe plays Giraffe Raffe, Giraffometer and Riff Raff online.

Create a game, claim or hold a seat's bearer token, read your view, send commands with
`If-Match: "<version>"` and a `command_id` of your own, follow the events live (SSE),
replay any version. Errors are `application/problem+json` with a stable `type`."""


# Where a LiveStream answers: games' and tournaments' streams, and a player's account
# stream (elsewhere one would run inside the middlewares, as any other answer).
STREAM_PATHS = ("/stream", "/v1/accounts/me/events")


class RaffeApp(FastAPI):
    """The app, which runs live streams' bodies outside its middlewares: a stream's
    answer (gateway.live.stream.LiveStream) sends its head through them and leaves its
    body here, run with the server's own ``send`` once they have returned. Only requests
    whose path ends as a stream's does (``STREAM_PATHS``) are offered this (the rest pay
    nothing for it)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith(STREAM_PATHS):
            await super().__call__(scope, receive, send)
            return
        bodies: list[LiveStream] = []
        scope[BODIES] = bodies
        try:
            await super().__call__(scope, receive, send)
        except BaseException:
            for stream in bodies:
                await stream.abandon()
            raise
        for stream in bodies:
            await stream.run(receive, send)


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.clients = await Clients.open(settings)
        yield
        await app.state.clients.close()

    app = RaffeApp(
        title="Raffe",
        version="1",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # gateway.web serves /docs with local assets
        redoc_url=None,
        generate_unique_id_function=openapi.operation_id,
        # Metrics are Prometheus's (gateway.http.guard) and no OpenTelemetry provider is set:
        # with these on, FastAPI asked the global providers on every request (#25).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    for exc, handler in HANDLERS.items():
        app.add_exception_handler(exc, handler)
    app.include_router(games.router)
    app.include_router(tournaments.router)
    app.include_router(catalog.router)
    app.include_router(accounts.router)
    app.include_router(account_events.router)
    app.include_router(notifications.router)
    app.include_router(vacation.router)
    app.include_router(ladder.router)
    app.include_router(friends.router)
    app.include_router(challenges.router)
    app.include_router(chat.router)
    app.include_router(moderation.router)
    app.include_router(ratings.router)
    app.include_router(quickplay.router)
    app.include_router(records.router)
    app.include_router(rematch_routes.router)
    mount_web(app)
    openapi.install(app)
    # added later = outer: CORS, then the guard (its refusals carry CORS headers), then the
    # command fast path (commands pass rate limits and caps, and answer with CORS headers),
    # then the stream's (inside the command's: a command crosses no layer more for it)
    app.add_middleware(StreamFastPath)
    app.add_middleware(CommandFastPath)
    app.add_middleware(Guard, settings=settings)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "Last-Event-ID"],
        expose_headers=["ETag", "Location", "Retry-After"],
    )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """Liveness: the process answers (a Redis outage must not restart it)."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        """Readiness: Redis answers and so does every engine (each reaching Redis)."""
        failing = await request.app.state.clients.failing()
        body = {"status": "not ready" if failing else "ready", "failing": failing}
        return JSONResponse(body, status_code=503 if failing else 200)

    return app
