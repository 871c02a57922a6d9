"""Live streams hold no Redis connection of the request pool (#16 item 3, #17 item 2):
hundreds of idle viewers leave every other request answering; streams are capped per
address (429) and in all (503), with Retry-After; every viewer of a game gets each move
once, in order, redacted for its seat."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
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


def open_stream(base_url: str, path: str, stack: ExitStack, forwarded_for: str = "") -> bytes:
    """A raw connection reading a live stream: returns the answer's head, keeps it open
    (``forwarded_for``: sent as X-Forwarded-For, as a proxy in front would)."""
    url = urlparse(base_url)
    sock = stack.enter_context(socket.create_connection((url.hostname, url.port), timeout=10))
    proxy = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{proxy}\r\n"
    sock.sendall(request.encode())
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


def test_behind_a_trusted_proxy_streams_are_capped_per_client_not_per_proxy(
    system: System,
) -> None:
    """#28 item 2: every client behind the load balancer shares its address; trusted,
    its X-Forwarded-For names the client, so one client's cap leaves the others alone;
    from a peer that is not trusted the header is ignored (a client cannot dodge its cap
    by naming another address)."""
    trusted = {"RAFFE_STREAMS_PER_ADDRESS": "2", "RAFFE_TRUSTED_PROXIES": "127.0.0.1/32"}
    with extra_gateway(system, **trusted) as http, ExitStack() as stack:
        game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        path = f"/v1/games/{game['game_id']}/events/stream"
        base = str(http.base_url)
        for _ in range(2):
            assert open_stream(base, path, stack, "203.0.113.1").startswith(b"HTTP/1.1 200")
        assert b" 429 " in open_stream(base, path, stack, "203.0.113.1")[:20]
        for _ in range(2):  # another client behind the same proxy
            assert open_stream(base, path, stack, "203.0.113.2").startswith(b"HTTP/1.1 200")
    untrusted = {"RAFFE_STREAMS_PER_ADDRESS": "2", "RAFFE_TRUSTED_PROXIES": "10.0.0.0/8"}
    with extra_gateway(system, **untrusted) as http, ExitStack() as stack:
        base = str(http.base_url)
        for address in ("203.0.113.1", "203.0.113.2"):
            assert open_stream(base, path, stack, address).startswith(b"HTTP/1.1 200")
        assert b" 429 " in open_stream(base, path, stack, "203.0.113.3")[:20]


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


def view_frames(base_url: str, path: str, headers: dict[str, str], until: int) -> list[Any]:
    """The ``view`` frames of a live stream (views=true) up to version ``until``."""
    frames: list[Any] = []
    deadline = time.monotonic() + 15
    with httpx.stream("GET", base_url + path, headers=headers, timeout=20) as stream:
        kind = ""
        for line in stream.iter_lines():
            if time.monotonic() > deadline:
                break
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind == "view":
                frames.append(json.loads(line[5:]))
                if frames[-1]["version"] >= until:
                    break
    return frames


def test_a_stream_with_views_carries_each_audiences_view_and_commands(
    http: httpx.Client,
) -> None:
    """#24 item 3: with views=true a stream sends, at once and after each batch of
    events, its audience's view and legal commands at the new version: exactly what the
    view and commands routes answer for that seat at that version (a seat's own secret
    only on its own stream), so a table needs no read after another player's move."""
    game = create(http, "giraffometer", [{"kind": "human"}] * 2, options={"target": 100})
    game_id, tokens, start = game["game_id"], game["tokens"], game["version"]
    base = str(http.base_url).rstrip("/")
    path = f"/v1/games/{game_id}/events/stream?views=true"
    body = {"command": {"type": "vote", "lowest": 3, "highest": 5}, "command_id": "v"}
    results: dict[str, list[Any]] = {}
    with ThreadPoolExecutor(2) as pool:
        spectator = pool.submit(view_frames, base, path, {}, start + 1)
        seat1 = pool.submit(view_frames, base, path, auth(tokens["1"]), start + 1)
        time.sleep(0.5)
        done = http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(tokens["0"]))
        assert done.status_code == 200 and done.json()["version"] == start + 1
        results = {"spectator": spectator.result(), "seat1": seat1.result()}
    for who, frames in results.items():  # at once, then after the move
        assert [f["version"] for f in frames] == [start, start + 1], who
    seen_by_1 = results["seat1"][-1]
    assert seen_by_1["seat"] == 1 and seen_by_1["view"]["voted"] == [0]
    assert seen_by_1["view"]["your_vote"] is None  # seat 0's vote stays seat 0's
    legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(tokens["1"])).json()
    assert seen_by_1["commands"] == legal
    at = {"min_version": start + 1}
    view = http.get(f"/v1/games/{game_id}", params=at, headers=auth(tokens["1"]))
    assert seen_by_1["view"] == view.json()["view"]
    public = http.get(f"/v1/games/{game_id}", params=at).json()["view"]
    assert (
        results["spectator"][-1]["view"] == public and results["spectator"][-1]["commands"] is None
    )
    # Without views=true a stream carries events only, as before.
    lines = []
    with httpx.stream("GET", f"{base}/v1/games/{game_id}/events/stream?after={start}") as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("data:"):
                break
    assert "event: VoteCast" in lines and "event: view" not in lines


def test_the_stream_answers_bad_input_and_missing_games_as_every_route_does(
    http: httpx.Client,
) -> None:
    """The stream's fast path (gateway.games.stream_fast_path) serves valid requests and
    passes the others to the route: each refusal is the problem+json the route gives."""
    game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
    other = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
    path, token = f"/v1/games/{game['game_id']}/events/stream", game["tokens"]["0"]
    refusals = [
        (http.get(path, params={"after": "-1"}), 422, None),  # FastAPI's own explanation
        (http.get(path, params={"views": "maybe"}), 422, None),
        (http.get(path, params={"format": "xml"}), 422, None),
        (http.get(path, params={"ticket": "x" * 65}), 422, None),
        (http.get(path, params={"ticket": "nope"}), 401, "bad_ticket"),
        (http.get(path, headers={"Authorization": "Basic x"}), 401, "bad_token"),
        (http.get(path, headers=auth(other["tokens"]["0"])), 403, "wrong_game"),
        (http.get("/v1/games/no-such-game/events/stream"), 404, "unknown_game"),
    ]
    for answer, status, code in refusals:
        assert answer.status_code == status, (answer.request.url, answer.text)
        assert answer.headers["content-type"] == PROBLEM, answer.text
        assert code is None or answer.json()["code"] == code, answer.text
    params = {"views": "TRUE", "format": "ndjson"}
    with http.stream("GET", path, params=params, headers=auth(token)) as stream:
        assert stream.headers["content-type"].startswith("application/x-ndjson")
        lines = (json.loads(line) for line in stream.iter_lines() if line)
        events = []
        for frame in lines:  # what happened, then the view where the stream starts
            if frame["event"] == "view":
                break
            events.append(frame)
        assert [e["id"] for e in events] == [str(n) for n in range(1, len(events) + 1)]
        assert frame["event"] == "view" and frame["data"]["seat"] == 0


def test_streams_a_client_hung_up_are_released_at_once(system: System) -> None:
    """A stream ends when its client goes, without waiting for a frame to fail: with a
    cap of three streams, three opened and closed leave room for three more at once."""
    with extra_gateway(system, RAFFE_STREAMS_PER_ADDRESS="3") as http:
        game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        path = f"/v1/games/{game['game_id']}/events/stream"
        base = str(http.base_url)
        for _ in range(3):
            deadline = time.monotonic() + 10
            while True:  # the last round's streams are closed: room for three at once
                with ExitStack() as stack:
                    heads = [open_stream(base, path, stack) for _ in range(3)]
                if all(h.startswith(b"HTTP/1.1 200") for h in heads):
                    break
                assert time.monotonic() < deadline, "closed streams are still counted"
                time.sleep(0.1)
