"""The gateway's request deadline, over real HTTP (uvicorn on loopback) around a small
app: a request with no answer in time is a 503 ``unavailable``; an answer that starts
as the deadline falls due goes out as it is (it was an HTTP 500: the deadline's
reschedule raised on an expiring timeout when a route answered the cancellation itself,
as a gRPC call cancelled mid-flight does; bench.tournament_crowd found it under load);
a stream that has started is not bound by it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gateway.http.guard import Guard
from gateway.settings import GatewaySettings
from services.core.local_redis import free_port

DEADLINE_S = 0.3


async def slow(request: Request) -> Response:
    await asyncio.sleep(10)
    return JSONResponse({})


async def answers_its_cancellation(request: Request) -> Response:
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:  # what a cancelled gRPC call turns into: an answer
        return JSONResponse({"code": "engine_unavailable"}, status_code=503)
    return JSONResponse({})


async def stream(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        for i in range(4):
            yield f"data: {i}\n\n".encode()
            await asyncio.sleep(DEADLINE_S)

    return StreamingResponse(body(), media_type="text/event-stream")


@pytest.fixture
async def gateway() -> AsyncIterator[str]:
    routes = [Route("/slow", slow), Route("/own", answers_its_cancellation), Route("/s", stream)]
    settings = GatewaySettings(request_timeout_s=DEADLINE_S, read_wait_ms=100, access_log=False)
    app = Guard(Starlette(routes=routes), settings)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning", lifespan="off"))
    serving = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 - uvicorn offers no event to wait on
        await asyncio.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await serving


async def test_no_answer_in_time_is_a_503(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway) as http:
        answer = await http.get("/slow")
    assert answer.status_code == 503
    assert answer.json()["code"] == "unavailable"
    assert answer.headers["retry-after"] == "1"


async def test_an_answer_to_the_cancellation_goes_out_as_it_is(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway) as http:
        answers = await asyncio.gather(*(http.get("/own") for _ in range(20)))
    assert {a.status_code for a in answers} == {503}
    assert {a.json()["code"] for a in answers} == {"engine_unavailable"}


async def test_a_started_stream_outlives_the_deadline(gateway: str) -> None:
    async with httpx.AsyncClient(base_url=gateway) as http:
        answer = await http.get("/s")
    assert answer.status_code == 200
    assert answer.text.count("data:") == 4  # 4 x the deadline, all of it
