"""How gRPC polls its sockets in Raffe's processes, chosen before gRPC starts.

grpcio 1.80 and later poll on EventEngine threads of their own: a message read there is
handed to grpc.aio's poller thread, which then wakes the asyncio loop, so every gRPC
event crosses three threads. With the EventEngine experiments off, the poller thread
polls the sockets itself and one hand-off goes: fewer wake-ups and less CPU per move in
the gateway and the engines (docs/decisions, "command fast paths").

gRPC reads GRPC_EXPERIMENTS once, when it starts (the first channel or server), so this
is set when ``services.core`` is imported, which every service, the gateway and the
benchmarks' minimal chain do before any gRPC call. An operator's own GRPC_EXPERIMENTS
wins. A grpcio that does not know a name logs "Unknown experiment" at error level on
every start (1.85 dropped event_engine_poller and event_engine_dns): the list holds only
the names the pinned grpcio knows, checked by tests/unit/test_grpc_polling.py.
"""

from __future__ import annotations

import os

EXPERIMENTS_OFF = ",".join(
    f"-{name}"
    for name in (
        "event_engine_client",
        "event_engine_listener",
        "event_engine_callback_cq",
        "event_engine_for_all_other_endpoints",
    )
)


def choose_polling() -> None:
    os.environ.setdefault("GRPC_EXPERIMENTS", EXPERIMENTS_OFF)
