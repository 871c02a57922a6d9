"""A gateway stopped as a rollout stops it (#55 item 3): SIGTERM ends each live stream at
once with a retry hint, /readyz turns 503 ("draining") and no new stream opens there,
the process exits within its grace period, and the client resumes from its
Last-Event-ID on another gateway, missing nothing."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path

import httpx

from gateway.__main__ import GRACEFUL_S
from tests.e2e.players import auth, create
from tests.e2e.system import extra_gateway_process, running_system


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
        assert opened.wait(10)
        time.sleep(0.5)
        seen = max(int(line[3:]) for line in lines if line.startswith("id:"))
        stopped = time.monotonic()
        process.send_signal(signal.SIGTERM)
        reader.join(timeout=5)
        assert not reader.is_alive(), "the stream stayed open after SIGTERM"
        ended_after = time.monotonic() - stopped
        assert "retry: 1000" in lines, lines[-5:]
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
