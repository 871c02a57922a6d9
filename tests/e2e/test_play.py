"""Full games over HTTP: a test seat against bots, bot-only games, replays, rebuilds."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from redis import Redis

from services.core.eventstore import Keys
from services.projection.keys import ReadModelKeys
from tests.e2e.players import auth, create, play_seat
from tests.e2e.system import System, wait_over

GAMES = [
    (
        "riff-raff",
        "careful",
        [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot", "bot_level": "random"}],
    ),
    (
        "giraffe-raffe",
        "heuristic",
        [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot", "bot_level": "random"}],
    ),
    (
        "giraffometer",
        "expert",
        [{"kind": "human"}, {"kind": "bot", "bot_level": "normal"}, {"kind": "bot"}],
    ),
]


@pytest.mark.parametrize(("game", "level", "seats"), GAMES, ids=[g[0] for g in GAMES])
def test_a_seat_played_through_rest_against_bots(
    http: httpx.Client, game: str, level: str, seats: list
) -> None:
    created = create(http, game, seats, options={"target": 4} if game == "giraffometer" else {})
    game_id, token = created["game_id"], created["tokens"]["0"]
    seen = play_seat(http, game, game_id, token, level)
    final = wait_over(http, game_id)
    assert seen and final["view"]["status"]["over"]
    # The replay at every version equals the view the live responses delivered then.
    for version, view in seen.items():
        replay = http.get(
            f"/v1/games/{game_id}/replay", params={"version": version}, headers=auth(token)
        )
        assert replay.status_code == 200
        assert replay.json()["view"] == view, f"version {version}"


@pytest.mark.parametrize("game", ["giraffe-raffe", "giraffometer", "riff-raff"])
def test_a_bot_only_game_ends(http: httpx.Client, game: str) -> None:
    created = create(
        http, game, [{"kind": "bot"}] * 3, options={"target": 3} if game == "giraffometer" else {}
    )
    final = wait_over(http, created["game_id"])
    events = http.get(f"/v1/games/{created['game_id']}/events").json()
    assert [e["version"] for e in events["events"]] == list(range(1, final["version"] + 1))
    assert events["events"][-1]["type"] == "GameEnded"
    assert events["events"][-1]["data"]["seed"]  # public once over
    # The lobby is a read model: it trails the engine by the projection's batch pause.
    for _ in range(100):
        lobby = http.get("/v1/games", params={"game": game, "status": "over"}).json()["games"]
        if created["game_id"] in {g["game_id"] for g in lobby}:
            break
        time.sleep(0.05)
    assert created["game_id"] in {g["game_id"] for g in lobby}


def test_a_rebuild_from_zero_equals_the_live_read_models(
    http: httpx.Client, system: System
) -> None:
    for game in ("giraffe-raffe", "giraffometer"):
        wait_over(http, create(http, game, [{"kind": "bot"}] * 2)["game_id"])
    redis = Redis.from_url(system.redis_url)
    keys = ReadModelKeys(Keys("raffe", 64))
    before = int(redis.get(keys.generation) or 1)
    live = {k: redis.hgetall(k) for k in redis.scan_iter(match=f"raffe:*:rm:{before}:game:*")}
    done = subprocess.run(
        [sys.executable, "-m", "services.projection", "rebuild"],
        env=system.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    after = int(redis.get(keys.generation))
    assert after == before + 1 and "switched" in done.stderr
    assert not list(redis.scan_iter(match=f"raffe:*:rm:{before}:*"))  # the old one is gone
    for key, fields in live.items():
        rebuilt = redis.hgetall(key.replace(f":rm:{before}:".encode(), f":rm:{after}:".encode()))
        if rebuilt.get(b"v") == fields[b"v"]:  # not moved on since
            assert rebuilt == fields, key
    assert live
    # Readers switched too: the old generation is gone, so a view the projection serves
    # now comes from the new one.
    # A gateway re-reads the generation at most once a second and the projection folds
    # a moment after the engine answers, so a bots' game that is over at once may be
    # served by the engine first; the projection serves it soon after, from the new one.
    game_id = create(http, "giraffe-raffe", [{"kind": "bot"}] * 2)["game_id"]
    final = wait_over(http, game_id)
    deadline = time.monotonic() + 10
    while True:
        served = http.get(f"/v1/games/{game_id}", params={"min_version": final["version"]})
        if served.json()["source"] == "projection" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert served.json()["source"] == "projection"
    assert served.json()["version"] == final["version"]
    assert redis.exists(keys.game(after, game_id))


def test_a_command_answers_with_the_authors_view_and_legal_commands(http: httpx.Client) -> None:
    """#17 item 1: a client needs no second read after its own move."""
    game = create(http, "giraffe-raffe", [{"kind": "human"}] * 2, options={"dealer": 0})
    token = game["tokens"]["0"]
    legal = http.get(f"/v1/games/{game['game_id']}/commands", headers=auth(token)).json()
    play = next(c for c in legal["commands"] if c.get("playable") and c.get("options"))
    body = {
        "command": {"type": "play", "tree": play["tree"], "cards": play["options"][0]},
        "command_id": "first",
    }
    done = http.post(f"/v1/games/{game['game_id']}/commands", json=body, headers=auth(token))
    assert done.status_code == 200, done.text
    answer = done.json()
    assert answer["view"]["status"]["to_act"] == [1]
    table = [{"type": "concede"}, {"type": "leave"}]  # what a seat may do at any table
    assert answer["commands"] == {"seat": 0, "to_act": False, "commands": [], "table": table}
    again = http.get(f"/v1/games/{game['game_id']}/commands", headers=auth(token)).json()
    assert {k: v for k, v in again.items() if k != "version"} == answer["commands"]


def _children(pid: int) -> list[str]:
    """The command lines of a process's children (Linux)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                out.append(
                    Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                )
    return out


def test_a_master_bot_plays_a_person_from_the_runners_worker_process(
    http: httpx.Client, system: System
) -> None:
    """#53: the search level is offered by its name for people and plays a whole game
    against a person, deciding in a worker process of the bot runner (off its event loop)."""
    (giraffe,) = [t for t in http.get("/v1/game-types").json() if t["name"] == "giraffe-raffe"]
    names = {level["level"]: level["name"] for level in giraffe["bot_levels"]}
    assert names == {"random": "Beginner", "heuristic": "Intermediate", "search": "Master"}
    assert all(level["about"] for level in giraffe["bot_levels"])
    seats = [{"kind": "human"}, {"kind": "bot", "bot_level": "search"}]
    created = create(http, "giraffe-raffe", seats)
    seen = play_seat(http, "giraffe-raffe", created["game_id"], created["tokens"]["0"], "heuristic")
    final = wait_over(http, created["game_id"])
    assert seen and final["view"]["status"]["over"]
    events = http.get(f"/v1/games/{created['game_id']}/events").json()["events"]
    assert any(e["type"] == "CardsPlayed" and e["actor"] == 1 for e in events)
    bots_pid = system.processes["bot runner"][1]
    assert any("multiprocessing" in c for c in _children(bots_pid))
