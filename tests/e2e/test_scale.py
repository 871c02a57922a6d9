"""Scale-out under failure: a 3-primary Redis Cluster, two replicas of every engine (the
tournament service included, so two tournament runners), two projection workers, two
bot runners and one gateway, all real processes started by the launcher. A 64-game bot
tournament across all three games runs while one engine replica and one bot runner are
killed with SIGKILL. Afterwards every game's stream is gapless, every game ended once
and was reported once, and standings folded from the log equal the live ones."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.core.codec import to_domain
from services.core.eventstore import open_store
from services.core.settings import StoreSettings
from services.core.transport import EngineClient
from services.tournament.game import GAME as TOURNAMENT
from services.tournament.ids import table_game_id
from services.tournament.state import State
from tests.e2e.players import auth
from tests.e2e.system import running_system

pytestmark = [pytest.mark.cluster, pytest.mark.slow]
PLAYERS, TABLE, ROUNDS = 24, 3, 8  # 8 tables a round, 8 rounds: 64 games


def test_a_64_game_tournament_survives_a_killed_engine_and_bot_runner(tmp_path: Path) -> None:
    env = {
        "RAFFE_LEASE_MS": "1500",  # a killed worker's partitions are free again soon
        "RAFFE_RATE_PER_ADDRESS": "100000",
        "RAFFE_RATE_PER_TOKEN": "100000",
    }
    with (
        running_system(tmp_path, "--replicas", "2", "--cluster", **env) as system,
        httpx.Client(base_url=system.base_url, timeout=30) as http,
    ):
        pids = {name: pid for name, (_, pid) in system.processes.items()}
        assert sum(name.startswith("giraffe-raffe engine") for name in pids) == 2
        assert sum(name.startswith("bot runner") for name in pids) == 2
        tid = run_tournament(http, pids)
        live = http.get(f"/v1/tournaments/{tid}").json()
        assert live["status"]["over"] and live["progress"] == {"games": 64, "finished": 64}
        assert {r["game"] for r in live["rounds"]} == {"giraffe-raffe", "giraffometer", "riff-raff"}
        settings = StoreSettings(redis_url=system.redis_url, cluster=True)
        state, types, streams = asyncio.run(read_log(settings, tid, live))
        surviving = system.processes["tournament engine #2"][0]
        engine = asyncio.run(engine_view(surviving, tid))
        projected = http.get(f"/v1/tournaments/{tid}/standings").json()
        rebuild(system.redis_url)  # every read model again from the log alone
        rebuilt_model = http.get(f"/v1/tournaments/{tid}/standings").json()
    for game_id, versions, game_types in streams:
        assert versions == list(range(1, len(versions) + 1)), game_id  # gapless
        assert game_types.count("GameEnded") == 1 and game_types[-1] == "GameEnded", game_id
    assert types.count("TableFinished") == 64  # each game reported once
    assert types.count("RoundStarted") == types.count("RoundEnded") == ROUNDS  # advanced once
    rebuilt = TOURNAMENT.view(state, -1)
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
) -> tuple[State, list[str], list[tuple[str, list[int], list[str]]]]:
    """The tournament folded from its stored events, their types, and each table game's
    versions and event types, all read from Redis."""
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
        return state, [e.type for e in events], streams
    finally:
        await store.redis.aclose()
