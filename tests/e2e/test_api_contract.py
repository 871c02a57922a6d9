"""The API's promises over HTTP: hidden information, authorisation, every error status
with its problem+json body (and nothing appended), SSE resumption, rate limits."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.giraffe_raffe.bots import random_bot
from services.kernel.rng import SeededRng
from tests.e2e.players import auth, create, lobby_entry
from tests.e2e.system import System, extra_gateway

SEED = "SEED-e2e-leak-check-7f3a"
PROBLEM = "application/problem+json"


def quoted(cards: set[str]) -> list[bytes]:
    return [f'"{c}"'.encode() for c in cards]


def sse_frames(
    http: httpx.Client,
    game_id: str,
    headers: dict[str, str],
    count: int,
    until: str = "",
    seconds: float = 20,
) -> list[dict[str, Any]]:
    """Read ``count`` events from the live stream (or up to an event of type ``until``),
    then hang up, after ``seconds`` at most. Frames without an id (a seat's presence, a
    view) are not events and are skipped: a presence frame comes whenever a seat's
    stream opens or closes, e.g. the one read just before."""
    frames: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds  # the stream pings every second (RAFFE_SSE_HEARTBEAT_S)
    with http.stream("GET", f"/v1/games/{game_id}/events/stream", headers=headers) as stream:
        current: dict[str, Any] = {}
        for line in stream.iter_lines():
            if time.monotonic() > deadline:
                break
            if line.startswith("id:"):
                current["id"] = int(line[3:].strip())
            elif line.startswith("data:"):
                current["data"] = json.loads(line[5:].strip())
                current["raw"] = line
            elif line == "" and "data" in current:
                if "id" in current:
                    frames.append(current)
                current = {}
                if len(frames) >= count or (
                    until and frames and frames[-1]["data"].get("type") == until
                ):
                    break
    return frames


def move(
    http: httpx.Client, game_id: str, tokens: dict[int, str], rng: SeededRng
) -> httpx.Response | None:
    """One random move by whichever seat must act (None once the game is over)."""
    for token in tokens.values():
        legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(token)).json()
        if legal["to_act"]:
            params = {"min_version": legal["version"]}
            view = http.get(f"/v1/games/{game_id}", params=params, headers=auth(token)).json()
            command = random_bot(view["view"], legal, rng)
            body = {"command": command, "command_id": uuid.uuid4().hex}
            return http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(token))
    return None


def test_no_body_or_frame_of_a_running_game_leaks_hidden_cards(http: httpx.Client) -> None:
    created = create(http, "giraffe-raffe", [{"kind": "human"}] * 3, seed=SEED, practice=True)
    game_id, tokens = created["game_id"], {int(k): v for k, v in created["tokens"].items()}
    captured: list[tuple[int, int, bytes]] = []  # (viewer seat, version, raw body)
    rng = SeededRng("leak")
    version = created["version"]
    for _ in range(12):
        params = {"min_version": version}
        spectator = http.get(f"/v1/games/{game_id}", params=params)
        version = spectator.json()["version"]
        if spectator.json()["view"]["status"]["over"]:
            break
        captured.append((-1, version, spectator.content))
        captured.append((-1, version, http.get(f"/v1/games/{game_id}/events").content))
        for seat, token in tokens.items():
            for path in ("", "/events", "/commands"):
                url = f"/v1/games/{game_id}{path}"
                captured.append(
                    (seat, version, http.get(url, params=params, headers=auth(token)).content)
                )
        posted = move(http, game_id, tokens, rng)
        assert posted is not None and posted.status_code == 200, posted
        version = posted.json()["version"]
    frames = {seat: sse_frames(http, game_id, auth(token), 5) for seat, token in tokens.items()}
    frames[-1] = sse_frames(http, game_id, {}, 5)
    # Finish the game so the whole log is public, then learn what was hidden when.
    while move(http, game_id, tokens, rng) is not None:
        pass
    seen_own = 0
    for seat, version, raw in captured:
        truth = http.get(
            f"/v1/games/{game_id}/replay", params={"version": version, "reveal": "true"}
        ).json()["view"]
        own = set(truth["hands"][seat]) if seat >= 0 else set()
        hidden = {c for s, hand in enumerate(truth["hands"]) if s != seat for c in hand} | set(
            truth["redraw"]
        )
        hidden -= own
        assert SEED.encode() not in raw
        leaks = [c for c in quoted(hidden) if c in raw]
        assert not leaks, f"seat {seat} at version {version} saw {leaks}"
        seen_own += any(c in raw for c in quoted(own))
    dealt = {
        seat: next(f for f in fs if f["data"]["type"] == "CardsDealt")
        for seat, fs in frames.items()
    }
    for seat, frame in dealt.items():
        assert set(frame["data"]["data"]["hands"]) == ({str(seat)} if seat >= 0 else set())
        assert SEED not in frame["raw"] and "redraw" not in frame["data"]["data"]
    # The search finds cards where they may be: each seat's own bodies show its hand.
    assert seen_own >= len(tokens)


def test_authorisation(http: httpx.Client) -> None:
    a = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "open"}], options={"dealer": 0})
    b = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
    game_id = a["game_id"]
    claimed = http.post(f"/v1/games/{game_id}/seats/1")
    assert claimed.status_code == 201
    again = http.post(f"/v1/games/{game_id}/seats/1")
    assert again.status_code == 409 and again.json()["type"] == "/problems/seat_taken"
    assert http.post(f"/v1/games/{game_id}/seats/0").status_code == 409  # a human seat is not open
    seat1 = claimed.json()["token"]
    # Seat 1's token acts as seat 1 only: it is seat 0's turn.
    body = {"command": {"type": "return_apple"}, "command_id": "x"}
    moved = http.post(f"/v1/games/{game_id}/commands", headers=auth(seat1), json=body)
    assert moved.status_code == 422 and moved.json()["code"] == "not_your_turn"
    # It reads seat 1's view, never seat 0's hand.
    view = http.get(f"/v1/games/{game_id}", headers=auth(seat1)).json()["view"]
    assert view["seat"] == 1
    # It touches no other game.
    other = http.get(f"/v1/games/{b['game_id']}", headers=auth(seat1))
    assert other.status_code == 403 and other.headers["content-type"] == PROBLEM


def test_every_error_status_is_problem_json_and_appends_nothing(http: httpx.Client) -> None:
    created = create(
        http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}], options={"dealer": 0}
    )
    game_id, token = created["game_id"], created["tokens"]["0"]
    version = http.get(f"/v1/games/{game_id}").json()["version"]
    url = f"/v1/games/{game_id}/commands"
    ok_body = {"command": {"type": "return_apple"}, "command_id": "c"}
    me = auth(token)
    big = b'{"command_id": "' + b"x" * 70_000 + b'"}'
    bad_card = {"command": {"type": "play", "tree": "pair", "cards": ["Z9"]}, "command_id": "d"}
    cases = [
        (http.post(url, json=ok_body), 401, "token_required"),
        (http.post(url, json=ok_body, headers=auth("not-a-token")), 401, "bad_token"),
        (http.get("/v1/games/nope-nope"), 404, "unknown_game"),
        (http.post(url, json=ok_body, headers={**me, "If-Match": '"1"'}), 409, "version_conflict"),
        (
            http.post(url, content=big, headers={**me, "content-type": "application/json"}),
            413,
            "too_large",
        ),
        (
            http.post(url, content=b"hi", headers={**me, "content-type": "text/plain"}),
            415,
            "unsupported_media_type",
        ),
        (http.post(url, json=ok_body, headers=me), 422, "no_apple"),
        (http.post(url, json={**ok_body, "extra": 1}, headers=me), 422, "invalid_request"),
        (http.post(url, json=bad_card, headers=me), 422, "unknown_card"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, (status, response.text)
        assert response.headers["content-type"] == PROBLEM
        body = response.json()
        assert body["status"] == status and body["type"] == f"/problems/{code}" and body["detail"]
    conflict = cases[3][0].json()
    assert conflict["current_version"] == version
    assert http.get(f"/v1/games/{game_id}").json()["version"] == version


def test_sse_resumes_with_last_event_id_losing_and_repeating_nothing(http: httpx.Client) -> None:
    created = create(http, "giraffe-raffe", [{"kind": "bot"}] * 3)
    game_id = created["game_id"]
    first = sse_frames(http, game_id, {}, 4)
    # Up to the game's end: three bots finish in seconds, but under the parallel suite on
    # two cores a game once took longer than the reader's 20 s (nothing was lost: the ids
    # had no gap), so the reader waits for the end, a minute at most.
    resume = {"Last-Event-ID": str(first[-1]["id"])}
    rest = sse_frames(http, game_id, resume, 10_000, until="GameEnded", seconds=60)
    ids = [f["id"] for f in first + rest]
    assert ids == list(range(1, len(ids) + 1))
    assert rest[-1]["data"]["type"] == "GameEnded"


def test_rate_limits_answer_429_with_retry_after(system: System) -> None:
    with extra_gateway(system, RAFFE_RATE_PER_ADDRESS="2") as client:
        statuses = [client.get("/v1/games/whatever").status_code for _ in range(12)]
        limited = client.get("/v1/games/whatever")
    assert 429 in statuses and limited.status_code == 429
    assert limited.headers["content-type"] == PROBLEM and int(limited.headers["retry-after"]) >= 1


def _statuses_with_forwarded_for(client: httpx.Client) -> list[int]:
    """Twelve requests, each claiming another client address."""
    return [
        client.get("/v1/games/whatever", headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
        for n in range(12)
    ]


def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy(system: System) -> None:
    # Not trusted (the default, even on loopback): one address, one limit.
    with extra_gateway(system, RAFFE_RATE_PER_ADDRESS="2") as client:
        assert 429 in _statuses_with_forwarded_for(client)
    # Loopback as the trusted ingress: each forwarded client has its own limit...
    with extra_gateway(
        system, RAFFE_RATE_PER_ADDRESS="2", RAFFE_TRUSTED_PROXIES="127.0.0.0/8"
    ) as client:
        assert 429 not in _statuses_with_forwarded_for(client)
        # ...but an address the client wrote left of the proxy's proves nothing.
        spoofed = [
            client.get(
                "/v1/games/whatever", headers={"X-Forwarded-For": f"198.51.100.{n}, 203.0.113.9"}
            ).status_code
            for n in range(12)
        ]
        assert 429 in spoofed


def test_answers_carry_safety_headers_and_metrics_stay_off_the_public_port(
    http: httpx.Client, system: System
) -> None:
    created = http.post(
        "/v1/games", json={"game": "giraffe-raffe", "seats": [{"kind": "human"}, {"kind": "open"}]}
    )
    claimed = http.post(f"/v1/games/{created.json()['game_id']}/seats/1")
    for response in (created, claimed, http.get("/v1/games")):
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-content-type-options"] == "nosniff"
    assert http.get("/metrics").status_code == 404
    metrics = httpx.get(f"http://{system.metrics['gateway']}/metrics")
    assert "raffe_gateway_requests_total" in metrics.text


@pytest.mark.parametrize("path", ["/docs", "/openapi.json"])
def test_openapi_documents_every_command_with_examples(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 200
    if path.endswith(".json"):
        text = response.text
        for command in (
            "Play",
            "ReturnApple",
            "ChooseRobotPlay",
            "Vote",
            "CloseRound",
            "ChooseCard",
            "LoadCargo",
            "Catch",
            "Report",
            "Review",
        ):
            assert f'"{command}"' in text
        assert len(re.findall(r'"command_id":\s*"c-\d"', text)) == 8


def test_schemathesis_finds_no_server_error(system: System, tmp_path: Path) -> None:
    """Property-based requests from the live OpenAPI schema, bounded: no 5xx anywhere."""
    token = httpx.post(
        f"{system.base_url}/v1/games",
        json={"game": "giraffe-raffe", "seats": [{"kind": "human"}] * 2},
    ).json()["tokens"]["0"]
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"),
            "run",
            f"{system.base_url}/openapi.json",
            "--checks",
            "not_a_server_error",
            "--max-examples",
            "8",
            "--seed",
            "7",
            "--exclude-path-regex",
            "stream",
            "--request-timeout",
            "10",
            "-H",
            f"Authorization: Bearer {token}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def test_votes_and_chosen_cards_stay_out_of_other_seats_bodies_and_frames(
    http: httpx.Client,
) -> None:
    gm = create(http, "giraffometer", [{"kind": "human"}] * 3, seed=SEED, practice=True)
    tokens = gm["tokens"]
    url = f"/v1/games/{gm['game_id']}"
    vote = {"command": {"type": "vote", "lowest": 5, "highest": 3}, "command_id": "v1"}
    assert http.post(f"{url}/commands", json=vote, headers=auth(tokens["0"])).status_code == 200
    secret = [b'"lowest":5', b'"lowest": 5', b'"highest":3', b'"highest": 3']
    for token in (tokens["1"], tokens["2"], None):
        headers = auth(token) if token else {}
        bodies = [
            http.get(f"{url}{path}", headers=headers).content
            for path in ("", "/events", "/commands")
        ]
        frames = sse_frames(http, gm["game_id"], headers, 4)
        assert [f["data"]["type"] for f in frames][-1] == "VoteCast"
        bodies += [f["raw"].encode() for f in frames]
        for raw in bodies:
            assert not any(s in raw for s in secret) and SEED.encode() not in raw
    rr = create(http, "riff-raff", [{"kind": "human"}] * 2)
    rurl = f"/v1/games/{rr['game_id']}"
    card = {"command": {"type": "choose_card", "card": 7}, "command_id": "c1"}
    assert (
        http.post(f"{rurl}/commands", json=card, headers=auth(rr["tokens"]["0"])).status_code == 200
    )
    for headers in (auth(rr["tokens"]["1"]), {}):
        for path in ("", "/events"):
            raw = http.get(f"{rurl}{path}", headers=headers).content
            assert b'"card":7' not in raw and b'"card": 7' not in raw
            assert b'"your_card":7' not in raw


def test_the_lobby_lists_games_with_an_open_seat_until_it_is_claimed(http: httpx.Client) -> None:
    game_id = create(http, "giraffometer", [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])[
        "game_id"
    ]
    lobby_entry(http, game_id)  # the projection has it (it trails by milliseconds)

    def listed() -> list[int] | None:
        games = http.get("/v1/games", params={"status": "open", "limit": 200}).json()["games"]
        return next((g["open_seats"] for g in games if g["game_id"] == game_id), None)

    assert listed() == [1, 2]
    assert http.post(f"/v1/games/{game_id}/seats/1").status_code == 201
    assert listed() == [2]
    assert http.post(f"/v1/games/{game_id}/seats/2").status_code == 201
    assert listed() is None


def test_a_seat_token_rotates_and_expires(http: httpx.Client, system: System) -> None:
    created = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
    game_id, old = created["game_id"], created["tokens"]["0"]
    url = f"/v1/games/{game_id}/seats/0/token"
    assert http.post(f"/v1/games/{game_id}/seats/1/token", headers=auth(old)).status_code == 403
    rotated = http.post(url, headers=auth(old))
    assert rotated.status_code == 201 and rotated.headers["cache-control"] == "no-store"
    new = rotated.json()["token"]
    assert http.get(f"/v1/games/{game_id}", headers=auth(old)).status_code == 401
    assert http.get(f"/v1/games/{game_id}", headers=auth(new)).json()["seat"] == 0
    with extra_gateway(system, RAFFE_TOKEN_TTL_S="1") as short:
        brief = create(short, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        mine = auth(brief["tokens"]["0"])
        assert short.get(f"/v1/games/{brief['game_id']}", headers=mine).status_code == 200
        time.sleep(1.5)
        expired = short.get(f"/v1/games/{brief['game_id']}", headers=mine)
        assert expired.status_code == 401 and expired.json()["code"] == "bad_token"


def test_creation_is_quota_limited_per_address(system: System) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}]
    # A client address of its own (the counter is shared with every other test's creates).
    me = {"X-Forwarded-For": f"198.18.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"}
    settings = {"RAFFE_CREATES_PER_HOUR": "3", "RAFFE_TRUSTED_PROXIES": "127.0.0.1"}
    with extra_gateway(system, **settings) as client:
        body = {"game": "giraffe-raffe", "seats": seats}
        if time.time() % 3600 > 3590:  # the hour's count is a clock slot: all in one
            time.sleep(3601 - time.time() % 3600)
        statuses = [client.post("/v1/games", json=body, headers=me).status_code for _ in range(4)]
        tournament = client.post("/v1/tournaments", json={}, headers=me)
    assert statuses[:3] == [201] * 3 and statuses[3] == 429
    assert tournament.status_code == 429 and tournament.json()["code"] == "quota_exceeded"
    assert 0 < int(tournament.headers["retry-after"]) <= 3600
