"""The FastAPI app: routes, problem+json errors, CORS, body caps, rate limits, metrics."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

from gateway.clients import Clients
from gateway.problems import HANDLERS, problem_response
from gateway.ratelimit import Buckets
from gateway.routes import games
from gateway.settings import GatewaySettings
from gateway.tokens import token_hash

REQUESTS = Counter("raffe_gateway_requests_total", "HTTP requests", ["method", "route", "status"])
LATENCY = Histogram("raffe_gateway_request_seconds", "HTTP latency", ["method", "route"])
DESCRIPTION = """Raffe plays Giraffe Raffe and Giraffometer online.

Create a game, claim or hold a seat's bearer token, read your view, send commands with
`If-Match: "<version>"` and a `command_id` of your own, follow the events live (SSE),
replay any version. Errors are `application/problem+json` with a stable `type`."""


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    settings = settings or GatewaySettings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.clients = await Clients.open(settings)
        yield
        await app.state.clients.close()

    app = FastAPI(title="Raffe", version="1", description=DESCRIPTION, lifespan=lifespan)
    for exc, handler in HANDLERS.items():
        app.add_exception_handler(exc, handler)
    app.include_router(games.router)
    _guards(app, settings)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "If-Match", "Last-Event-ID"],
        expose_headers=["ETag", "Location", "Retry-After"],
    )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app


Next = Callable[[Request], Awaitable[Response]]


def _guards(app: FastAPI, settings: GatewaySettings) -> None:
    per_token = Buckets(settings.rate_per_token, settings.rate_per_token * 2)
    per_address = Buckets(settings.rate_per_address, settings.rate_per_address * 2)

    @app.middleware("http")
    async def guard(request: Request, call_next: Next) -> Response:
        started = time.perf_counter()
        response = await _checked(request, call_next, settings, per_token, per_address)
        route = getattr(request.scope.get("route"), "path", "unmatched")
        REQUESTS.labels(request.method, route, str(response.status_code)).inc()
        LATENCY.labels(request.method, route).observe(time.perf_counter() - started)
        return response


async def _checked(
    request: Request,
    call_next: Next,
    settings: GatewaySettings,
    per_token: Buckets,
    per_address: Buckets,
) -> Response:
    address = request.client.host if request.client else "unknown"
    wait = per_address.take(address)
    auth = request.headers.get("authorization", "")
    if not wait and auth:
        wait = per_token.take(token_hash(auth))
    if wait:
        return problem_response(
            429, "too_many_requests", "slow down", retry_after=max(1, round(wait))
        )
    if request.method == "POST":
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > settings.max_body_bytes:
            return problem_response(
                413, "too_large", f"bodies are at most {settings.max_body_bytes} bytes"
            )
        body = await request.body()
        if len(body) > settings.max_body_bytes:
            return problem_response(
                413, "too_large", f"bodies are at most {settings.max_body_bytes} bytes"
            )
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if body and kind != "application/json":
            return problem_response(415, "unsupported_media_type", "send application/json")
    return await call_next(request)
