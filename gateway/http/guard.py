"""The gateway's gate, in front of every route: rate limits, body caps, the JSON media
type, request metrics, and a deadline: a request with no answer after
RAFFE_REQUEST_TIMEOUT_S (Redis hung, an engine stuck) is cancelled and answered 503
``unavailable`` with Retry-After, so a client never waits on a hung dependency for
longer than that (a live stream, once its answer has started, is not bound by it).

A plain ASGI middleware rather than ``@app.middleware("http")``: Starlette's
BaseHTTPMiddleware runs the app in a task of its own behind memory streams, a large
share of the gateway's CPU per command in the profile (docs/decisions, "lean
runtime")."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
import time
from typing import Any

import orjson
from prometheus_client import Counter, Histogram
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.accounts.tokens import token_hash
from gateway.http.access import AccessLog
from gateway.http.addresses import client_address, networks
from gateway.http.problems import failure_problem, on_raffe_error, problem_response
from gateway.http.ratelimit import Buckets
from gateway.settings import GatewaySettings
from services.core.logs import REQUEST_ID

log = logging.getLogger(__name__)
REQUEST_ID_FORMAT = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# On every answer: browsers never guess a type (a JSON body is never run as a page), and
# no cache keeps an answer (seat tokens, private views).
SAFETY_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store")]
REQUESTS = Counter("raffe_gateway_requests_total", "HTTP requests", ["method", "route", "status"])
# What a door into the app that is no route (gateway.games.fast_path) names its route by.
ROUTE_LABEL = "raffe.route"
LATENCY = Histogram("raffe_gateway_request_seconds", "HTTP latency", ["method", "route"])


# The one route a form may POST to: the one-click unsubscribe of turn mails, which mail
# clients send as ``List-Unsubscribe=One-Click`` (RFC 8058); its body is not read.
FORM_PATHS = frozenset({"/v1/notifications/email/unsubscribe"})
FORMS = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


class Guard:
    def __init__(self, app: ASGIApp, settings: GatewaySettings) -> None:
        self.app, self.settings = app, settings
        self.per_token = Buckets(settings.rate_per_token, settings.rate_per_token * 2)
        self.per_address = Buckets(settings.rate_per_address, settings.rate_per_address * 2)
        self.trusted = networks(settings.trusted_proxies)
        self.access = AccessLog() if settings.access_log else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [500]
        address = client_address(scope, self.trusted)
        scope.setdefault("state", {})["client_address"] = address
        request_id = _request_id(scope)
        REQUEST_ID.set(request_id)  # this request's task: its logs and engine calls carry it

        started_response, timed_out = [False], [False]
        task = asyncio.current_task()
        assert task is not None

        def expire() -> None:
            """The deadline binds until the answer starts: a stream may go on for hours.
            (asyncio.timeout's reschedule raised when the answer started just as the
            deadline fell due, an HTTP 500 under load: bench.tournament_crowd.)"""
            if not started_response[0]:
                timed_out[0] = True
                task.cancel()

        deadline = asyncio.get_running_loop().call_later(self.settings.request_timeout_s, expire)

        async def send_noting_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                started_response[0] = True
                deadline.cancel()
                status[0] = message["status"]
                request_header = (b"x-request-id", request_id.encode())
                message["headers"] = [*message.get("headers", []), *SAFETY_HEADERS, request_header]
            await send(message)

        try:
            try:
                await self._checked(scope, receive, send_noting_status)
            finally:
                deadline.cancel()
        except asyncio.CancelledError:
            if not timed_out[0] or started_response[0]:
                raise  # the server's own cancellation (a client gone, a shutdown)
            task.uncancel()
            wait = self.settings.request_timeout_s
            refusal = problem_response(
                503, "unavailable", f"no answer within {wait:g} s: try again", retry_after=1
            )
            await refusal(scope, receive, send_noting_status)
        except Exception as error:  # past every handler: still problem+json, with CORS
            if started_response[0]:
                raise
            problem = failure_problem(error)
            if problem.code == "internal":
                log.error("unhandled error", exc_info=error)
            else:  # Redis out of reach (a failover): a 503 the client retries, no bug
                log.warning("event store unavailable", extra={"error": str(error)})
            refusal = await on_raffe_error(Request(scope), problem)
            await refusal(scope, receive, send_noting_status)
        finally:
            route = scope.get(ROUTE_LABEL) or getattr(scope.get("route"), "path", "unmatched")
            took = time.perf_counter() - started
            _counted(scope["method"], route, status[0]).inc()
            _timed(scope["method"], route).observe(took)
            if self.access is not None:
                self.access.request(
                    request_id,
                    method=scope["method"],
                    path=scope["path"],  # never the query: stream tickets ride there
                    status=status[0],
                    ms=round(took * 1000, 2),
                    client=address,
                )

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        wait = self._rate_wait(scope, headers)
        if wait:
            refusal = problem_response(
                429, "too_many_requests", "slow down", retry_after=max(1, round(wait))
            )
            await refusal(scope, receive, send)
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await self._body(headers, receive)
        refused = self._body_refusal(headers, body, scope["path"])
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, replaying(body or b"", receive), send)

    def _rate_wait(self, scope: Scope, headers: Headers) -> float:
        wait = self.per_address.take(scope["state"]["client_address"])
        auth = headers.get("authorization", "")
        if not wait and auth:
            wait = self.per_token.take(token_hash(auth))
        return wait

    async def _body(self, headers: Headers, receive: Receive) -> bytes | None:
        """The whole body, or None once it passes the cap (the rest is not read)."""
        cap = self.settings.max_body_bytes
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > cap:
            return None
        return await read_body(receive, cap)

    def _body_refusal(self, headers: Headers, body: bytes | None, path: str) -> JSONResponse | None:
        cap = self.settings.max_body_bytes
        if body is None:
            return problem_response(413, "too_large", f"bodies are at most {cap} bytes")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind in FORMS and path in FORM_PATHS:  # a mail client's one click (RFC 8058)
            return None
        if body and kind != "application/json":
            return problem_response(415, "unsupported_media_type", "send application/json")
        if body and not _strict_json(body):
            return problem_response(
                400,
                "bad_json",
                "the body is not JSON (RFC 8259: UTF-8, no NaN or Infinity, no lone surrogates)",
            )
        return None


@functools.lru_cache(maxsize=1024)
def _counted(method: str, route: str, status: int) -> Any:
    """The request counter's child for these labels, looked up once (routes are a known
    few and methods and statuses fewer; a lookup per request cost about a microsecond
    each, on every command)."""
    return REQUESTS.labels(method, route, str(status))


@functools.lru_cache(maxsize=1024)
def _timed(method: str, route: str) -> Any:
    return LATENCY.labels(method, route)


def _request_id(scope: Scope) -> str:
    """The caller's X-Request-Id when it is a sane one, else a new id."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            said = value.decode("latin-1")
            return said if REQUEST_ID_FORMAT.match(said) else secrets.token_hex(8)
    return secrets.token_hex(8)


def _strict_json(body: bytes) -> bool:
    """Whether ``body`` is JSON as RFC 8259 has it. Python's json module (which FastAPI
    parses with) also takes NaN, Infinity and lone surrogates (\\ud800), which no
    encoder downstream can write again; orjson refuses them."""
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    return True


async def read_body(receive: Receive, cap: int | None = None) -> bytes | None:
    """The whole body, or None once it passes ``cap`` (the rest is not read)."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away; the app sees an empty body and no one reads
        chunk = message.get("body", b"")
        size += len(chunk)
        if cap is not None and size > cap:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then the real channel."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
