"""A fair table over HTTP (docs/fair-table.md): a player leaves and a bot finishes their
seat for the others, a concession at a table of two, a time bank that runs out, a gone
player's seat and the other's claim, presence across the stream."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from tests.e2e.players import auth, create, play_seat
from tests.e2e.system import System, extra_gateway_process, running_system


def send(http: httpx.Client, game_id: str, token: str, command: dict[str, Any]) -> httpx.Response:
    return http.post(
        f"/v1/games/{game_id}/commands",
        json={"command": command, "command_id": uuid.uuid4().hex},
        headers=auth(token),
    )


def view(http: httpx.Client, game_id: str, token: str = "", **params: Any) -> dict[str, Any]:
    headers = auth(token) if token else {}
    response = http.get(f"/v1/games/{game_id}", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return dict(response.json())


def until(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError("not in time")


def in_lobby(http: httpx.Client, gid: str) -> dict[str, Any] | None:
    """The game's lobby entry, once the projection lists it (other tests' games, bots'
    tournaments among them, may be newer: filtered to running Giraffometer games)."""
    params = {"game": "giraffometer", "status": "running", "limit": 200}
    games = http.get("/v1/games", params=params).json()["games"]
    return next((g for g in games if g["game_id"] == gid), None)


def test_a_player_leaves_and_a_bot_finishes_their_seat(system: System, http: httpx.Client) -> None:
    game = create(http, "giraffe-raffe", [{"kind": "human"}] * 3)
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(len(game["tokens"]))]
    left = send(http, gid, tokens[1], {"type": "leave"})
    assert left.status_code == 200, left.text
    assert [e["type"] for e in left.json()["events"]] == ["SeatLeft"]
    # The leaver's own moves are refused from now on; their seat is the bot's.
    refused = send(http, gid, tokens[1], {"type": "return_apple"})
    assert refused.status_code == 422 and refused.json()["code"] == "seat_left"
    players = [
        threading.Thread(target=play_seat, args=(http, "giraffe-raffe", gid, tokens[s], ""))
        for s in (0, 2)
    ]
    for p in players:
        p.start()
    for p in players:
        p.join()
    final = view(http, gid, tokens[0])["view"]
    assert final["status"]["over"]
    assert final["table"]["left"] == [{"seat": 1, "reason": "left"}]
    events = http.get(f"/v1/games/{gid}/events", params={"limit": 500}).json()["events"]
    stand_in = [e for e in events if e["actor"] == 1 and e["type"] != "SeatLeft"]
    assert stand_in, "the bot played the seat the player left"


def test_a_concession_at_a_table_of_two_ends_the_game(http: httpx.Client) -> None:
    game = create(http, "riff-raff", [{"kind": "human"}] * 2)
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(len(game["tokens"]))]
    conceded = send(http, gid, tokens[1], {"type": "concede"})
    assert conceded.status_code == 200, conceded.text
    status = conceded.json()["view"]["status"]
    assert (status["over"], status["winners"], status["losers"]) == (True, [0], [1])
    assert status["reason"] == "conceded"
    again = send(http, gid, tokens[0], {"type": "concede"})
    assert again.status_code == 422 and again.json()["code"] == "game_over"


def test_a_time_bank_runs_out_and_the_seats_bot_moves_for_it(http: httpx.Client) -> None:
    game = create(
        http,
        "giraffometer",
        [{"kind": "human"}] * 2,
        options={"bank_timer": 10, "bank_increment": 1},
    )
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(len(game["tokens"]))]
    clocks = view(http, gid, tokens[0])["view"]["table"]["clocks"]
    assert clocks["banks_ms"] == [10_000, 10_000] and all(clocks["running_since_ms"])
    voted = send(http, gid, tokens[0], {"type": "vote", "lowest": 1, "highest": 2})
    assert voted.status_code == 200, voted.text

    # Seat 1 never votes: its bank runs out, the runner flags it, and its bot votes for
    # it (AL-3, revised): the round is revealed with both votes; the log says why.
    def revealed() -> dict[str, Any] | None:
        events = http.get(f"/v1/games/{gid}/events", params={"limit": 500}).json()["events"]
        return next((e for e in events if e["type"] == "RoundRevealed"), None)

    reveal = until(revealed, timeout=40)
    assert reveal["data"]["closed_by"] == "votes"
    assert set(reveal["data"]["votes"]) == {"0", "1"}
    events = http.get(f"/v1/games/{gid}/events", params={"limit": 500}).json()["events"]
    ran_out = [e["data"] for e in events if e["type"] == "TimeRanOut"]
    assert ran_out == [{"seat": 1, "clock": "bank"}]
    table = view(http, gid, tokens[0])["view"]["table"]["clocks"]
    assert table["banks_ms"][1] == 1_000  # out of time, then the increment of its move
    assert 0 < table["banks_ms"][0] <= 11_000


def test_a_bank_needs_a_game_with_a_default_move(http: httpx.Client) -> None:
    response = http.post(
        "/v1/games",
        json={"game": "riff-raff", "seats": [{"kind": "human"}] * 2, "options": {"bank_timer": 3}},
    )
    assert response.status_code == 422 and response.json()["code"] == "bad_option"


class Stream:
    """A seat's live stream read in a thread: its frames as (event, data)."""

    def __init__(self, base_url: str, game_id: str, token: str) -> None:
        self.frames: list[tuple[str, dict[str, Any]]] = []
        self.client = httpx.Client(base_url=base_url, timeout=httpx.Timeout(5, read=None))
        self.url, self.token = f"/v1/games/{game_id}/events/stream", token
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        kind = ""
        headers = auth(self.token) if self.token else {}
        with (
            contextlib.suppress(httpx.HTTPError),
            self.client.stream("GET", self.url, headers=headers) as stream,
        ):
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    self.frames.append((kind, orjson.loads(line[6:])))

    def presence(self) -> dict[int, str]:
        """The seats' presence as the last presence frame said."""
        said = [d for k, d in self.frames if k == "presence"]
        return {p["seat"]: p["state"] for p in said[-1]["seats"]} if said else {}

    def close(self) -> None:
        self.client.close()


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    """A system whose players are gone after 2 s away, claimable 1 s later."""
    with running_system(
        tmp_path_factory.mktemp("raffe-presence"),
        RAFFE_SSE_HEARTBEAT_S="1",
        RAFFE_GONE_AFTER_S="2",
        RAFFE_CLAIM_AFTER_S="1",
    ) as s:
        yield s


def test_presence_is_shown_and_a_gone_players_game_is_claimed(quick: System) -> None:
    with httpx.Client(base_url=quick.base_url, timeout=20) as http:
        game = create(http, "giraffe-raffe", [{"kind": "human"}] * 2)
        gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
        first, second = (
            Stream(quick.base_url, gid, tokens[0]),
            Stream(quick.base_url, gid, tokens[1]),
        )
        until(lambda: first.presence() == {0: "connected", 1: "connected"})
        seats = http.get(f"/v1/games/{gid}/seats").json()["seats"]
        assert [s["presence"]["state"] for s in seats] == ["connected", "connected"]
        second.close()  # seat 1's player goes away ...
        until(lambda: first.presence().get(1) == "away")
        # ... and is gone 2 s later: a bot stands in, and the stream says so.
        until(lambda: any(k == "SeatGone" for k, _ in first.frames), timeout=20)
        status = view(http, gid, tokens[0])["view"]["status"]
        assert status["stand_ins"] == [1]
        claimed = until(
            lambda: (
                (r := send(http, gid, tokens[0], {"type": "claim_win"})).status_code == 200 and r
            )
        )
        status = claimed.json()["view"]["status"]
        assert (status["over"], status["winners"], status["reason"]) == (True, [0], "claimed")
        first.close()


def test_a_turn_based_seat_away_for_days_is_never_handed_to_a_bot(quick: System) -> None:
    """#52 item 1: presence-based takeover does not apply to turn-based seats; their
    clock does. Away well past the gone setting, the seat stays its player's."""
    with httpx.Client(base_url=quick.base_url, timeout=20) as http:
        game = create(
            http, "giraffe-raffe", [{"kind": "human"}] * 2, options={"speed": "turn_based"}
        )
        gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
        first, second = (
            Stream(quick.base_url, gid, tokens[0]),
            Stream(quick.base_url, gid, tokens[1]),
        )
        until(lambda: first.presence() == {0: "connected", 1: "connected"})
        second.close()
        until(lambda: first.presence().get(1) == "away")
        time.sleep(4)  # past RAFFE_GONE_AFTER_S, and the sweeper's rounds
        assert not any(k == "SeatGone" for k, _ in first.frames)
        status = view(http, gid, tokens[1])["view"]["status"]
        assert "stand_ins" not in status
        # Away, never "gone", and nothing is announced to come (no bot, no claim).
        said = [p["state"] for k, d in first.frames if k == "presence" for p in d["seats"]]
        assert "away" in said and "gone" not in said
        presence = http.get(f"/v1/games/{gid}/seats").json()["seats"][1]["presence"]
        assert presence["state"] == "away" and presence["since_ms"] > 0
        assert presence["gone_at_ms"] is None and presence["claim_from_ms"] is None
        first.close()


def test_a_gone_player_who_plays_again_takes_the_seat_back(quick: System) -> None:
    with httpx.Client(base_url=quick.base_url, timeout=20) as http:
        game = create(http, "giraffometer", [{"kind": "human"}] * 3)
        gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(3)]
        away = Stream(quick.base_url, gid, tokens[2])
        until(lambda: away.presence().get(2) == "connected")
        away.close()
        until(lambda: view(http, gid, tokens[0])["view"]["status"].get("stand_ins") == [2], 20)
        back = send(http, gid, tokens[2], {"type": "vote", "lowest": 1, "highest": 2})
        # A bot may have voted for the seat meanwhile; either way the seat is the player's.
        assert back.status_code in (200, 422), back.text
        if back.status_code == 422:
            assert back.json()["code"] == "already_voted"
            back = send(http, gid, tokens[2], {"type": "return"})
            assert back.status_code == 200, back.text
        assert back.json()["events"][0]["type"] == "SeatReturned"
        assert "stand_ins" not in view(http, gid, tokens[0])["view"]["status"]


def test_two_players_rematch_with_the_same_seats_and_a_new_seed(http: httpx.Client) -> None:
    game = create(http, "riff-raff", [{"kind": "human"}] * 2, options={"mode": "tabletop"})
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
    early = http.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[0]))
    assert early.status_code == 409 and early.json()["code"] == "game_not_over"
    assert send(http, gid, tokens[1], {"type": "concede"}).status_code == 200
    first = http.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[0])).json()
    assert (first["accepted"], first["waiting_for"], first["rematch"]) == ([0], [1], None)
    second = http.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[1])).json()
    new_id, new_token = second["rematch"], second["token"]
    assert new_id and new_token and new_token != tokens[1]
    seen = http.get(f"/v1/games/{gid}/rematch", headers=auth(tokens[0])).json()
    assert seen["rematch"] == new_id and seen["token"] not in (None, new_token)
    # Linked both ways: the old game names the new; the new game's log names the old.
    events = http.get(f"/v1/games/{new_id}/events", params={"limit": 5}).json()["events"]
    created = events[0]["data"]
    assert created["rematch_of"] == gid and created["options"]["mode"] == "tabletop"
    old_seed = http.get(f"/v1/games/{gid}/events", params={"limit": 1}).json()["events"][0]
    assert created["seed_hash"] != old_seed["data"]["seed_hash"]
    for token in (new_token, seen["token"]):
        legal = http.get(f"/v1/games/{new_id}/commands", headers=auth(token))
        assert legal.status_code == 200, legal.text
    # Asking again changes nothing: one new game.
    again = http.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[0])).json()
    assert again["rematch"] == new_id


def votes(http: httpx.Client, gid: str, tokens: list[str], rounds: int) -> list[int]:
    """Each seat votes ``rounds`` times (one command each); the version after each."""
    out = []
    for _ in range(rounds):
        for token in tokens:
            answer = send(http, gid, token, {"type": "vote", "lowest": 1, "highest": 2})
            assert answer.status_code == 200, answer.text
            out.append(answer.json()["version"])
    return out


def test_spectators_see_the_game_two_moves_late_on_every_surface(
    system: System, http: httpx.Client
) -> None:
    game = create(
        http,
        "giraffometer",
        [{"kind": "human"}] * 2,
        options={"spectator_delay_moves": 2, "target": 20},
    )
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
    opening = view(http, gid)["version"]
    watcher = Stream(system.base_url, gid, "")
    after = votes(http, gid, tokens, 2)  # four moves
    seen = view(http, gid)
    assert (seen["version"], seen["source"]) == (after[1], "delayed")  # two moves late
    assert view(http, gid, tokens[0])["version"] == after[3]  # a player is never late
    page = http.get(f"/v1/games/{gid}/events", params={"limit": 500}).json()
    assert page["version"] == after[1] and page["events"][-1]["version"] == after[1]
    too_new = http.get(f"/v1/games/{gid}/replay", params={"version": after[2]})
    assert too_new.status_code == 403 and too_new.json()["code"] == "delayed"
    assert http.get(f"/v1/games/{gid}/replay", params={"version": after[1]}).status_code == 200
    lobby = until(lambda: in_lobby(http, gid))
    assert lobby["status"]["to_act"] == []
    # #51 item 3: the legal commands (for nobody, or a signed-in player of no seat here)
    # and the lobby's version and last move's time are as late as the rest.
    signed_in = http.post("/v1/accounts", json={"password": "a long password"}).json()["token"]
    for token in ("", signed_in):
        legal = http.get(f"/v1/games/{gid}/commands", headers=auth(token) if token else {})
        assert legal.status_code == 200 and legal.json()["version"] == after[1], legal.text
    assert (lobby["version"], lobby["updated_ms"]) == (after[1], page["events"][-1]["time_ms"])
    # The live stream holds the last two moves back, and shows each as two more follow.
    until(lambda: any(d.get("version") == after[1] for _, d in watcher.frames))
    assert max(d.get("version", 0) for _, d in watcher.frames) == after[1]
    more = votes(http, gid, tokens, 1)
    until(lambda: any(d.get("version") == after[3] for _, d in watcher.frames))
    assert max(d.get("version", 0) for _, d in watcher.frames) == after[3] < more[1]
    assert opening < after[1]
    watcher.close()


def test_a_delay_in_seconds_shows_each_move_after_it(system: System, http: httpx.Client) -> None:
    game = create(http, "giraffometer", [{"kind": "human"}] * 2, options={"spectator_delay_s": 2})
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
    watcher = Stream(system.base_url, gid, "")
    moved = votes(http, gid, tokens, 1)
    assert view(http, gid)["version"] < moved[0]
    started = time.monotonic()
    until(lambda: any(d.get("version") == moved[1] for _, d in watcher.frames), 10)
    assert time.monotonic() - started > 1.0  # held back about two seconds
    assert view(http, gid)["version"] == moved[1]
    watcher.close()


def test_presence_spans_gateways_and_outlives_one_that_dies(quick: System) -> None:
    """Seat 1 watches through a second gateway: the first shows them here; when that
    gateway is killed, their stream goes stale and they are away, then gone."""
    with (
        httpx.Client(base_url=quick.base_url, timeout=20) as http,
        extra_gateway_process(quick) as (other, process),
    ):
        game = create(http, "giraffe-raffe", [{"kind": "human"}] * 3)
        gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(3)]
        here = Stream(quick.base_url, gid, tokens[0])
        there = Stream(str(other.base_url), gid, tokens[1])
        until(lambda: here.presence().get(1) == "connected", 15)
        process.kill()  # no goodbye: its streams just stop being refreshed
        until(lambda: here.presence().get(1) in ("away", "gone"), 20)
        until(lambda: view(http, gid, tokens[0])["view"]["status"].get("stand_ins") == [1], 20)
        here.close()
        there.close()
