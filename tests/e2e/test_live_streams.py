"""Live streams hold no Redis connection of the request pool (#16 item 3, #17 item 2):
hundreds of idle viewers leave every other request answering; streams are capped per
address (429) and in all (503), with Retry-After; every viewer of a game gets each move
once, in order, redacted for its seat."""

from __future__ import annotations

import asyncio
import socket
import uuid
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlparse

import httpx

from services.games import GAMES
from services.kernel.playthrough import bot_moves
from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway
from tests.e2e.test_api_contract import sse_frames

PROBLEM = "application/problem+json"


def open_stream(base_url: str, path: str, stack: ExitStack) -> bytes:
    """A raw connection reading a live stream: returns the answer's head, keeps it open."""
    url = urlparse(base_url)
    sock = stack.enter_context(socket.create_connection((url.hostname, url.port), timeout=10))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return head


async def creates(base_url: str, count: int) -> list[int]:
    seats = [{"kind": "human"}, {"kind": "human"}]
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        answers = await asyncio.gather(
            *(
                client.post("/v1/games", json={"game": "giraffe-raffe", "seats": seats})
                for _ in range(count)
            )
        )
    return [a.status_code for a in answers]


def test_300_idle_streams_leave_every_other_request_answering(system: System) -> None:
    settings = {"RAFFE_STREAMS_PER_ADDRESS": "1000", "RAFFE_RATE_PER_ADDRESS": "5000"}
    with extra_gateway(system, **settings) as http, ExitStack() as stack:
        game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        path = f"/v1/games/{game['game_id']}/events/stream?after=1000"
        heads = [open_stream(str(http.base_url), path, stack) for _ in range(300)]
        assert all(h.startswith(b"HTTP/1.1 200") for h in heads), heads[0]
        statuses = asyncio.run(creates(str(http.base_url), 200))
        assert statuses == [201] * 200, sorted(set(statuses))
        assert http.get(f"/v1/games/{game['game_id']}").status_code == 200
        assert http.get("/v1/games").status_code == 200


def test_streams_are_capped_per_address_and_in_all(system: System) -> None:
    with extra_gateway(system, RAFFE_STREAMS_PER_ADDRESS="3") as http, ExitStack() as stack:
        game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        path = f"/v1/games/{game['game_id']}/events/stream"
        for _ in range(3):
            assert open_stream(str(http.base_url), path, stack).startswith(b"HTTP/1.1 200")
        refused = http.get(path)
        assert refused.status_code == 429 and refused.headers["content-type"] == PROBLEM
        assert refused.json()["code"] == "too_many_streams" and refused.headers["retry-after"]
    with extra_gateway(system, RAFFE_MAX_STREAMS="2") as http, ExitStack() as stack:
        for _ in range(2):
            assert open_stream(str(http.base_url), path, stack).startswith(b"HTTP/1.1 200")
        full = http.get(path)
        assert full.status_code == 503 and full.json()["code"] == "streams_full"
        assert int(full.headers["retry-after"]) >= 1


def test_every_seat_and_spectator_sees_each_move_once_redacted(http: httpx.Client) -> None:
    game = create(http, "riff-raff", [{"kind": "human"}, {"kind": "bot", "bot_level": "random"}])
    token = game["tokens"]["0"]
    url = f"/v1/games/{game['game_id']}/commands"
    body: dict[str, Any] = {"command": {"type": "choose_card", "card": 5}, "command_id": "c5"}
    assert http.post(url, json=body, headers=auth(token)).status_code == 200
    mine = sse_frames(http, game["game_id"], auth(token), 6)
    theirs = sse_frames(http, game["game_id"], {}, 6)
    assert [f["id"] for f in mine] == [f["id"] for f in theirs] == list(range(1, 7))
    chosen = [f["data"] for f in mine if f["data"]["type"] == "CardChosen"]
    seen = [f["data"] for f in theirs if f["data"]["type"] == "CardChosen"]
    own = next(c for c in chosen if c["data"]["seat"] == 0)
    assert own["data"]["card"] == 5  # my own choice, to me
    assert all(
        "card" not in c["data"] for c in seen if c["data"]["seat"] == 0 and not c.get("revealed")
    )


def test_a_stream_ticket_opens_a_seats_private_stream_without_headers(http: httpx.Client) -> None:
    """#17 item 3: what a browser's EventSource does (it cannot send Authorization)."""
    game = create(http, "riff-raff", [{"kind": "human"}, {"kind": "human"}])
    token, game_id = game["tokens"]["0"], game["game_id"]
    body = {"command": {"type": "choose_card", "card": 9}, "command_id": "c9"}
    http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(token))
    assert http.post(f"/v1/games/{game_id}/stream-tickets").status_code == 401
    issued = http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(token))
    assert issued.status_code == 201 and issued.headers["cache-control"] == "no-store"
    ticket = issued.json()["ticket"]
    url = f"/v1/games/{game_id}/events/stream?ticket={ticket}"
    with http.stream("GET", url) as stream:
        for line in stream.iter_lines():
            if "CardChosen" in line and line.startswith("data:"):
                assert '"card":9' in line  # the seat's own secret card: its own stream
                break
    with http.stream("GET", f"/v1/games/{game_id}/events/stream?ticket=forged") as bad:
        assert bad.status_code == 401
    other = create(http, "riff-raff", [{"kind": "human"}, {"kind": "human"}])
    with http.stream("GET", f"/v1/games/{other['game_id']}/events/stream?ticket={ticket}") as wrong:
        assert wrong.status_code == 403


async def _watch_while_moving(base_url: str) -> dict[int, list[int]]:
    async with httpx.AsyncClient(base_url=base_url, timeout=20) as http:
        seed = f"fanout-{uuid.uuid4().hex[:8]}"
        seats = [{"kind": "human"}] * 3
        body = {"game": "giraffe-raffe", "seats": seats, "seed": seed, "practice": True}
        game = (await http.post("/v1/games", json=body)).json()
        game_spec = GAMES["giraffe-raffe"]
        moves = bot_moves(game_spec, 3, seed, game_spec.bot("random"))[:8]
        seen: dict[int, list[int]] = {0: [], 1: [], 2: []}
        arrived = asyncio.Event()

        async def watch(seat: int) -> None:
            url = f"/v1/games/{game['game_id']}/events/stream?after={game['version']}"
            headers = auth(game["tokens"][str(seat)])
            async with http.stream("GET", url, headers=headers) as stream:
                async for line in stream.aiter_lines():
                    if line.startswith("id:"):
                        seen[seat].append(int(line[3:]))
                        arrived.set()

        watchers = [asyncio.create_task(watch(seat)) for seat in range(3)]
        for n, (seat, version, command) in enumerate(moves):
            answer = await http.post(
                f"/v1/games/{game['game_id']}/commands",
                json={"command": command, "command_id": uuid.uuid4().hex},
                headers={**auth(game["tokens"][str(seat)]), "If-Match": f'"{version}"'},
            )
            new = answer.json()["version"]
            if n < 3:
                continue  # the first moves race the streams' start, on purpose
            # Then each move reaches every stream before the next one is sent (a liveness
            # bound, not a speed target: frames used to wait for the next move's).
            async with asyncio.timeout(10):
                while not all(ids and ids[-1] >= new for ids in seen.values()):
                    arrived.clear()
                    await arrived.wait()
        for w in watchers:
            w.cancel()
        seen["last"] = [new]
        return seen


def test_viewers_joining_while_moves_happen_miss_no_frame(http: httpx.Client) -> None:
    """Each seat's stream delivers every version once, in order, however its start races
    the moves (a viewer joining used to fold events the others were never sent)."""
    for _ in range(3):
        seen = asyncio.run(_watch_while_moving(str(http.base_url)))
        last = seen.pop("last")[0]
        for seat, ids in seen.items():
            assert ids == list(range(ids[0], last + 1)), (seat, ids)
            assert ids[0] == 4, (seat, ids)
