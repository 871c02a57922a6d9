"""The Giraffe Raffe engine over a real gRPC channel and a real Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.core.errors import (
    InvalidArgument,
    RaffeError,
    RuleViolation,
    UnknownGame,
    VersionConflict,
)
from services.core.eventstore import EventStore
from services.core.local_redis import free_port
from services.core.transport import EngineClient
from services.giraffe_raffe.bots import BOTS
from services.giraffe_raffe.game import GAME  # noqa: F401 - the engine fixture (conftest) serves it
from services.kernel.game import SeatSpec
from services.kernel.rng import SeededRng
from services.projection.service import replay_view
from tests.engine_fixtures import cid, play_out


async def new_game(engine: EngineClient, players: int = 3, **options: object) -> str:
    created = await engine.create([SeatSpec("human")] * players, options, seed="svc-seed")
    assert created.version >= 3 and len(created.seed_hash) == 64
    return created.game_id


async def a_legal_play(engine: EngineClient, game_id: str) -> tuple[int, int, dict]:
    """The version, the seat to act and a play it may make (on a Single/Pair/... tree)."""
    version, _, status = await engine.view(game_id, -1)
    seat = status["to_act"][0]
    _, legal = await engine.commands(game_id, seat)
    entry = next(c for c in legal["commands"] if c.get("options"))
    return version, seat, {"type": "play", "tree": entry["tree"], "cards": entry["options"][0]}


async def test_a_full_bot_game_over_grpc(engine: EngineClient, store: EventStore) -> None:
    game_id = await new_game(engine, 3)
    bots = [BOTS[b] for b in ("heuristic", "random", "random")]
    moves = await play_out(engine, game_id, bots, SeededRng("bots", game_id))
    version, view, status = await engine.view(game_id, -1)
    assert moves > 0 and status["over"] and len(status["losers"]) == 1
    assert view["seed"] == "svc-seed"  # public once over (AL-2)
    _, events = await engine.events(game_id, -1)
    assert [e["version"] for e in events] == list(range(1, version + 1))
    assert events[-1]["type"] == "GameEnded"
    replayed = await replay_view(store, game_id, -1, version, reveal=True)
    assert replayed == view
    hidden = await replay_view(store, game_id, 0, 4)
    assert hidden["hand"] and "hands" not in hidden


async def test_two_commands_on_one_version_give_one_success_and_one_conflict(
    engine: EngineClient,
) -> None:
    game_id = await new_game(engine, 2)
    version, _, status = await engine.view(game_id, -1)
    seat = status["to_act"][0]
    _, legal = await engine.commands(game_id, seat)
    playable = [c for c in legal["commands"] if c.get("options")]
    commands = [
        {"type": "play", "tree": playable[0]["tree"], "cards": playable[0]["options"][0]},
        {"type": "play", "tree": playable[-1]["tree"], "cards": playable[-1]["options"][-1]},
    ]
    results = await asyncio.gather(
        *(engine.execute(game_id, seat, c, cid(), expected_version=version) for c in commands),
        return_exceptions=True,
    )
    wins = [r for r in results if not isinstance(r, BaseException)]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert len(wins) == 1 and len(conflicts) == 1, results
    assert conflicts[0].current == wins[0].version


async def test_a_retried_command_id_returns_the_same_result(engine: EngineClient) -> None:
    game_id = await new_game(engine, 2)
    version, seat, command = await a_legal_play(engine, game_id)
    command_id = cid()
    first = await engine.execute(game_id, seat, command, command_id, expected_version=version)
    again = await engine.execute(game_id, seat, command, command_id, expected_version=version)
    assert again.duplicate and not first.duplicate
    assert (again.version, again.position) == (first.version, first.position)
    assert [e["id"] for e in again.events] == [e["id"] for e in first.events]
    assert (await engine.view(game_id, -1))[0] == first.version


@pytest.mark.parametrize(
    ("command", "error", "code"),
    [
        ({"type": "play", "tree": "free", "cards": ["Z1"]}, InvalidArgument, "unknown_card"),
        (
            {"type": "play", "tree": "free", "cards": ["R1", "R1", "R2"]},
            InvalidArgument,
            "duplicate_card",
        ),
        ({"type": "play", "tree": "roots", "cards": ["R1"]}, InvalidArgument, "unknown_tree"),
        ({"type": "return_apple"}, RuleViolation, "no_apple"),
        ({"type": "fly"}, InvalidArgument, "unknown_command"),
    ],
)
async def test_bad_commands_are_typed_and_append_nothing(
    engine: EngineClient, command: dict, error: type[RaffeError], code: str
) -> None:
    game_id = await new_game(engine, 2)
    version, _, status = await engine.view(game_id, -1)
    seat = status["to_act"][0]
    with pytest.raises(error) as info:
        await engine.execute(game_id, seat, command, cid(), expected_version=version)
    assert info.value.code == code and info.value.message
    assert (await engine.view(game_id, -1))[0] == version


async def test_out_of_turn_unknown_game_and_stale_versions(engine: EngineClient) -> None:
    game_id = await new_game(engine, 2)
    version, _, status = await engine.view(game_id, -1)
    other = 1 - status["to_act"][0]
    with pytest.raises(RuleViolation) as info:
        await engine.execute(
            game_id, other, {"type": "return_apple"}, cid(), expected_version=version
        )
    assert info.value.code == "not_your_turn"
    with pytest.raises(VersionConflict) as conflict:
        await engine.execute(game_id, other, {"type": "return_apple"}, cid(), expected_version=1)
    assert conflict.value.current == version
    with pytest.raises(UnknownGame):
        await engine.view("no-such-game", 0)
    with pytest.raises(InvalidArgument):
        await engine.create([SeatSpec("human")] * 2, {"mode": "marathon"})


async def test_hidden_information_in_views_and_events(engine: EngineClient) -> None:
    game_id = await new_game(engine, 3)
    _, seat0, _ = await engine.view(game_id, 0)
    _, spectator, _ = await engine.view(game_id, -1)
    assert len(seat0["hand"]) == 15 and spectator["hand"] is None
    assert "seed" not in spectator and "hands" not in spectator
    _, events = await engine.events(game_id, 1)
    dealt = next(e for e in events if e["type"] == "CardsDealt")["data"]
    assert set(dealt["hands"]) == {"1"} and "redraw" not in dealt
    assert "seed" not in events[0]["data"] and events[0]["data"]["seed_hash"]


def test_the_engine_process_serves_health_and_reflection_and_stops_on_sigterm(
    redis_url: str,
) -> None:
    port = free_port()
    env = {**os.environ, "RAFFE_PORT": str(port), "RAFFE_REDIS_URL": redis_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "services.engine", "giraffe-raffe"], env=env, stderr=subprocess.PIPE
    )
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        health = health_pb2_grpc.HealthStub(channel)
        check = health.Check(health_pb2.HealthCheckRequest(service="raffe.v1.Engine"), timeout=5)
        assert check.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        answer = next(
            reflect.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
            )
        )
        names = {s.name for s in answer.list_services_response.service}
        assert "raffe.v1.Engine" in names and "grpc.health.v1.Health" in names
        channel.close()
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert b'"message": "stopped"' in err
