"""Portable records (docs/records.md): a finished game's record re-plays offline byte for
byte with ``raffe verify``; one altered event fails, naming its place; the bulk export
streams finished games as JSON Lines."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import redis

from services.core.eventstore.keys import Keys
from services.games import GAMES
from services.records.verify import Mismatch, verify
from tests.e2e.players import create
from tests.e2e.system import System, running_system
from tests.e2e.test_fair_table import send, until


def finished_record(http: httpx.Client, game_id: str) -> dict[str, Any]:
    def got() -> dict[str, Any] | None:
        answer = http.get(f"/v1/games/{game_id}/record")
        return dict(answer.json()) if answer.status_code == 200 else None

    return dict(until(got, timeout=60))


def raffe(system: System, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "services.cli", "--url", system.base_url, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_record_verifies_and_an_altered_one_fails_at_its_place(
    system: System, http: httpx.Client, tmp_path: Path
) -> None:
    bots = [{"kind": "bot", "bot_level": "random"}] * 3
    game = create(http, "giraffe-raffe", [{"kind": "human"}, *bots[:2]])
    gid, token = game["game_id"], game["tokens"]["0"]
    assert http.get(f"/v1/games/{gid}/record").status_code == 409
    assert send(http, gid, token, {"type": "leave"}).status_code == 200  # bots finish it
    doc = finished_record(http, gid)
    assert doc["format"] == "raffe-record/1" and doc["seed"]
    assert doc["commands"][0]["create"]["seats"][0]["kind"] == "human"
    assert any(c.get("stand_in") for c in doc["commands"]), "the stand-in's moves are kept"
    assert verify(doc, GAMES).events == sum(len(c["events"]) for c in doc["commands"])
    good = tmp_path / "game.json"
    good.write_bytes(orjson.dumps(doc))
    ok = raffe(system, "verify", str(good))
    assert ok.returncode == 0 and "re-played byte for byte" in ok.stderr, ok.stderr
    # One event altered: verify names the command, the event and its version.
    n, c = next((n, c) for n, c in enumerate(doc["commands"]) if c.get("command"))
    c["events"][0]["data"] = {**c["events"][0]["data"], "seat": 99}
    bad = tmp_path / "altered.json"
    bad.write_bytes(orjson.dumps(doc))
    failed = raffe(system, "verify", str(bad))
    version = c["events"][0]["version"]
    assert failed.returncode == 1, failed.stderr
    said = [line for line in failed.stderr.splitlines() if line.startswith("FAILED")]
    assert len(said) == 1, failed.stderr  # one line, however long: a wrap split it once
    assert f"command {n} " in said[0] and f"event 1 (version {version}" in said[0], said


def test_a_timed_record_verifies_with_its_clock_moves(http: httpx.Client) -> None:
    game = create(
        http,
        "giraffometer",
        [{"kind": "human"}, {"kind": "bot"}],
        options={"bank_timer": 10, "target": 1},
    )
    gid = game["game_id"]
    # Seat 0's player never votes: its bank runs out, the runner flags it (seat -1's
    # command) and the round is revealed without its vote. Presence may also find the
    # player gone and a bot stand in, so either seat may win: the altered ending swaps them.
    doc = finished_record(http, gid)
    senders = {c.get("seat") for c in doc["commands"][1:]}
    assert -1 in senders, "the clock's flag is a recorded command"
    verify(doc, GAMES)
    ended = doc["commands"][-1]["events"][-1]
    assert ended["type"] == "GameEnded", ended
    ended["data"]["winners"] = [s for s in (0, 1) if s not in ended["data"]["winners"]]
    try:
        verify(doc, GAMES)
    except Mismatch as mismatch:
        assert "GameEnded" in mismatch.where
    else:
        raise AssertionError("an altered ending verified")


def test_the_export_streams_finished_games_of_a_kind(system: System, tmp_path: Path) -> None:
    with httpx.Client(base_url=system.base_url, timeout=30) as http:
        since = int(time.time() * 1000)
        bots = [{"kind": "bot", "bot_level": "random"}] * 2
        ids = {create(http, "riff-raff", bots)["game_id"] for _ in range(2)}
        for gid in ids:
            finished_record(http, gid)
        lines = http.get("/v1/records", params={"game": "riff-raff", "since_ms": since})
        assert lines.headers["content-type"].startswith("application/jsonl")
        found = [orjson.loads(line) for line in lines.text.splitlines()]
        # The system is shared: another test's bot game may finish in the window too.
        assert ids <= {d["game_id"] for d in found} and {d["game"] for d in found} == {"riff-raff"}
        out = tmp_path / "riff.jsonl"
        done = raffe(
            system,
            "records",
            "export",
            "--game",
            "riff-raff",
            "--since",
            str(since),
            "--out",
            str(out),
        )
        assert done.returncode == 0, done.stderr
        exported = [orjson.loads(line) for line in out.read_text().splitlines()]
        assert ids <= {d["game_id"] for d in exported}, exported
        assert f"{len(exported)} finished games" in done.stderr, done.stderr
        checked = raffe(system, "verify", str(out))
        assert checked.returncode == 0, checked.stderr
        assert checked.stderr.count("ok ") == len(exported), checked.stderr


def test_a_record_is_archived_then_gone_whole_with_short_retention(tmp_path: Path) -> None:
    """Retention seen from the API (RAFFE_RETAIN_FINISHED_S, RAFFE_ARCHIVE_TTL_S, and
    RAFFE_ARCHIVE_EVERY_S so the pass comes soon): a finished game's record reads the
    same from its archive, then, the archive expired, 404 unknown_game, and its view
    too: nothing is left that names it."""
    short = {
        "RAFFE_RETAIN_FINISHED_S": "0",
        "RAFFE_ARCHIVE_TTL_S": "3",
        "RAFFE_ARCHIVE_EVERY_S": "0.5",
    }
    with running_system(tmp_path, **short) as s, httpx.Client(base_url=s.base_url) as http:
        bots = [{"kind": "bot", "bot_level": "random"}] * 2
        game_id = create(http, "giraffometer", bots)["game_id"]
        first = finished_record(http, game_id)
        archived = until(lambda: _archived(s, game_id), timeout=20)
        assert archived
        assert http.get(f"/v1/games/{game_id}/record").json() == first  # the same, archived
        gone = until(lambda: _gone(http, game_id), timeout=20)
        assert gone.status_code == 404 and gone.json()["code"] == "unknown_game", gone.text
        view = http.get(f"/v1/games/{game_id}")
        assert view.status_code == 404 and view.json()["code"] == "unknown_game", view.text


def _archived(system: System, game_id: str) -> bool:
    client = redis.Redis.from_url(system.redis_url)
    try:
        return bool(client.exists(Keys("raffe", 64).archive(game_id)))
    finally:
        client.close()


def _gone(http: httpx.Client, game_id: str) -> httpx.Response | None:
    answer = http.get(f"/v1/games/{game_id}/record")
    return answer if answer.status_code == 404 else None


def test_the_export_of_every_kind_skips_finished_tournaments(system: System) -> None:
    """A finished tournament's stream ends like a game's but has no record: the export
    of all kinds (game empty) leaves it out instead of breaking off mid-stream (it was a
    KeyError in the gateway and a cut chunked answer)."""
    with httpx.Client(base_url=system.base_url, timeout=60) as http:
        since = int(time.time() * 1000)
        created = http.post(
            "/v1/tournaments", json={"games": ["riff-raff"], "format": "swiss", "rounds": 1}
        ).json()
        organiser = {"Authorization": f"Bearer {created['organiser_token']}"}
        tid = created["tournament_id"]
        for i in range(3):
            bot = {"name": f"b{i}", "kind": "bot", "bot_level": "random"}
            assert http.post(
                f"/v1/tournaments/{tid}/players", json=bot, headers=organiser
            ).is_success
        assert http.post(f"/v1/tournaments/{tid}/start", headers=organiser).is_success
        until(lambda: http.get(f"/v1/tournaments/{tid}").json()["status"]["over"], 60)
        lines = http.get("/v1/records", params={"game": "", "since_ms": since})
        assert lines.status_code == 200
        found = [orjson.loads(line) for line in lines.text.splitlines()]
        assert f"{tid}-r1-t0" in {d["game_id"] for d in found}
        assert tid not in {d["game_id"] for d in found}
