"""The contract a frontend builds on (#24 item 10): the live /openapi.json, turned into
TypeScript types by openapi-typescript (npm registry, installed by `make install`),
compiles under `tsc --strict` with the README's tour written against it (no casts):
legal commands, events and views narrow by their `type` and `game`; streams, tickets,
the lobby, replays and tournaments are typed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv/npm/node_modules/.bin"
TOUR = Path(__file__).parent / "typescript" / "readme_tour.ts"


def tool(name: str) -> str:
    found = BIN / name
    if not found.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"{found} is missing: `make install` installs it with npm")
        pytest.skip(f"{name} is not installed (make install does it when npm is there)")
    return str(found)


def run(where: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=where, capture_output=True, text=True, timeout=180)


def test_the_api_document_compiles_as_typescript_with_the_readme_tour(
    http: httpx.Client, tmp_path: Path
) -> None:
    generate, tsc = tool("openapi-typescript"), tool("tsc")
    (tmp_path / "openapi.json").write_text(http.get("/openapi.json").text)
    made = run(tmp_path, generate, "openapi.json", "-o", "api.d.ts")
    assert made.returncode == 0, made.stderr
    shutil.copy(TOUR, tmp_path / "client.ts")
    checked = run(tmp_path, tsc, "--strict", "--noEmit", "api.d.ts", "client.ts")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # A wrong use is refused: the types say something.
    (tmp_path / "client.ts").write_text(
        TOUR.read_text() + '\nconst wrong: components["schemas"]["StreamTicket"] = {ticket: 1};\n'
    )
    refused = run(tmp_path, tsc, "--strict", "--noEmit", "api.d.ts", "client.ts")
    assert refused.returncode != 0 and "TS2" in refused.stdout


def test_a_min_version_past_what_exists_answers_202(http: httpx.Client) -> None:
    """#24 item 10: a view asked for at a version that does not exist says so (202 with
    the newest view), after the bounded wait, instead of an older view as 200."""
    created = http.post(
        "/v1/games", json={"game": "giraffometer", "seats": [{"kind": "human"}] * 2}
    ).json()
    ahead = created["version"] + 5
    answer = http.get(f"/v1/games/{created['game_id']}", params={"min_version": ahead})
    assert answer.status_code == 202 and answer.json()["version"] < ahead
    now = http.get(f"/v1/games/{created['game_id']}", params={"min_version": 1})
    assert now.status_code == 200
