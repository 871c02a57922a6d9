"""Scale-out under failure: a 3-primary Redis Cluster, two replicas of every engine (the
tournament service included, so two tournament runners), two projection workers, two
bot runners and one gateway, all real processes started by the launcher. A 64-game bot
tournament across all three games runs while one engine replica and one bot runner are
killed with SIGKILL. Afterwards every game's stream is gapless, every game ended once
and was reported once, and standings folded from the log equal the live ones."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.core.codec import to_domain
from services.core.engine_client import EngineClient
from services.core.eventstore import open_store
from services.core.settings import StoreSettings
from services.tournament.game import GAME as TOURNAMENT
from services.tournament.ids import table_game_id
from services.tournament.state import State
from tests.e2e.players import auth

pytestmark = [pytest.mark.cluster, pytest.mark.slow]
PLAYERS, TABLE, ROUNDS = 24, 3, 8  # 8 tables a round, 8 rounds: 64 games


@contextmanager
def scaled_system(state: Path) -> Iterator[dict[str, Any]]:
    env = {
        **os.environ,
        "RAFFE_LEASE_MS": "1500",  # a killed worker's partitions are free again soon
        "RAFFE_RATE_PER_ADDRESS": "100000",
        "RAFFE_RATE_PER_TOKEN": "100000",
    }
    command = [sys.executable, "-m", "services.launcher", "--free-ports", "--replicas", "2"]
    process = subprocess.Popen(
        [*command, "--cluster", "--state-dir", str(state)],
        stdout=subprocess.PIPE,
        stderr=(state / "system.log").open("w"),
        text=True,
        env=env,
    )
    assert process.stdout is not None
    text = ""
    for line in process.stdout:
        text += line
        if "raffe is running" in line or "exited" in line:
            break
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # type: ignore[union-attr]
    gateway = re.search(r"gateway: (http://\S+)", text)
    redis = re.search(r"redis cluster of 3 primaries at (\S+)", text)
    assert gateway and redis, text
    found = re.findall(r"^(.+?) at (\S+) \(pid (\d+)\)", text, re.M)
    pids = {name: int(pid) for name, _, pid in found}
    addresses = {name: address for name, address, _ in found}
    try:
        yield {
            "gateway": gateway.group(1),
            "redis": redis.group(1),
            "pids": pids,
            "tournament engine": addresses["tournament engine #2"],
        }
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def test_a_64_game_tournament_survives_a_killed_engine_and_bot_runner(tmp_path: Path) -> None:
    with (
        scaled_system(tmp_path) as system,
        httpx.Client(base_url=system["gateway"], timeout=30) as http,
    ):
        pids = system["pids"]
        assert sum(name.startswith("giraffe-raffe engine") for name in pids) == 2
        assert sum(name.startswith("bot runner") for name in pids) == 2
        tid = run_tournament(http, pids)
        live = http.get(f"/v1/tournaments/{tid}").json()
        assert live["status"]["over"] and live["progress"] == {"games": 64, "finished": 64}
        assert {r["game"] for r in live["rounds"]} == {"giraffe-raffe", "giraffometer", "riff-raff"}
        settings = StoreSettings(redis_url=system["redis"], cluster=True)
        folded, streams = asyncio.run(read_log(settings, tid, live))
        engine = asyncio.run(engine_view(system["tournament engine"], tid))
        projected = http.get(f"/v1/tournaments/{tid}/standings").json()
        rebuild(system["redis"])  # every read model again from the log alone
        rebuilt_model = http.get(f"/v1/tournaments/{tid}/standings").json()
    for game_id, versions, types in streams:
        assert versions == list(range(1, len(versions) + 1)), game_id  # gapless
        assert types.count("GameEnded") == 1 and types[-1] == "GameEnded", game_id
    types = folded_events(folded)
    assert types.count("TableFinished") == 64  # each game reported once
    assert types.count("RoundStarted") == types.count("RoundEnded") == ROUNDS  # advanced once
    rebuilt = TOURNAMENT.view(folded["state"], -1)
    assert rebuilt["standings"] == engine["standings"] == live["standings"]
    assert rebuilt["rating_history"] == engine["rating_history"] == live["rating_history"]
    for served in (projected, rebuilt_model):  # the projection's, live and rebuilt
        assert served["source"] == "projection" and served["version"] == live["version"]
        assert served["standings"] == live["standings"]
        assert served["rating_history"] == live["rating_history"]


async def engine_view(address: str, tid: str) -> dict[str, Any]:
    """The live standings as the tournament engine (the surviving replica) holds them."""
    client = EngineClient.connect(address)
    try:
        _, view, _ = await client.view(tid, -1)
        return view
    finally:
        await client.close()


def rebuild(redis_url: str) -> None:
    env = {**os.environ, "RAFFE_REDIS_URL": redis_url, "RAFFE_REDIS_CLUSTER": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "services.projection", "rebuild"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "switched" in done.stderr, done.stderr


def run_tournament(http: httpx.Client, pids: dict[str, int]) -> str:
    options = {
        "name": "scale",
        "games": ["giraffe-raffe", "giraffometer", "riff-raff"],
        "format": "swiss",
        "table_size": TABLE,
        "rounds": ROUNDS,
        "game_options": {"giraffometer": {"target": 3}},
    }
    created = http.post("/v1/tournaments", json=options).json()
    tid, organiser = created["tournament_id"], auth(created["organiser_token"])
    for i in range(PLAYERS):
        bot = {"name": f"bot{i:02}", "kind": "bot", "bot_level": "random"}
        assert http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=organiser).is_success
    assert http.post(f"/v1/tournaments/{tid}/start", headers=organiser).is_success
    killed = False
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline:
        t = http.get(f"/v1/tournaments/{tid}").json()
        if t["status"]["over"]:
            assert killed
            return tid
        if not killed and t["progress"]["finished"] >= 12:  # mid-tournament, mid-round
            os.kill(pids["giraffe-raffe engine #1"], signal.SIGKILL)
            os.kill(pids["bot runner #1"], signal.SIGKILL)
            killed = True
        time.sleep(0.2)
    raise AssertionError(f"the tournament did not end: {t['progress']}")


async def read_log(
    settings: StoreSettings, tid: str, live: dict[str, Any]
) -> tuple[dict[str, Any], list[tuple[str, list[int], list[str]]]]:
    store = await open_store(settings)
    try:
        events = await store.read_game(tid)
        state = TOURNAMENT.initial()
        for e in events:
            state = TOURNAMENT.evolve(state, to_domain(e))
        streams = []
        for r in live["rounds"]:
            for t in r["tables"]:
                game_id = table_game_id(tid, r["round"], t["table"])
                stored = await store.read_game(game_id)
                streams.append((game_id, [e.version for e in stored], [e.type for e in stored]))
        return {"state": state, "types": [e.type for e in events]}, streams
    finally:
        await store.redis.aclose()


def folded_events(folded: dict[str, Any]) -> list[str]:
    assert isinstance(folded["state"], State)
    return list(folded["types"])
