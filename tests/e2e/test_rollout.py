"""Rollouts that drop nobody (#55 item 3).

A gateway stopped as a rollout stops it: SIGTERM ends each live stream (a game's, a
tournament's, a quick-play ticket's) at once with a retry hint, /readyz turns 503
("draining") and no new stream opens there, the process exits within its grace period,
and the client resumes from its Last-Event-ID on another gateway, missing nothing.

A rolling restart of every process of a two-replica system under a steady load of people
and bots: nothing acknowledged lost, nothing refused but retried, every stream resumed;
the longest waits players saw are printed (docs/operations.md has the figures)."""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

from gateway.__main__ import GRACEFUL_S
from services.core.local_redis import free_port
from tests.e2e.balanced import Balancer, Watcher
from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway_process, running_system, wait_over
from tests.e2e.test_accounts import register, unique
from tests.e2e.voters import Voter, check_nothing_lost


def read_stream(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    lines: list[str],
    opened: threading.Event,
) -> None:
    with client.stream("GET", url, headers=headers, timeout=60) as stream:
        opened.set()
        lines.extend(stream.iter_lines())


def test_a_stopping_gateway_ends_its_streams_with_a_retry_hint_and_nothing_is_missed(
    tmp_path: Path,
) -> None:
    with running_system(tmp_path) as s, extra_gateway_process(s) as (other, process):
        http = httpx.Client(base_url=s.base_url, timeout=10)
        game = create(http, "giraffometer", [{"kind": "human"}] * 2, options={"target": 100})
        gid, token = game["game_id"], game["tokens"]["0"]
        url = f"/v1/games/{gid}/events/stream"
        lines: list[str] = []
        opened = threading.Event()
        reader = threading.Thread(
            target=read_stream, args=(other, url, auth(token), lines, opened), daemon=True
        )
        reader.start()
        # A player waiting in the quick-play queue follows their ticket on that gateway too.
        ada = register(other, unique("Ada"), "ada's password")
        join = {"game": "giraffe-raffe", "seats": 5}
        assert other.post("/v1/quickplay", json=join, headers=auth(ada["token"])).is_success
        queue: list[str] = []
        queued = threading.Event()
        waiting = threading.Thread(
            target=read_stream,
            args=(other, "/v1/quickplay/stream", auth(ada["token"]), queue, queued),
            daemon=True,
        )
        waiting.start()
        assert opened.wait(10) and queued.wait(10)
        time.sleep(0.5)
        seen = max(int(line[3:]) for line in lines if line.startswith("id:"))
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        reader.join(timeout=5)
        assert not reader.is_alive(), "the stream stayed open after SIGTERM"
        ended_after = time.monotonic() - stopped
        waiting.join(timeout=5)  # the queue's stream looks every half second
        assert not waiting.is_alive(), "the quick-play stream stayed open after SIGTERM"
        assert any(line.startswith("retry:") for line in queue), queue[-5:]
        (hint,) = [int(line[6:]) for line in lines if line.startswith("retry:")]
        assert 250 <= hint <= 1000, lines[-5:]
        # The stopping gateway says so to its load balancer and opens nothing new.
        try:
            assert other.get("/readyz").json()["failing"] == ["draining"]
            refused = other.get(url, headers=auth(token))
            assert refused.status_code == 503 and refused.json()["code"] == "draining"
        except httpx.TransportError:
            pass  # it has already stopped listening: as good for a balancer
        # Within the grace period; uvicorn re-raises the signal once it has stopped cleanly.
        assert process.wait(timeout=GRACEFUL_S + 5) in (0, -signal.SIGTERM)
        # Meanwhile the game goes on; the client resumes on the other gateway from its id.
        vote = {
            "command": {"type": "vote", "lowest": 1, "highest": 2},
            "command_id": uuid.uuid4().hex,
        }
        assert http.post(f"/v1/games/{gid}/commands", json=vote, headers=auth(token)).is_success
        resumed: list[int] = []
        with http.stream(
            "GET", url, headers={**auth(token), "Last-Event-ID": str(seen)}, timeout=10
        ) as stream:
            for line in stream.iter_lines():
                if line.startswith("id:"):
                    resumed.append(int(line[3:]))
                if resumed and resumed[-1] >= seen + 1:
                    break
        assert resumed[0] == seen + 1, resumed
        print(f"stream ended {ended_after * 1000:.0f} ms after SIGTERM")


# A rollout's load: people voting in long games, bots playing whole games, and every
# seat's screen on a live stream; the heartbeat short, so a stopped watcher returns soon.
ROLLOUT = {
    "RAFFE_RATE_PER_ADDRESS": "5000",
    "RAFFE_RATE_PER_TOKEN": "5000",
    "RAFFE_BOT_PACE_MS": "100",
    "RAFFE_SSE_HEARTBEAT_S": "1",
}


def current_pid(system: System, name: str) -> int:
    """The pid the launcher last gave ``name`` (started, or restarted)."""
    pid = system.processes[name][1]
    for line in list(system.output):
        if m := re.match(rf"{re.escape(name)} restarted \(pid (\d+)\)", line):
            pid = int(m.group(1))
    return pid


def restart_by_launcher(system: System, name: str) -> float:
    """SIGTERM ``name`` and wait until the launcher has started it again, as a rollout
    replaces one pod and waits for the new one before the next; the seconds it took."""
    said = f"{name} restarted"
    before = sum(line.startswith(said) for line in list(system.output))
    started = time.monotonic()
    os.kill(current_pid(system, name), signal.SIGTERM)
    deadline = started + 60
    while sum(line.startswith(said) for line in list(system.output)) == before:
        assert time.monotonic() < deadline, f"{name} was not replaced"
        time.sleep(0.05)
    time.sleep(0.5)  # its readiness: Redis connected, a first health check passed
    return time.monotonic() - started


def gateway_on(system: System, port: int) -> subprocess.Popen[bytes]:
    env = {**system.env, "RAFFE_PORT": str(port), "RAFFE_METRICS_PORT": ""}
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway"], env=env, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200:
                return process
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the gateway did not become ready"
        time.sleep(0.1)


class BotTables(threading.Thread):
    """A table of bots created every second through the balancer (a create lands on an
    engine replica), each of which must finish."""

    def __init__(self, gateways: list[str]) -> None:
        super().__init__(daemon=True)
        self.http = Balancer(gateways)
        self.games: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        for game in itertools.cycle(["riff-raff", "giraffe-raffe", "giraffometer"]):
            if self.stop.wait(1.0):
                return
            self.games.append(create(self.http, game, [{"kind": "bot"}] * 3)["game_id"])


def test_a_rolling_restart_of_every_process_loses_no_move_and_every_stream_resumes(
    tmp_path: Path,
) -> None:
    """Two gateways and two replicas of every other service; people vote through a
    balancer while bots play and every voter's opponent watches the live stream. Each
    process is stopped (SIGTERM) and replaced in turn. Nothing acknowledged is lost, no
    request fails but by being sent again, every stream resumes with nothing missed, and
    the longest wait a player saw is printed."""
    with running_system(tmp_path, "--replicas", "2", **ROLLOUT) as s:
        port = free_port()
        gateways = [s.base_url, f"http://127.0.0.1:{port}"]
        extra = [gateway_on(s, port)]
        try:
            roll_under_load(s, gateways, extra)
        finally:
            extra[-1].terminate()
            extra[-1].wait(timeout=GRACEFUL_S + 5)


def roll_under_load(s: System, gateways: list[str], extra: list[subprocess.Popen[bytes]]) -> None:
    http = Balancer(gateways)
    games = [
        create(http, "giraffometer", [{"kind": "human"}] * 2, options={"target": 100})
        for _ in range(3)
    ]
    balancers: list[Balancer] = []

    def connect() -> Balancer:
        balancers.append(Balancer(gateways))
        return balancers[-1]

    voters = [Voter(s.base_url, g, connect=connect) for g in games]
    for voter in voters:  # people at a steady pace, for as long as the rollout lasts
        voter.rounds, voter.pause_s = 10**6, 0.05
    watchers = [Watcher(gateways, g["game_id"], g["tokens"]["1"]) for g in games]
    tables = BotTables(gateways)
    for thread in [*watchers, *voters, tables]:
        thread.start()
    try:
        time.sleep(2)
        names = [n for n in s.processes if not n.startswith("redis")]
        took = {name: restart_by_launcher(s, name) for name in names}
        started = time.monotonic()
        extra[-1].send_signal(signal.SIGTERM)
        assert extra[-1].wait(timeout=GRACEFUL_S + 5) in (0, -signal.SIGTERM)
        extra.append(gateway_on(s, int(gateways[1].rsplit(":", 1)[1])))
        took["second gateway"] = time.monotonic() - started
        time.sleep(2)
    finally:
        tables.stop.set()
        for voter in voters:
            voter.stop.set()
            voter.join(timeout=30)
    try:
        retried = sum((b.retried for b in balancers), Counter())
        check_rollout(s, http, voters, watchers, tables, took, retried)
    finally:
        for watcher in watchers:
            watcher.stop.set()


def check_rollout(
    system: System,
    http: httpx.Client,
    voters: list[Voter],
    watchers: list[Watcher],
    tables: BotTables,
    took: dict[str, float],
    retried: Counter[str],
) -> None:
    # Every process stopped cleanly (drained), none crashed.
    for name in took:
        exits = [line for line in system.output if line.startswith(f"{name} exited with")]
        assert all(line.split()[-1] in ("0", "-15") for line in exits), exits
    delays: list[float] = []
    for voter, watcher in zip(voters, watchers, strict=True):
        assert not voter.refusals, [r.text for r in voter.refusals]  # nothing but retries
        check_nothing_lost(http, voter, [])
        final = voter.acknowledged[-1]["version"]
        watcher.wait_for(final)
        assert set(range(1, final + 1)) <= set(watcher.seen), "a stream missed a version"
        for answer, at in zip(voter.acknowledged, voter.acknowledged_at, strict=True):
            delays.append(max(0.0, watcher.seen[answer["version"]] - at))
        assert watcher.hinted >= 1 and watcher.opened >= 2  # ended by a drain, resumed
    for game in tables.games:
        wait_over(http, game, timeout=120)
    moves = sum(len(v.acknowledged) for v in voters)
    waits = [b - a for v in voters for a, b in itertools.pairwise(v.acknowledged_at)]
    each = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in took.items())
    print(
        f"rolling restart of {len(took)} processes ({each}): "
        f"{moves} moves acknowledged, 0 lost; {len(tables.games)} bot games finished; "
        f"requests sent again: {dict(retried)}; streams resumed: "
        f"{sum(w.opened - 1 for w in watchers)}; longest a voter waited for an answer: "
        f"{max(waits):.2f} s; longest a move took to reach the other seat's stream: "
        f"{max(delays):.2f} s"
    )
