"""``make demo``: one bot game of each kind played through the REST API, then a small
bot tournament over all three (progress, standings).

Uses the gateway at --url when one answers there (a running `make run`); otherwise starts
the whole system itself, on free ports, for the length of the demo."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx

from services.cli import watch
from services.targets import GATEWAY_PORT

DEMO_GAMES: list[dict[str, Any]] = [
    {
        "game": "giraffe-raffe",
        "seats": [
            {"kind": "bot", "bot_level": "heuristic"},
            {"kind": "bot", "bot_level": "random"},
            {"kind": "bot", "bot_level": "random"},
        ],
    },
    {
        "game": "giraffometer",
        "seats": [
            {"kind": "bot", "bot_level": "expert"},
            {"kind": "bot", "bot_level": "normal"},
            {"kind": "bot", "bot_level": "random"},
        ],
        "options": {"target": 5},
    },
    {
        "game": "riff-raff",
        "seats": [
            {"kind": "bot", "bot_level": "careful"},
            {"kind": "bot", "bot_level": "random"},
            {"kind": "bot", "bot_level": "random"},
        ],
    },
]
DEMO_TOURNAMENT: dict[str, Any] = {
    "name": "demo",
    "games": ["giraffe-raffe", "giraffometer", "riff-raff"],
    "format": "swiss",
    "table_size": 3,
    "rounds": 3,
    "game_options": {"giraffometer": {"target": 3}},
}


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def start_system() -> tuple[subprocess.Popen[str], str]:
    state = tempfile.mkdtemp(prefix="raffe-demo-")
    # The demo shows the API, not the table: its bots move at once unless told otherwise.
    env = {"RAFFE_BOT_PACE_MS": "0", **os.environ}
    process = subprocess.Popen(
        [sys.executable, "-m", "services.launcher", "--free-ports", "--state-dir", state],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if match := re.search(r"gateway: (http://\S+)", line):
            url = match.group(1)
        if "raffe is running" in line:
            return process, url
    raise RuntimeError("the system did not start")


def play(client: httpx.Client, spec: dict[str, Any]) -> None:
    created = client.post("/v1/games", json=spec).json()
    game_id = created["game_id"]
    print(f"{spec['game']}: game {game_id}", flush=True)
    while True:
        body = client.get(f"/v1/games/{game_id}").json()
        status = body["view"]["status"]
        print(f"\r  version {body['version']}", end="", flush=True)
        if status["over"]:
            break
        time.sleep(0.2)
    print(
        f"\r  over at version {body['version']}: winners {status['winners']}, "
        f"losers {status['losers']}"
    )
    print(f"  replay: {client.base_url}/v1/games/{game_id}/replay?version=1&reveal=true")
    print(f"  events: {client.base_url}/v1/games/{game_id}/events")


def tournament(client: httpx.Client) -> None:
    """Nine bots, three Swiss rounds, one game of each kind per round."""
    created = client.post("/v1/tournaments", json=DEMO_TOURNAMENT).json()
    tid = created["tournament_id"]
    auth = {"Authorization": f"Bearer {created['organiser_token']}"}
    for i, level in enumerate(["heuristic", "careful", "expert"] * 3):
        bot = {"name": f"bot-{i + 1}", "kind": "bot", "bot_level": level if i < 3 else ""}
        client.post(f"/v1/tournaments/{tid}/players", json=bot, headers=auth).raise_for_status()
    client.post(f"/v1/tournaments/{tid}/start", headers=auth).raise_for_status()
    print(f"tournament {tid}", flush=True)
    watch(client, tid, chart="", timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default=f"http://127.0.0.1:{GATEWAY_PORT}")
    args = parser.parse_args()
    system, url = (None, args.url) if answers(args.url) else start_system()
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            for spec in DEMO_GAMES:
                play(client, spec)
            tournament(client)
    finally:
        if system is not None:
            system.send_signal(signal.SIGINT)
            system.wait(timeout=30)


if __name__ == "__main__":
    main()
