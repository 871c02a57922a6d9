"""The third outside round (#51), over HTTP against the running system: what a stranger
and a newcomer found, each with the test that failed before its fix."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from services.core.local_redis import RedisServer
from tests.e2e.browser import SCRATCH, browser, needs_chromium
from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway
from tests.e2e.test_fair_table import until
from tests.e2e.test_hardening import watch
from tests.e2e.test_records import finished_record, raffe
from tests.e2e.test_tournament import create as tournament
from tests.e2e.test_tournament import started_with_a_person, wait_finished


def test_a_revoked_tokens_stream_ends_at_once_not_at_its_next_heartbeat(system: System) -> None:
    """#51 item 4: with heartbeats 30 s apart, a rotated token's open stream ends within
    a second or two (it used to wait on a queue nobody filled until the heartbeat)."""
    with extra_gateway(system, RAFFE_SSE_HEARTBEAT_S="30") as slow:
        game = create(slow, "giraffometer", [{"kind": "human"}] * 2)
        token, path = game["tokens"]["0"], f"/v1/games/{game['game_id']}/events/stream"
        stream = watch(str(slow.base_url).rstrip("/"), path, auth(token))
        time.sleep(0.3)  # the stream is past its catch-up, waiting for frames
        rotated = slow.post(f"/v1/games/{game['game_id']}/seats/0/token", headers=auth(token))
        assert rotated.status_code == 201
        assert stream.ended.wait(3), "the revoked token's stream waited for its heartbeat"


def test_raffe_verify_answers_every_bad_file_in_one_line_and_checks_the_options(
    system: System, http: httpx.Client, tmp_path: Path
) -> None:
    """#51 item 5: 16 malformed files, each one FAILED line and no traceback, exit 1; an
    empty file fails; a record whose top-level options were changed fails on them."""
    bots = [{"kind": "bot", "bot_level": "random"}] * 2
    doc = finished_record(
        http, create(http, "giraffometer", bots, options={"target": 1})["game_id"]
    )
    good = tmp_path / "good.json"
    good.write_bytes(orjson.dumps(doc))
    assert raffe(system, "verify", str(good)).returncode == 0
    no_command = {**doc, "commands": [{**doc["commands"][0], "events": "x"}]}
    bad_files: dict[str, bytes] = {
        "missing.json": b"",  # not written: the file does not exist
        "empty.json": b"",
        "blank.jsonl": b"\n\n",
        "text.json": b"not json at all",
        "array.json": b"[1, 2]",
        "number.json": b"42",
        "null.json": b"null",
        "string.json": b'"record"',
        "deep.json": b"[" * 5000 + b"]" * 5000,
        "commands.json": orjson.dumps({**doc, "commands": 7}),
        "seats.json": orjson.dumps({**doc, "seats": "all"}),
        "game.json": orjson.dumps({**doc, "game": ["giraffometer"]}),
        "seed.json": orjson.dumps({**doc, "seed": 12}),
        "events.json": orjson.dumps(no_command),
        "options.json": orjson.dumps({**doc, "options": {**doc["options"], "target": 9}}),
        "half.jsonl": orjson.dumps(doc) + b"\n{",
    }
    for name, body in bad_files.items():
        if name != "missing.json":
            (tmp_path / name).write_bytes(body)
    paths = [str(tmp_path / name) for name in bad_files]
    checked = raffe(system, "verify", *paths)
    assert checked.returncode == 1, checked.stderr
    assert "Traceback" not in checked.stderr, checked.stderr
    failed = [line for line in checked.stderr.splitlines() if line.startswith("FAILED")]
    for name in bad_files:
        assert sum(name in line for line in failed) == 1, (name, checked.stderr)
    assert len(failed) == len(bad_files), checked.stderr
    options = next(line for line in failed if "options.json" in line)
    assert "): options: the record says" in options, options


def test_a_duplicate_table_asked_for_before_its_round_stays_held_on_every_surface(
    http: httpx.Client,
) -> None:
    """#51 item 1: asking for the tables before the round exists (404 then) no longer
    releases them for the life of the gateway: once the bots' table has finished and the
    person's still plays, every surface of the finished one is held (view, events, legal
    commands, replay with reveal, record, stream, lobby, the records export)."""
    created = tournament(http, games=["giraffe-raffe"], format="duplicate", table_size=2, rounds=1)
    tid = created["tournament_id"]
    tables = [f"{tid}-r1-t0", f"{tid}-r1-t1"]
    for table in tables:  # before the start: nothing exists yet, nothing is shown
        for path in ("", "/events", "/events/stream", "/commands"):
            early = http.get(f"/v1/games/{table}{path}")
            assert early.status_code in (403, 404), (path, early.text)
    tid, human = started_with_a_person(http, created, bots=3)
    mine = until(lambda: ready_table(http, tid, human["token"]), timeout=60)
    other = next(t for t in tables if t != mine["game_id"])
    until(lambda: table_finished(http, tid), timeout=60)
    for path in HELD_SURFACES:
        held = http.get(f"/v1/games/{other}{path}")
        assert held.status_code == 403 and held.json()["code"] == "held", (path, held.text)
    lobby = http.get("/v1/games", params={"limit": 200}).json()["games"]
    assert other not in {g["game_id"] for g in lobby}
    records = http.get("/v1/records", params={"game": "giraffe-raffe", "since_ms": 0})
    assert other not in records.text
    conceded = http.post(
        f"/v1/games/{mine['game_id']}/commands",
        json={"command": {"type": "concede"}, "command_id": "concede"},
        headers=auth(mine["token"]),
    )
    assert conceded.status_code == 200, conceded.text
    wait_finished(http, tid)
    time.sleep(0.6)  # gateways ask again about a held round at most every 0.5 s
    assert http.get(f"/v1/games/{other}/record").status_code == 200


HELD_SURFACES = (
    "",
    "/events",
    "/commands",
    "/replay?version=1&reveal=true",
    "/record",
    "/events/stream",
)


def ready_table(http: httpx.Client, tid: str, token: str) -> dict[str, Any] | None:
    mine = http.get(f"/v1/tournaments/{tid}/me", headers=auth(token)).json()
    tables = mine.get("tables") or []
    return dict(tables[0]) if tables and tables[0]["ready"] else None


def table_finished(http: httpx.Client, tid: str) -> bool:
    events = http.get(f"/v1/games/{tid}/events", params={"limit": 500}).json()["events"]
    return any(e["type"] == "TableFinished" for e in events)


def test_a_seat_token_of_an_erased_player_stops_working(http: httpx.Client) -> None:
    """#51 item 7: the seat token a signed-in player took for a seat answered at that
    seat after the player erased their account; it is revoked with the account."""
    me = http.post("/v1/accounts", json={}).json()["token"]  # a guest
    game = create(http, "giraffometer", [{"kind": "human"}, {"kind": "open"}])
    seat = http.post(f"/v1/games/{game['game_id']}/seats/1", headers=auth(me))
    assert seat.status_code == 201, seat.text
    token = seat.json()["token"]
    assert http.get(f"/v1/games/{game['game_id']}", headers=auth(token)).status_code == 200
    erased = http.post("/v1/accounts/me/erase", json={}, headers=auth(me))
    assert erased.status_code == 204, erased.text
    after = http.get(f"/v1/games/{game['game_id']}", headers=auth(token))
    assert after.status_code == 401, after.text


def test_the_rematch_of_a_practice_game_is_practice_too(http: httpx.Client) -> None:
    """#51 item 7: a practice game's rematch was an ordinary (rated) game."""
    seats = [{"kind": "human"}, {"kind": "bot"}]
    game = create(http, "giraffometer", seats, practice=True, seed="practice-seed")
    gid, token = game["game_id"], game["tokens"]["0"]
    conceded = http.post(
        f"/v1/games/{gid}/commands",
        json={"command": {"type": "concede"}, "command_id": "c"},
        headers=auth(token),
    )
    assert conceded.status_code == 200, conceded.text
    again = http.post(f"/v1/games/{gid}/rematch", headers=auth(token))
    assert again.status_code == 200 and again.json()["rematch"], again.text
    first = http.get(f"/v1/games/{again.json()['rematch']}/events", params={"limit": 1})
    created = first.json()["events"][0]["data"]
    assert created.get("practice") is True and created["rematch_of"] == gid


def test_a_redis_of_its_own_leaves_no_directory_behind() -> None:
    """#51 item 7: every test's redis-server left a raffe-redis-* folder in /tmp."""
    server = RedisServer().start()
    directory = Path(server.directory)
    assert directory.is_dir()
    server.stop()
    assert not directory.exists()


@needs_chromium
def test_a_browser_leaves_no_profile_behind() -> None:
    """#51 item 7: every browser the tests opened left a Chromium profile in /tmp."""
    before = set(Path(tempfile.gettempdir()).iterdir())
    driver = browser()
    own = Path(driver.scratch)  # type: ignore[attr-defined]
    assert own.is_dir()
    driver.get("about:blank")
    driver.quit()
    assert not own.exists()
    # Only what a Chromium leaves: the suite's other workers make their own folders in
    # /tmp meanwhile (their systems' state, their browsers' scratch folders, still open).
    new = set(Path(tempfile.gettempdir()).iterdir()) - before
    left = {p for p in new if "chrom" in p.name.lower() and not p.name.startswith(SCRATCH)}
    assert left == set()
