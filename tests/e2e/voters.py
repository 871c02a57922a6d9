"""Players who keep a game moving through an outage or a failover: every command sent
again with its command id until it is answered, every acknowledged answer kept, so a
test can check that nothing acknowledged was lost."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx

from tests.e2e.players import auth

ORIGIN = {"Origin": "https://play.example.org"}


def all_events(http: httpx.Client, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while page := http.get(f"/v1/games/{game_id}/events", params={"after": len(events)}).json()[
        "events"
    ]:
        events += page
    return events


class Voter(threading.Thread):
    """Both seats of a long Giraffometer game vote round after round, each vote retried
    with its command id until it is answered; every acknowledged answer is kept."""

    def __init__(
        self,
        base_url: str,
        game: dict[str, Any],
        connect: Callable[[], httpx.Client] | None = None,
    ) -> None:
        super().__init__(daemon=True)
        self.base_url, self.game = base_url, game
        # how the voter reaches the gateway (a Balancer over several, for rollouts)
        self.connect = connect or (lambda: httpx.Client(base_url=base_url, timeout=5))
        self.acknowledged: list[dict[str, Any]] = []
        self.acknowledged_at: list[float] = []  # time.monotonic() of each
        self.refusals: list[httpx.Response] = []
        self.stop = threading.Event()
        # Rounds until stopped, in effect: a fast machine votes hundreds a second (a
        # thousand rounds once ran out before the outage a test made).
        self.rounds = 100_000
        self.pause_s = 0.0  # after each vote: a steady pace instead of as fast as answered

    def run(self) -> None:
        with self.connect() as http:
            for _ in range(self.rounds):
                for seat in ("0", "1"):
                    if self.stop.is_set():
                        return
                    self.vote(http, seat)
                    time.sleep(self.pause_s)

    def vote(self, http: httpx.Client, seat: str) -> None:
        body = {
            "command": {"type": "vote", "lowest": 1, "highest": 2},
            "command_id": uuid.uuid4().hex,
        }
        url = f"/v1/games/{self.game['game_id']}/commands"
        headers = {**auth(self.game["tokens"][seat]), **ORIGIN}
        for _ in range(400):  # the same command id until it is answered
            try:
                sent = http.post(url, json=body, headers=headers)
            except httpx.TransportError:
                time.sleep(0.05)
                continue
            if sent.status_code == 200:
                self.acknowledged.append(sent.json())
                self.acknowledged_at.append(time.monotonic())
                return
            self.refusals.append(sent)
            if sent.status_code == 429:  # as a client should: wait as told, then again
                time.sleep(min(float(sent.headers.get("retry-after", "1")), 1.0))
                continue
            if sent.status_code != 503:
                return
            time.sleep(0.05)


def refused(voter: Voter) -> dict[str, int]:
    """The voter's refusals by status and problem code (an assertion's message: which
    refusal kept the game from moving)."""
    counts: Counter[str] = Counter()
    for answer in voter.refusals:
        try:
            code = answer.json().get("code", "")
        except ValueError:
            code = ""
        counts[f"{answer.status_code} {code}".strip()] += 1
    return dict(counts)


def check_nothing_lost(http: httpx.Client, voter: Voter, games: list[str]) -> None:
    stored = all_events(http, voter.game["game_id"])
    ids = {e["id"] for e in stored}
    for result in voter.acknowledged:
        assert {e["id"] for e in result["events"]} <= ids
    for game in [voter.game["game_id"], *games]:
        versions = [e["version"] for e in all_events(http, game)]
        assert versions == list(range(1, len(versions) + 1)), game  # one history
