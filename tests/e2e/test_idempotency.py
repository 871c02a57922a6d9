"""Command ids belong to whoever sent them (#16 items 5 and 6): a seat cannot replay or
shadow another seat's command by reusing its id, an id reused for another command is
refused, and a create retried with its command id answers the same game."""

from __future__ import annotations

import uuid

import httpx

from tests.e2e.players import auth, create, lobby_entry

SEATS = [{"kind": "human"}, {"kind": "human"}]


def test_a_command_id_is_scoped_by_seat_and_never_silently_dropped(http: httpx.Client) -> None:
    game = create(http, "giraffometer", SEATS)
    url = f"/v1/games/{game['game_id']}/commands"
    shared = uuid.uuid4().hex
    vote = {"type": "vote", "lowest": 1, "highest": 2}
    first = http.post(
        url, json={"command": vote, "command_id": shared}, headers=auth(game["tokens"]["0"])
    )
    assert first.status_code == 200 and not first.json()["duplicate"]
    # Seat 1 uses the same id (ids are public in events): its own vote counts.
    second = http.post(
        url, json={"command": vote, "command_id": shared}, headers=auth(game["tokens"]["1"])
    )
    assert second.status_code == 200 and not second.json()["duplicate"], second.text
    assert any(e["type"] == "RoundRevealed" for e in second.json()["events"])
    # The same seat, the same id: a retry answers the first result...
    again = http.post(
        url, json={"command": vote, "command_id": shared}, headers=auth(game["tokens"]["0"])
    )
    assert again.status_code == 200 and again.json()["duplicate"]
    assert again.json()["version"] == first.json()["version"]
    # ...and the same id with another command is refused, changing nothing.
    # (The version the log is at: a read model read now may still lag behind it.)
    before = second.json()["version"]
    other = {"type": "vote", "lowest": 3, "highest": 4}
    reused = http.post(
        url, json={"command": other, "command_id": shared}, headers=auth(game["tokens"]["0"])
    )
    assert reused.status_code == 422 and reused.json()["code"] == "command_id_reused"
    seen = http.get(f"/v1/games/{game['game_id']}", params={"min_version": before})
    assert seen.json()["version"] == before


def test_a_create_retried_with_its_command_id_answers_the_same_game(http: httpx.Client) -> None:
    body = {"game": "giraffe-raffe", "seats": SEATS, "command_id": uuid.uuid4().hex}
    first, second = http.post("/v1/games", json=body), http.post("/v1/games", json=body)
    assert first.status_code == second.status_code == 201, second.text
    assert first.json() == second.json()
    token = first.json()["tokens"]["0"]
    game_id = first.json()["game_id"]
    assert http.get(f"/v1/games/{game_id}", headers=auth(token)).json()["seat"] == 0
    other = http.post("/v1/games", json={**body, "options": {"count_rule": "exactly_one_more"}})
    assert other.status_code == 422 and other.json()["code"] == "command_id_reused"
    # A rotated token is not handed out again by a later retry.
    http.post(f"/v1/games/{game_id}/seats/0/token", headers=auth(token))
    assert "0" not in http.post("/v1/games", json=body).json()["tokens"]
    # Another id: another game; and the id is nowhere in the game's public events.
    fresh = http.post("/v1/games", json={**body, "command_id": uuid.uuid4().hex}).json()
    assert fresh["game_id"] != game_id
    events = http.get(f"/v1/games/{game_id}/events").json()["events"]
    assert all(e["command_id"] != body["command_id"] for e in events)


def test_a_chosen_seed_is_for_practice_or_bots_alone(http: httpx.Client) -> None:
    """#16 item 2 (AL-2): whoever picks the seed knows every deal and salt."""
    body = {"game": "riff-raff", "seats": SEATS, "seed": "42"}
    refused = http.post("/v1/games", json=body)
    assert refused.status_code == 422 and refused.json()["code"] == "seed_needs_practice"
    practice = http.post("/v1/games", json={**body, "practice": True})
    assert practice.status_code == 201, practice.text
    bots = http.post("/v1/games", json={**body, "seats": [{"kind": "bot"}] * 2})
    assert bots.status_code == 201, bots.text
    game_id = practice.json()["game_id"]
    assert lobby_entry(http, game_id)["practice"] is True
    first = http.get(f"/v1/games/{game_id}/events").json()["events"][0]
    assert first["data"]["practice"] is True and "seed" not in first["data"]
