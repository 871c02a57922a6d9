"""A reference bot for Raffe's Bot API (docs/bot-api.md): it follows its account stream,
accepts challenges, optionally queues for quick play, and plays Giraffe Raffe,
Giraffometer and Riff Raff with a simple policy, one thread per game.

    python clients/raffe_bot.py --url http://127.0.0.1:8000 --token=<bot token> \
        [--quickplay giraffometer:2] [--games 3]

Its one dependency is httpx. Streams are new-line delimited JSON; each resumes after a
dropped connection from the last id it had, so nothing is missed."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx

Json = dict[str, Any]


def lines(http: httpx.Client, url: str, params: Json) -> Iterator[Json]:
    """A stream's frames, reconnecting (after the last id) whenever it drops."""
    while True:
        try:
            with http.stream("GET", url, params=params, timeout=httpx.Timeout(10, read=60)) as r:
                if r.status_code == 429:  # a limit: wait as long as it says
                    time.sleep(float(r.headers.get("retry-after", "5")))
                    continue
                r.raise_for_status()
                for line in r.iter_lines():
                    if line.strip():
                        frame = json.loads(line)
                        params["after"] = frame["id"] or params.get("after")
                        yield frame
        except httpx.TransportError:
            time.sleep(1)


def giraffe_raffe(view: Json, legal: Json) -> Json | None:
    """Robot ties first; then the first play found on any tree; else an apple back."""
    commands = legal["commands"]
    for c in commands:
        if c["type"] == "choose_robot_play":
            return {"type": "choose_robot_play", "option": 0}
    for c in (c for c in commands if c["type"] == "play" and c["playable"]):
        for cards in c.get("options") or selections(c, view["hand"]):
            return {"type": "play", "tree": c["tree"], "cards": list(cards)}
    return {"type": "return_apple"} if any(c["type"] == "return_apple" for c in commands) else None


def selections(c: Json, hand: list[str]) -> Iterator[tuple[str, ...]]:
    """Card sets that fit a Straight, Color or Free tree (Copies copy the first card)."""
    for cards in itertools.combinations(hand, c["min_cards"]):
        numbered = [x for x in cards if not x.startswith("C")]
        values = sorted(int(x[1:]) for x in numbered)
        if not numbered:
            continue
        if c["kind"] == "straight" and (
            len(numbered) < len(cards) or values != list(range(values[0], values[0] + len(cards)))
        ):
            continue
        if c["kind"] == "color" and len({x[0] for x in numbered}) > 1:
            continue
        yield cards


def giraffometer(view: Json, legal: Json) -> Json | None:
    if any(c["type"] == "vote" for c in legal["commands"]):
        lowest, highest = random.sample(range(1, 7), 2)
        return {"type": "vote", "lowest": lowest, "highest": highest}
    return None


def riff_raff(view: Json, legal: Json) -> Json | None:
    """The lowest card, a piece flat in the middle, catch what it can, accept reports."""
    for c in legal["commands"]:
        kind = c["type"]
        if kind == "choose_card":
            return {"type": kind, "card": min(c["cards"])}
        if kind in ("choose_captain", "order_players"):
            field = "seat" if kind == "choose_captain" else "order"
            return {"type": kind, field: c[field][0] if field == "seat" else c[field]}
        if kind == "load":
            return {"type": kind, "pieces": [{"piece": c["pieces"][0], "position": 0.5}]}
        if kind == "catch":
            return {"type": kind, "pieces": c["fallen"][: c["max"]]}
        if kind in ("report", "accept"):
            return {"type": kind}
        if kind == "settle":  # as the loader reported
            report = (view.get("turn") or {}).get("report") or {}
            return {"type": kind, **{k: report.get(k, []) for k in ("fell", "caught")}}
    return None


POLICIES = {"giraffe-raffe": giraffe_raffe, "giraffometer": giraffometer, "riff-raff": riff_raff}


def play(http: httpx.Client, game_id: str, game: str) -> None:
    """The seat's stream (view and legal commands first, then after each change): a
    command whenever it is this seat's turn, until the game ends."""
    url, params = f"/v1/games/{game_id}/events/stream", {"views": "true", "format": "ndjson"}
    # The version this seat's last accepted command made: a view older than that is
    # still on its way down the stream and would have the seat move twice (refused, and
    # a request of the bot's minute spent).
    made = 0
    for frame in lines(http, url, params):
        if frame["event"] == "GameEnded":
            return
        legal = (frame["data"] or {}).get("commands") if frame["event"] == "view" else None
        if legal and legal.get("to_act") and frame["data"]["version"] >= made:
            command = POLICIES[game](frame["data"]["view"], legal)
            body = {"command": command, "command_id": uuid.uuid4().hex}
            while command is not None:  # sent again (same id) after a limit's wait
                answer = http.post(f"/v1/games/{game_id}/commands", json=body)
                print(game_id, command["type"], answer.status_code, flush=True)
                if answer.status_code == 200:
                    made = answer.json()["version"]
                if answer.status_code != 429:
                    break
                time.sleep(float(answer.headers.get("retry-after", "1")))


def run(url: str, token: str, quickplay: str, games: int) -> None:
    http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    me = http.get("/v1/accounts/me").json()["player_id"]
    playing: dict[str, threading.Thread] = {}

    def queue() -> None:
        if quickplay and len(playing) < games:
            game, seats = quickplay.split(":")
            http.post("/v1/quickplay", json={"game": game, "seats": int(seats)})

    queue()
    for frame in lines(http, "/v1/accounts/me/events", {"format": "ndjson"}):
        data = frame["data"]
        if frame["event"] == "challenge" and data["invitee"] == me and data["state"] == "open":
            answer = "accept" if data["game"] in POLICIES else "decline"
            reason = {"reason": "not_this_game"}
            http.post(f"/v1/challenges/{data['challenge_id']}/{answer}", json=reason)
        elif frame["event"] == "game_start" and data["game_id"] not in playing:
            thread = threading.Thread(target=play, args=(http, data["game_id"], data["game"]))
            playing[data["game_id"]] = thread
            thread.start()
        elif frame["event"] == "game_end":
            playing.pop(data["game_id"], None)
            queue()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    token = os.environ.get("RAFFE_BOT_TOKEN")  # or --token=T (a token may begin with "-")
    parser.add_argument("--token", default=token, required=not token, help="a bot's token")
    parser.add_argument("--quickplay", default="", help="game:seats to queue for, e.g. riff-raff:2")
    parser.add_argument("--games", type=int, default=1, help="quick-play games at once")
    args = parser.parse_args()
    run(args.url, args.token, args.quickplay, args.games)
