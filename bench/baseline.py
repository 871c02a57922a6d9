"""The baselines of the full-stack benchmark, as processes of their own:

    python -m bench.baseline grpc   a gRPC server whose Execute does one Lua append
    python -m bench.baseline http   a FastAPI app: GET /ping (small JSON) and
                                    POST /append (one gRPC call to the server above)

Together with the gateway they form the comparison: bare HTTP, the minimal chain
(HTTP -> gRPC -> one Redis Lua append), and the full stack."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import grpc
import uvicorn
from fastapi import FastAPI

from raffe.v1 import common_pb2, common_pb2_grpc
from services.core.eventstore import EventStore, NewEvent, open_store
from services.core.ids import random_uuid
from services.core.loop import run, tune_gc
from services.core.settings import StoreSettings

PAYLOAD = b'{"tree":"pair","cards":["R7","B7"]}'


class MinimalEngine(common_pb2_grpc.EngineServicer):
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.versions: dict[str, int] = {}

    async def Execute(
        self, request: common_pb2.ExecuteRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ExecuteResponse:
        game = request.command.game_id
        event = NewEvent(id=random_uuid(), type="CardsPlayed", payload=PAYLOAD, actor=0)
        result = await self.store.append(
            game,
            "baseline",
            self.versions.get(game, 0),
            uuid.uuid4().hex,
            [event],
            time_ms=1,
            engine_version="baseline",
        )
        self.versions[game] = result.version
        return common_pb2.ExecuteResponse(version=result.version, position=result.last_position)


async def serve_grpc(port: int) -> None:
    store = await open_store(StoreSettings.from_env())
    server = grpc.aio.server()
    common_pb2_grpc.add_EngineServicer_to_server(MinimalEngine(store), server)  # type: ignore[no-untyped-call]
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def http_app(grpc_target: str) -> FastAPI:
    stubs: list[common_pb2_grpc.EngineStub] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        channel = grpc.aio.insecure_channel(grpc_target)  # inside the server's event loop
        stubs.append(common_pb2_grpc.EngineStub(channel))  # type: ignore[no-untyped-call]
        yield
        await channel.close()

    app = FastAPI(lifespan=lifespan)

    @app.get("/ping")
    async def ping() -> dict[str, bool]:
        return {"ok": True}

    @app.post("/append/{game}")
    async def append(game: str) -> dict[str, int]:
        command = common_pb2.Command(game_id=game, seat=0, command_id=uuid.uuid4().hex)
        reply = await stubs[0].Execute(common_pb2.ExecuteRequest(command=command), timeout=10)
        return {"version": reply.version}

    return app


if __name__ == "__main__":
    port = int(os.environ["RAFFE_PORT"])
    if sys.argv[1] == "grpc":
        run(serve_grpc(port))
    else:
        tune_gc()  # as the gateway does
        uvicorn.run(
            http_app(os.environ["BASELINE_GRPC"]), host="127.0.0.1", port=port, log_level="warning"
        )
