"""The third outside round (#51), over HTTP against the running system: what a stranger
and a newcomer found, each with the test that failed before its fix."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import orjson

from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway
from tests.e2e.test_hardening import watch
from tests.e2e.test_records import finished_record, raffe


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
