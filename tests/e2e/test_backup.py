"""Backup and restore (#29 item 4, docs/operations.md): a running system is backed up
with ``python -m services.backup`` while it serves; a fresh system started from the file
(``--restore``) serves the same games, replays, records, players and ratings, plays on,
and rebuilding every read model from the restored log draws the same."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.players import auth, create
from tests.e2e.system import System, rebuild, running_system, wait_over
from tests.e2e.test_accounts import register, unique
from tests.e2e.test_ratings import rated_games

FAST = {"RAFFE_PROVISIONAL_GAMES": "1", "RAFFE_REGISTRATIONS_PER_WINDOW": "100"}


def seen(http: httpx.Client, games: list[str], player: str) -> dict[str, Any]:
    """What readers see of the games and the player: views, a replay, records, ratings."""
    out: dict[str, Any] = {}
    for gid in games:
        view = http.get(f"/v1/games/{gid}").json()
        out[gid] = {
            "version": view["version"],
            "view": view["view"],
            "replay": http.get(f"/v1/games/{gid}/replay", params={"version": 3}).json()["view"],
            "record": http.get(f"/v1/games/{gid}/record").json(),
        }
    out["player"] = http.get(f"/v1/players/{player}").json()
    out["rated"] = http.get(f"/v1/players/{player}/games").json()
    out["board"] = http.get("/v1/leaderboards/giraffometer", params={"season": "all"}).json()
    return out


def backup(system: System, out: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "services.backup", str(out)],
        env=system.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and out.stat().st_size > 0, done.stdout + done.stderr
    return done.stdout


def sign_in(http: httpx.Client, name: str, password: str) -> httpx.Response:
    """A sign-in, asked again after a 503 as its Retry-After says (a password's hash is
    CPU work, and a system just restored on a busy machine may take longer than the
    gateway's deadline for the first ones)."""
    for _ in range(10):
        answer = http.post("/v1/sessions", json={"name": name, "password": password})
        if answer.status_code != 503:
            return answer
        time.sleep(float(answer.headers.get("retry-after", "1")))
    return answer


def test_a_backup_restores_into_a_fresh_system_that_serves_the_same(tmp_path: Path) -> None:
    for state in ("a", "b"):
        (tmp_path / state).mkdir()
    with (
        running_system(tmp_path / "a", **FAST) as first,
        httpx.Client(base_url=first.base_url, timeout=20) as http,
    ):
        ann = register(http, unique("Ann"), "ann's password")
        bob = register(http, unique("Bob"), "bob's password")
        rated = http.post(
            "/v1/games",
            json={
                "game": "giraffometer",
                "seats": [{"kind": "human", "player": "me"}, {"kind": "bot"}],
            },
            headers=auth(ann["token"]),
        ).json()["game_id"]
        concede = {"command": {"type": "concede"}, "command_id": "c"}
        http.post(f"/v1/games/{rated}/commands", json=concede, headers=auth(ann["token"]))
        bots = [create(http, "riff-raff", [{"kind": "bot"}] * 2)["game_id"] for _ in range(2)]
        for gid in bots:
            wait_over(http, gid)
        rated_games(http, ann["player_id"], 1)
        time.sleep(0.5)  # the read models of the last moves
        before = seen(http, [rated, *bots], ann["player_id"])
        said = backup(first, tmp_path / "raffe.rdb")
        assert "saved" in said
        # Bob erases his account after the backup: the restore brings it back ...
        since = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - 1))
        gone = http.post(
            "/v1/accounts/me/erase",
            json={"password": "bob's password"},
            headers=auth(bob["token"]),
        )
        assert gone.status_code == 204, gone.text
        assert http.get(f"/v1/players/{bob['player_id']}").status_code == 404
    with (
        running_system(tmp_path / "b", "--restore", str(tmp_path / "raffe.rdb"), **FAST) as second,
        httpx.Client(base_url=second.base_url, timeout=20) as http,
    ):
        assert seen(http, [rated, *bots], ann["player_id"]) == before
        assert http.get(f"/v1/players/{bob['player_id']}").json()["name"] == bob["name"]
        # ... so the erasures the gateways logged since the backup are applied again.
        assert first.log is not None
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "gateway.accounts.admin",
                "erase",
                "--from-log",
                str(first.log),
                "--since",
                since,
            ],
            env=second.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert again.returncode == 0 and "1 of 1 accounts erased" in again.stdout, again.stdout
        assert http.get(f"/v1/players/{bob['player_id']}").status_code == 404
        refused = sign_in(http, bob["name"], "bob's password")
        assert refused.status_code == 401, refused.text
        # It plays on: a new game on the restored store, and Ann signs in again.
        signed = sign_in(http, ann["name"], "ann's password")
        assert signed.status_code == 201, signed.text
        more = create(http, "riff-raff", [{"kind": "bot"}] * 2)["game_id"]
        wait_over(http, more)
        # Every read model drawn again from the restored log alone is the same.
        rebuild(second)
        time.sleep(0.5)
        assert seen(http, [rated, *bots], ann["player_id"]) == before
