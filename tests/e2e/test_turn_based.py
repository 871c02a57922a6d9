"""Turn-based play over HTTP against the running system (#52 items 1 and 3): a table of
two players at a pace of days, the games awaiting each player sorted by time left, a
player's cap on turn-based games (a clear 429, realtime games unaffected), and a player
with a hundred games in play whose list still answers."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.games import GAMES
from services.kernel.rng import SeededRng
from tests.e2e.players import auth, create
from tests.e2e.system import System, running_system
from tests.e2e.test_accounts import register, unique

CAP = 5
DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    with running_system(
        tmp_path_factory.mktemp("turns"), RAFFE_TURN_BASED_CAP=str(CAP), RAFFE_RATE_PER_TOKEN="500"
    ) as s:
        yield s


@pytest.fixture
def http(system: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=system.base_url, timeout=20) as client:
        yield client


def pair(http: httpx.Client) -> tuple[dict[str, Any], dict[str, Any]]:
    return register(http, unique("ann"), "correct horse"), register(
        http, unique("bo"), "battery staple"
    )


def table(
    http: httpx.Client, me: dict[str, Any], other: dict[str, Any], **options: Any
) -> httpx.Response:
    body = {
        "game": "giraffe-raffe",
        "seats": [
            {"kind": "human", "player": "me"},
            {"kind": "human", "player": other["player_id"]},
        ],
        "options": {"dealer": 0, **options},
    }
    return http.post("/v1/games", json=body, headers=auth(me["token"]))


def open_seat_game(http: httpx.Client) -> str:
    """A turn-based Giraffe Raffe game whose seat 1 is open to claim."""
    seats = [{"kind": "human"}, {"kind": "open"}]
    return str(create(http, "giraffe-raffe", seats, options={"speed": "turn_based"})["game_id"])


def awaiting(http: httpx.Client, who: dict[str, Any], count: int | None = None) -> dict[str, Any]:
    """The caller's games awaiting them, once the projection shows ``count`` of them."""
    for _ in range(200):
        answer = http.get("/v1/accounts/me/awaiting", headers=auth(who["token"]))
        assert answer.status_code == 200, answer.text
        if count is None or len(answer.json()["games"]) == count:
            return dict(answer.json())
        time.sleep(0.05)
    raise AssertionError(answer.text)


def test_a_turn_based_table_runs_banks_of_days_and_lists_whose_turn_it_is(
    http: httpx.Client,
) -> None:
    ann, bo = pair(http)
    made = table(http, ann, bo, speed="turn_based", pace="3_days")
    assert made.status_code == 201, made.text
    gid = made.json()["game_id"]
    view = http.get(f"/v1/games/{gid}", headers=auth(ann["token"])).json()["view"]
    clocks = view["table"]["clocks"]
    assert view["table"]["speed"] == "turn_based"
    assert clocks["bank_ms"] == clocks["max_ms"] == 3 * DAY_MS
    mine = awaiting(http, ann, 1)
    (row,) = mine["games"]
    assert (row["game_id"], row["seat"], row["speed"]) == (gid, 0, "turn_based")
    assert 3 * DAY_MS - 60_000 < row["time_left_ms"] <= 3 * DAY_MS
    assert mine["turn_based_games"] == 1 and mine["turn_based_cap"] == CAP
    assert awaiting(http, bo)["games"] == []  # not bo's turn
    legal = http.get(f"/v1/games/{gid}/commands", headers=auth(ann["token"])).json()
    chosen = GAMES["giraffe-raffe"].bot("random")(view, legal, SeededRng("turns", "ann"))
    move = {"command": chosen, "command_id": uuid.uuid4().hex}
    moved = http.post(f"/v1/games/{gid}/commands", json=move, headers=auth(ann["token"]))
    assert moved.status_code == 200, moved.text
    assert [g["game_id"] for g in awaiting(http, bo, 1)["games"]] == [gid]
    assert awaiting(http, ann, 0)["games"] == []


def test_the_turn_based_cap_is_a_clear_429_and_leaves_realtime_play_alone(
    http: httpx.Client,
) -> None:
    ann, bo = pair(http)
    for _ in range(CAP):
        assert table(http, ann, bo, speed="turn_based").status_code == 201
    over = table(http, ann, bo, speed="turn_based")
    assert over.status_code == 429, over.text
    assert over.headers["content-type"].startswith("application/problem+json")
    assert over.json()["code"] == "turn_based_cap" and str(CAP) in over.json()["detail"]
    assert table(http, ann, bo).status_code == 201  # a realtime game: no cap
    # Quick play for a turn-based table is refused as well; a live one is not.
    slow = {"game": "giraffometer", "seats": 3, "speed": "turn_based"}
    queued = http.post("/v1/quickplay", json=slow, headers=auth(ann["token"]))
    assert queued.status_code == 429 and queued.json()["code"] == "turn_based_cap"
    live = {"game": "giraffometer", "seats": 3}
    assert http.post("/v1/quickplay", json=live, headers=auth(ann["token"])).status_code == 202
    assert http.delete("/v1/quickplay", headers=auth(ann["token"])).status_code == 204
    # Joining an open turn-based seat counts the same.
    cy = register(http, unique("cy"), "tr0ub4dor&3")
    seat = f"/v1/games/{open_seat_game(http)}/seats/1"
    claim = http.post(seat, headers=auth(ann["token"]))
    assert claim.status_code == 429 and claim.json()["code"] == "turn_based_cap"
    assert http.post(seat, headers=auth(cy["token"])).status_code == 201  # under the cap


def test_a_player_with_a_hundred_games_in_play_gets_the_list_sorted(http: httpx.Client) -> None:
    """#52 item 3: at least 100 games at once per player. Realtime tables here (the cap is
    for turn-based ones), half with a turn clock: those come first, soonest first."""
    ann, bo = pair(http)
    timed = []
    for i in range(100):
        options = {"turn_timer": 600 - i} if i % 2 else {}
        made = table(http, ann, bo, **options)
        assert made.status_code == 201, made.text
        if i % 2:
            timed.append(made.json()["game_id"])
    games = awaiting(http, ann, 100)["games"]
    assert [g["game_id"] for g in games[:50]] == timed[::-1]  # the shortest timer first
    assert all(g["deadline_ms"] is None for g in games[50:])


def test_a_vacation_stops_every_turn_based_clock_of_the_player_and_counts_its_days(
    http: httpx.Client,
) -> None:
    """#52 item 2: vacation days per year; taking some stops the clocks of all the
    player's turn-based games (the other player sees until when); too many is a 422;
    back early gives the unused days back."""
    ann, bo = pair(http)
    games = [table(http, ann, bo, speed="turn_based").json()["game_id"] for _ in range(2)]
    live = table(http, ann, bo).json()["game_id"]  # realtime: no vacation there
    taken = http.post("/v1/accounts/me/vacation", json={"days": 7}, headers=auth(ann["token"]))
    assert taken.status_code == 200, taken.text
    body = taken.json()
    assert (body["used_this_year"], body["games"]) == (7, 2)
    assert body["until_ms"] > time.time() * 1000 + 6 * DAY_MS
    for gid in games:
        view = http.get(f"/v1/games/{gid}", headers=auth(bo["token"])).json()["view"]
        assert view["table"]["seats"][0]["vacation_until_ms"] == body["until_ms"]
        assert view["table"]["clocks"]["running_since_ms"][0] == body["until_ms"]
    assert "table" not in http.get(f"/v1/games/{live}").json()["view"] or all(
        "vacation_until_ms" not in s
        for s in http.get(f"/v1/games/{live}").json()["view"]["table"]["seats"]
    )
    # A turn-based game joined during the vacation waits too: made with her seated, or
    # an open seat she claims.
    joined = table(http, ann, bo, speed="turn_based").json()["game_id"]
    opened = open_seat_game(http)
    claim = http.post(f"/v1/games/{opened}/seats/1", headers=auth(ann["token"]))
    assert claim.status_code == 201, claim.text
    for gid, seat in ((joined, 0), (opened, 1)):  # as a seat sees it (not late)
        view = http.get(f"/v1/games/{gid}", headers=auth(ann["token"])).json()["view"]
        assert view["table"]["seats"][seat]["vacation_until_ms"] == body["until_ms"], gid
    too_many = http.post("/v1/accounts/me/vacation", json={"days": 24}, headers=auth(ann["token"]))
    assert too_many.status_code == 422 and too_many.json()["code"] == "no_vacation_left"
    back = http.delete("/v1/accounts/me/vacation", headers=auth(ann["token"]))
    assert back.status_code == 200 and back.json()["until_ms"] == 0
    assert back.json()["used_this_year"] == 1  # six whole days come back
    view = http.get(f"/v1/games/{games[0]}", headers=auth(bo["token"])).json()["view"]
    assert view["table"]["clocks"]["running_since_ms"][0] <= time.time() * 1000
