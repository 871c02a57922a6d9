"""A fourth game, registered by its package and one line (RAFFE_EXTRA_GAMES here, a line
of services/games.py in the product), is served end to end like the others: its engine
is started by the launcher, its rules are served for its page, the API takes its commands
and refuses bad ones, its secret stays hidden, bots play it, tournaments run it, quick
play seats people at it, ratings rate it, rematches repeat it, its records verify and the
manifests deploy it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import yaml

from tests.e2e.players import auth, create
from tests.e2e.system import System, running_system
from tests.e2e.test_accounts import register, seats_of, unique
from tests.e2e.test_quickplay import seated
from tests.e2e.test_ratings import rated_games
from tests.e2e.test_records import finished_record

EXTRA = {"RAFFE_EXTRA_GAMES": "tests.games.pebbles"}
# Players meet in quick play and are rated from their first game here.
PLATFORM = {"RAFFE_PROVISIONAL_GAMES": "1", "RAFFE_QUICKPLAY_BOTS_AFTER_S": "30"}


@pytest.fixture(scope="module")
def pebbles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    with running_system(tmp_path_factory.mktemp("pebbles"), **EXTRA, **PLATFORM) as system:
        yield system


@pytest.fixture
def http(pebbles: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=pebbles.base_url, timeout=20) as client:
        yield client


def send(http: httpx.Client, game_id: str, token: str, command: dict[str, Any]) -> httpx.Response:
    body = {"command": command, "command_id": uuid.uuid4().hex}
    return http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(token))


def wait_my_turn(http: httpx.Client, game_id: str, token: str) -> dict[str, Any]:
    for _ in range(400):
        legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(token)).json()
        view = http.get(f"/v1/games/{game_id}", params={"min_version": legal["version"]}).json()
        if legal["to_act"] or view["view"]["status"]["over"]:
            return {**legal, "view": view["view"]}
        time.sleep(0.02)
    raise AssertionError("the bot did not move")


def test_the_launcher_starts_its_engine_and_the_schema_lists_it(
    pebbles: System, http: httpx.Client
) -> None:
    assert any(name.startswith("pebbles engine") for name in pebbles.processes)
    schema = http.get("/openapi.json").json()["components"]["schemas"]
    assert "pebbles" in schema["CreateGame"]["properties"]["game"]["enum"]
    assert schema["Take"]["properties"]["count"]["maximum"] == 3
    # Its rules page: the client draws the blocks its package declares.
    types = {t["name"]: t for t in http.get("/v1/game-types").json()}
    assert types["pebbles"]["how_to_play"][0] == {
        "p": "Take **one to three** pebbles from the pile in turn.",
        "muted": False,
    }


def test_a_human_plays_it_against_a_bot_and_sees_no_secret_of_the_other_seat(
    http: httpx.Client,
) -> None:
    created = create(http, "pebbles", [{"kind": "human"}, {"kind": "bot"}], options={"pile": 9})
    game_id, token = created["game_id"], created["tokens"]["0"]
    while True:
        state = wait_my_turn(http, game_id, token)
        view = state["view"]
        if view["status"]["over"]:
            break
        lucky = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()["view"]["lucky"]
        assert lucky[0] is not None and lucky[1] is None  # own number only
        assert http.get(f"/v1/games/{game_id}").json()["view"]["lucky"] == [None, None]
        events = http.get(f"/v1/games/{game_id}/events").json()["events"]
        drawn = next(e for e in events if e["type"] == "LuckyNumbersDrawn")
        assert drawn["data"]["numbers"] == [None, None]
        take = {"type": "play", "count": state["commands"][0]["counts"][0]}
        response = send(http, game_id, token, take)
        assert response.status_code == 200, response.text
    assert view["status"]["over"] and None not in view["lucky"]  # revealed at the end


def test_bad_commands_are_refused_with_typed_problems_and_change_nothing(
    http: httpx.Client,
) -> None:
    created = create(http, "pebbles", [{"kind": "human"}, {"kind": "human"}])
    game_id, token = created["game_id"], created["tokens"]["0"]
    before = http.get(f"/v1/games/{game_id}").json()["version"]
    too_many = send(http, game_id, token, {"type": "play", "count": 4})
    other_game = send(http, game_id, token, {"type": "vote", "lowest": 1, "highest": 2})
    not_yours = send(http, game_id, created["tokens"]["1"], {"type": "play", "count": 1})
    assert too_many.status_code == 422 and too_many.json()["code"] == "bad_count"  # its model
    assert other_game.status_code == 422 and other_game.json()["code"] == "unknown_command"
    assert not_yours.status_code == 422 and not_yours.json()["code"] == "not_your_turn"
    assert http.get(f"/v1/games/{game_id}").json()["version"] == before


def test_bots_play_a_tournament_of_it(http: httpx.Client) -> None:
    created = http.post("/v1/tournaments", json={"games": ["pebbles"], "rounds": 2}).json()
    tid, organiser = created["tournament_id"], auth(created["organiser_token"])
    for i in range(4):
        bot = {"name": f"bot{i}", "kind": "bot", "bot_level": "perfect"}
        assert http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=organiser).is_success
    assert http.post(f"/v1/tournaments/{tid}/start", headers=organiser).is_success
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        t = http.get(f"/v1/tournaments/{tid}").json()
        if t["status"]["over"]:
            break
        time.sleep(0.1)
    assert t["status"]["over"] and t["progress"]["finished"] == t["progress"]["games"] > 0
    assert len(t["standings"]) == 4


def test_the_manifests_deploy_its_engine() -> None:
    root = Path(__file__).resolve().parents[2]
    rendered = subprocess.run(
        [sys.executable, "-m", "deploy.manifests", "--stdout"],
        env={**os.environ, **EXTRA},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    deployments = {
        d["metadata"]["name"]: d for d in yaml.safe_load_all(rendered) if d["kind"] == "Deployment"
    }
    container = deployments["raffe-pebbles"]["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["services.engine", "pebbles"]
    assert container["ports"][0]["containerPort"] == 50069


def play_to_the_end(http: httpx.Client, game_id: str, tokens: list[str]) -> None:
    """Every seat, by its token, takes the first count it may until the game is over."""
    for _ in range(200):
        for token in tokens:
            legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(token)).json()
            if legal["to_act"]:
                take = {"type": "play", "count": legal["commands"][0]["counts"][0]}
                assert send(http, game_id, token, take).status_code == 200
        if http.get(f"/v1/games/{game_id}").json()["view"]["status"]["over"]:
            return
    raise AssertionError("the game did not end")


def test_two_people_meet_in_quick_play_are_rated_rematch_and_the_record_verifies(
    pebbles: System, http: httpx.Client, tmp_path: Path
) -> None:
    """#56 item 4: the platform's features are the fourth game's too, with no line for it:
    quick play seats two people at one table, the finished game moves their ratings, a
    rematch starts another, and its portable record re-plays offline."""
    people = [register(http, unique(name), f"{name}'s password") for name in ("Ada", "Bo")]
    tokens = [p["token"] for p in people]
    for token in tokens:
        join = {"game": "pebbles", "seats": 2}
        queued = http.post("/v1/quickplay", json=join, headers=auth(token))
        assert queued.status_code == 202, queued.text
    tickets = [seated(http, token) for token in tokens]
    game_id = tickets[0]["game_id"]
    assert tickets[1]["game_id"] == game_id
    assert {s["player_id"] for s in seats_of(http, game_id)} == {p["player_id"] for p in people}
    play_to_the_end(http, game_id, tokens)
    for person in people:  # rated: the projection rates it a moment after it ends
        rated = rated_games(http, person["player_id"], 1)
        assert rated["games"][0]["game_id"] == game_id and "pebbles" in rated["ratings"]
    offers = [http.post(f"/v1/games/{game_id}/rematch", headers=auth(t)) for t in tokens]
    assert all(o.is_success for o in offers), [o.text for o in offers]
    again = offers[-1].json()["rematch"]
    assert again and again != game_id
    assert http.get(f"/v1/games/{again}/commands", headers=auth(tokens[0])).status_code == 200
    record = tmp_path / "pebbles.json"
    record.write_bytes(orjson.dumps(finished_record(http, game_id)))
    verified = subprocess.run(
        [sys.executable, "-m", "services.cli", "--url", pebbles.base_url, "verify", str(record)],
        env={**os.environ, **EXTRA},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0 and "re-played byte for byte" in verified.stderr
