"""The second hardening round (#30), over HTTP against the running system: revocation
reaches live streams and stream tickets on every gateway, one rotation wins per token,
tournament tokens rotate, open tournaments refuse bad names and floods, a tournament's
shared deck stays sealed at its finished tables, and booleans are booleans."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from http.client import HTTPConnection
from typing import Any

import httpx

from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway


class Watch(threading.Thread):
    """A live stream read in the background: the event versions it delivered, and
    whether (and when) the server ended it."""

    def __init__(self, base_url: str, path: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(daemon=True)
        self.url, self.headers = base_url + path, headers or {}
        self.versions: list[int] = []
        self.status = 0
        self.ended = threading.Event()
        self.opened = threading.Event()

    def run(self) -> None:
        try:
            with httpx.stream("GET", self.url, headers=self.headers, timeout=30) as stream:
                self.status = stream.status_code
                self.opened.set()
                for line in stream.iter_lines():
                    if line.startswith("id:"):
                        self.versions.append(int(line[3:]))
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()
            self.ended.set()


def watch(base_url: str, path: str, headers: dict[str, str] | None = None) -> Watch:
    w = Watch(base_url, path, headers)
    w.start()
    assert w.opened.wait(10)
    assert w.status == 200
    return w


def vote(http: httpx.Client, game_id: str, token: str) -> int:
    body = {"command": {"type": "vote", "lowest": 1, "highest": 2}, "command_id": uuid.uuid4().hex}
    done = http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(token))
    assert done.status_code == 200, done.text
    return int(done.json()["version"])


def test_rotating_a_token_ends_its_streams_and_tickets_on_every_gateway(
    http: httpx.Client, system: System
) -> None:
    """#30 item 1: the streams opened with the old token (directly or by a ticket it
    minted), on this gateway and on another, end at the rotation; its tickets stop
    opening streams; spectators and the other seat keep theirs."""
    game = create(http, "giraffometer", [{"kind": "human"}] * 3, options={"target": 100})
    game_id, old = game["game_id"], game["tokens"]["0"]
    path = f"/v1/games/{game_id}/events/stream"
    ticket = http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(old)).json()["ticket"]
    with extra_gateway(system) as other:
        base, other_base = str(http.base_url).rstrip("/"), str(other.base_url).rstrip("/")
        streams = [
            watch(base, path, auth(old)),
            watch(other_base, path, auth(old)),
            watch(base, f"{path}?ticket={ticket}"),
            watch(other_base, f"{path}?ticket={ticket}"),
        ]
        bystanders = [watch(other_base, path), watch(other_base, path, auth(game["tokens"]["1"]))]
        rotated = http.post(f"/v1/games/{game_id}/seats/0/token", headers=auth(old))
        assert rotated.status_code == 201
        for s in streams:
            assert s.ended.wait(5), "a stream of the revoked token went on"
        after = vote(http, game_id, game["tokens"]["1"])  # a move after the rotation
        deadline = time.monotonic() + 5
        while any(not b.versions or b.versions[-1] < after for b in bystanders):
            assert time.monotonic() < deadline, "the move did not reach the others"
            time.sleep(0.05)
        for b in bystanders:  # still open
            assert not b.ended.is_set()
        for s in streams:
            assert after not in s.versions  # nothing after the rotation
        for client in (http, other):
            refused = client.get(path, params={"ticket": ticket})
            assert refused.status_code == 401 and refused.json()["code"] == "bad_ticket"
            assert client.get(path, headers=auth(old)).status_code == 401
        new = rotated.json()["token"]
        fresh = http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(new)).json()
        assert watch(other_base, f"{path}?ticket={fresh['ticket']}").status == 200


def test_a_stream_ends_when_its_token_expires(system: System) -> None:
    """#30 item 1: expiry ends streams too (a token living 2 s)."""
    with extra_gateway(system, RAFFE_TOKEN_TTL_S="2") as short:
        game = create(short, "giraffometer", [{"kind": "human"}] * 2)
        token = game["tokens"]["0"]
        path = f"/v1/games/{game['game_id']}/events/stream"
        ticket = short.post(f"/v1/games/{game['game_id']}/stream-tickets", headers=auth(token))
        base = str(short.base_url).rstrip("/")
        streams = [
            watch(base, path, auth(token)),
            watch(base, f"{path}?ticket={ticket.json()['ticket']}"),
        ]
        spectator = watch(base, path)
        for s in streams:
            assert s.ended.wait(6), "a stream outlived its token"
        assert not spectator.ended.is_set()
        again = short.get(path, params={"ticket": ticket.json()["ticket"]})
        assert again.status_code == 401


def test_one_rotation_wins_per_token_and_the_old_one_stops_everywhere(
    http: httpx.Client, system: System
) -> None:
    """#30 item 2: ten concurrent rotations with one token: one 201, nine 409; the old
    token stops at once on a gateway that had it cached; one working token is left."""
    game = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
    game_id, old = game["game_id"], game["tokens"]["0"]
    with extra_gateway(system) as other:
        assert other.get(f"/v1/games/{game_id}", headers=auth(old)).status_code == 200  # cached
        url = f"/v1/games/{game_id}/seats/0/token"
        clients = [http, other] * 5
        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(lambda c: c.post(url, headers=auth(old)), clients))
        codes = sorted(a.status_code for a in answers)
        assert codes == [201] + [409] * 9, codes
        assert {a.json()["code"] for a in answers if a.status_code == 409} == {"token_rotated"}
        new = next(a.json()["token"] for a in answers if a.status_code == 201)
        for client in (other, http):
            assert client.get(f"/v1/games/{game_id}", headers=auth(old)).status_code == 401
            assert client.get(f"/v1/games/{game_id}", headers=auth(new)).status_code == 200
    # Rotating on one gateway and using the old token on another, at once, many times.
    with extra_gateway(system) as other:
        token = new
        for _ in range(20):
            assert other.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 200
            fresh = http.post(url, headers=auth(token)).json()["token"]
            assert other.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 401
            token = fresh


def test_tournament_tokens_rotate(http: httpx.Client) -> None:
    """#30 item 7: an organiser's and a player's token rotate; a player's old seat tokens
    (derived from the old player token) stop working with it; a rotated table seat token
    is never handed out again by /me."""
    created = http.post("/v1/tournaments", json={"games": ["giraffometer"], "rounds": 1}).json()
    tid, organiser = created["tournament_id"], created["organiser_token"]
    players = f"/v1/tournaments/{tid}/players"
    ada = http.post(players, json={"name": "ada", "kind": "human"}, headers=auth(organiser))
    for n in range(2):
        http.post(players, json={"name": f"bot{n}"}, headers=auth(organiser))
    rotated = http.post(f"/v1/tournaments/{tid}/token", headers=auth(organiser))
    assert rotated.status_code == 201
    again = http.post(f"/v1/tournaments/{tid}/token", headers=auth(organiser))
    assert again.status_code == 409 and again.json()["code"] == "token_rotated"
    organiser = rotated.json()["token"]
    assert http.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser)).is_success
    player = ada.json()["token"]
    table = my_table(http, tid, player)
    view = f"/v1/games/{table['game_id']}"
    assert http.get(view, headers=auth(table["token"])).json()["seat"] == table["seat"]
    new_player = http.post(f"/v1/tournaments/{tid}/token", headers=auth(player)).json()["token"]
    assert http.get(view, headers=auth(table["token"])).status_code == 401
    assert http.get(f"/v1/tournaments/{tid}/me", headers=auth(player)).status_code == 401
    new_table = my_table(http, tid, new_player)
    assert http.get(view, headers=auth(new_table["token"])).json()["seat"] == table["seat"]
    # The player rotates that table's seat token: /me never gives the old one again.
    seat_url = f"{view}/seats/{table['seat']}/token"
    kept = http.post(seat_url, headers=auth(new_table["token"])).json()["token"]
    assert my_table(http, tid, new_player, ready=False)["token"] is None
    assert http.get(view, headers=auth(new_table["token"])).status_code == 401
    assert http.get(view, headers=auth(kept)).json()["seat"] == table["seat"]


def my_table(http: httpx.Client, tid: str, token: str, ready: bool = True) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        tables = http.get(f"/v1/tournaments/{tid}/me", headers=auth(token)).json()["tables"]
        if tables and (tables[0]["ready"] or not ready):
            return dict(tables[0])
        time.sleep(0.1)
    raise AssertionError("no table")


BAD_NAMES = [
    "a\x00b",  # NUL
    "two\nlines",
    "red\x1b[31mtext",  # a terminal escape
    "abc\u202edcba",  # right-to-left override
    "zero\u200bwidth",
    "\u0410lice",  # a Cyrillic A in a Latin name
    " ",
    "x" * 65,
]


def test_open_tournaments_refuse_bad_names_floods_and_let_the_organiser_remove(
    http: httpx.Client, system: System
) -> None:
    """#30 item 3: names are plain text, look-alikes collide; one address adds few
    entrants to a tournament (429, Retry-After), a tournament takes few joins a minute;
    the organiser removes an entrant before the start, freeing the place and the name."""
    created = http.post(
        "/v1/tournaments",
        json={"games": ["giraffometer"], "open_registration": True, "max_players": 4},
    ).json()
    tid, organiser = created["tournament_id"], auth(created["organiser_token"])
    join = f"/v1/tournaments/{tid}/join"
    for name in BAD_NAMES:
        refused = http.post(join, json={"name": name})
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["code"] in ("bad_name", "invalid_request"), refused.text
    bot = {"name": "red\x1b[31m", "kind": "bot"}  # the organiser's names too
    assert (
        http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=organiser).status_code == 422
    )
    alice = http.post(join, json={"name": "Alice"})
    assert alice.status_code == 201
    for look_alike in ("alice", "ALICE", "\uff21lice", "  Alice "):
        taken = http.post(join, json={"name": look_alike})
        assert taken.status_code == 422 and taken.json()["code"] == "name_taken", look_alike
    shown = http.get(f"/v1/tournaments/{tid}", params={"min_version": alice.json()["version"]})
    assert [p["name"] for p in shown.json()["players"]] == ["Alice"]
    # One address: at most 3 entrants in one tournament (RAFFE_JOINS_PER_ADDRESS).
    me = {"X-Forwarded-For": f"198.18.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"}
    with extra_gateway(
        system, RAFFE_TRUSTED_PROXIES="127.0.0.1", RAFFE_JOINS_PER_ADDRESS="3"
    ) as gw:
        # A join sent again under its command id (after a 503) is counted once.
        again = [{"name": "p0", "command_id": "join-p0"}] * 3
        answers = [gw.post(join, json=body, headers=me) for body in again]
        assert [a.json()["player"] for a in answers] == [1, 1, 1], answers[-1].text
        answers += [gw.post(join, json={"name": f"p{i}"}, headers=me) for i in range(1, 4)]
        assert [a.status_code for a in answers[2:]] == [201, 201, 201, 429]
        assert answers[-1].json()["code"] == "too_many_joins" and answers[-1].headers["retry-after"]
        full = gw.post(join, json={"name": "late"}, headers={"X-Forwarded-For": "198.19.0.1"})
        assert full.status_code == 422 and full.json()["code"] == "tournament_full"
        # The organiser removes one: the place and the name are free again.
        removed = http.delete(f"/v1/tournaments/{tid}/players/1", headers=organiser)
        assert removed.status_code == 200, removed.text
        gone = http.delete(f"/v1/tournaments/{tid}/players/1", headers=organiser)
        assert gone.status_code == 422 and gone.json()["code"] == "no_such_player"
        assert http.delete(f"/v1/tournaments/{tid}/players/2").status_code == 401
        back = gw.post(join, json={"name": "p0"}, headers={"X-Forwarded-For": "198.19.0.2"})
        assert back.status_code == 201, back.text
    # Five joins a minute at most per tournament (RAFFE_JOINS_PER_MINUTE), whoever sends.
    limits = {"RAFFE_TRUSTED_PROXIES": "127.0.0.1", "RAFFE_JOINS_PER_MINUTE": "5"}
    with extra_gateway(system, **limits) as gw:
        other = http.post(
            "/v1/tournaments", json={"games": ["giraffometer"], "open_registration": True}
        ).json()["tournament_id"]
        if time.time() % 60 > 50:  # all six within one minute's count
            time.sleep(61 - time.time() % 60)
        answers = [
            gw.post(
                f"/v1/tournaments/{other}/join",
                json={"name": f"n{i}"},
                headers={"X-Forwarded-For": f"198.20.0.{i}"},
            )
            for i in range(6)
        ]
        assert [a.status_code for a in answers] == [201] * 5 + [429]
        assert answers[5].json()["code"] == "joins_busy"
    listed = http.get(f"/v1/tournaments/{tid}", params={"min_version": back.json()["version"]})
    players = listed.json()["players"]
    assert [(p["name"], p["removed"]) for p in players] == [
        ("Alice", False),
        ("p0", True),
        ("p1", False),
        ("p2", False),
        ("p0", False),
    ]
    started = http.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    assert started.status_code == 200, started.text
    t = http.get(f"/v1/tournaments/{tid}", params={"min_version": started.json()["version"]})
    seated = {p for r in t.json()["rounds"] for table in r["tables"] for p in table["players"]}
    assert 1 not in seated and 1 not in {s["player"] for s in t.json()["standings"]}


def test_a_shared_deck_stays_sealed_at_a_finished_table(http: httpx.Client) -> None:
    """#30 item 6: a tournament's custom deck: once the bots' table has finished, while
    a person's table still plays the same deck, the finished table's events, live stream
    and replay show no answer of the deck."""
    answers = [4321, 8765, 1234, 5678, 2468, 1357, 9753, 3141]
    deck = {
        "name": "shared",
        "facts": [
            {"id": f"d{i}", "question": f"How big {i}?", "unit": "u", "answer": a, "source": "test"}
            for i, a in enumerate(answers)
        ],
    }
    created = http.post(
        "/v1/tournaments",
        json={
            "games": ["giraffometer"],
            "rounds": 1,
            "table_size": 2,
            "game_options": {"giraffometer": {"deck": deck, "target": 1}},
        },
    ).json()
    tid, organiser = created["tournament_id"], auth(created["organiser_token"])
    players = f"/v1/tournaments/{tid}/players"
    ada = http.post(players, json={"name": "ada", "kind": "human"}, headers=organiser).json()
    for n in range(3):
        http.post(players, json={"name": f"bot{n}", "bot_level": "random"}, headers=organiser)
    http.post(f"/v1/tournaments/{tid}/start", headers=organiser)
    mine = my_table(http, tid, ada["token"], ready=False)["game_id"]
    deadline = time.monotonic() + 60
    finished: list[str] = []
    while not finished:
        assert time.monotonic() < deadline, "the bots' table did not finish"
        t = http.get(f"/v1/tournaments/{tid}").json()
        tables = [table for r in t["rounds"] for table in r["tables"]]
        finished = [table["game_id"] for table in tables if table["keys"] is not None]
        time.sleep(0.2)
    done = finished[0]
    assert done != mine and not http.get(f"/v1/games/{mine}").json()["view"]["status"]["over"]
    events = http.get(f"/v1/games/{done}/events").json()["events"]
    assert events[-1]["type"] == "GameEnded"  # over: its log is public...
    loaded = next(e for e in events if e["type"] == "DeckLoaded")
    assert loaded["data"]["facts"] and all("answer" not in f for f in loaded["data"]["facts"])
    with http.stream("GET", f"/v1/games/{done}/events/stream") as stream:
        frames = "\n".join(stream.iter_lines())  # ends after GameEnded
    deck_frame = next(line for line in frames.split("\n") if '"DeckLoaded"' in line)
    assert "answer" not in json.loads(deck_frame[5:])["data"]
    replay = http.get(f"/v1/games/{done}/replay", params={"version": 3, "reveal": True})
    assert replay.status_code == 200 and '"answer"' not in replay.text
    # A table outside any tournament shows its own custom deck once over, as before.
    solo = create(http, "giraffometer", [{"kind": "bot"}] * 2, options={"deck": deck, "target": 1})
    deadline = time.monotonic() + 60
    while not http.get(f"/v1/games/{solo['game_id']}").json()["view"]["status"]["over"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    opened = http.get(f"/v1/games/{solo['game_id']}/events").json()["events"]
    assert "answer" in next(e for e in opened if e["type"] == "DeckLoaded")["data"]["facts"][0]


def test_flags_are_booleans_and_a_view_says_practice(http: httpx.Client) -> None:
    """#30 item 7: practice and open_registration take true or false only; every view of
    a practice game says so."""
    seats = [{"kind": "human"}, {"kind": "bot"}]
    for wrong in ("yes", 1, "true", None):
        body = {"game": "giraffe-raffe", "seats": seats, "practice": wrong}
        assert http.post("/v1/games", json=body).status_code == 422, wrong
        t = http.post("/v1/tournaments", json={"open_registration": wrong})
        assert t.status_code == 422, wrong
    practice = create(http, "giraffe-raffe", seats, practice=True, seed="s")
    plain = create(http, "giraffe-raffe", seats)
    for game, expected in ((practice, True), (plain, False)):
        token = auth(game["tokens"]["0"])
        view = http.get(f"/v1/games/{game['game_id']}", headers=token).json()["view"]
        assert view["practice"] is expected
        spectator = http.get(f"/v1/games/{game['game_id']}").json()["view"]
        assert spectator["practice"] is expected


def test_an_idle_connection_outlives_a_proxys_idle_timeout(system: System) -> None:
    """A keep-alive connection idle past uvicorn's 5 s default still serves: the gateway
    must not close first (a request sent as it closes is lost: "server disconnected" in
    CI, a 502 behind a balancer). RAFFE_KEEP_ALIVE_S is 75 s by default."""
    host, port = system.base_url.removeprefix("http://").split(":")
    conn = HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("GET", "/healthz")
        assert conn.getresponse().read() == b'{"status":"ok"}'
        first = conn.sock
        time.sleep(5.5)
        first.setblocking(False)
        with contextlib.suppress(BlockingIOError):  # nothing to read: still open
            assert first.recv(1, socket.MSG_PEEK) != b"", "the gateway closed it"
        first.setblocking(True)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200 and conn.sock is first, "on the same socket"
    finally:
        conn.close()
