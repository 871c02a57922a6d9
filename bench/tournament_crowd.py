"""A tournament of a thousand people at human pace (#28 item 4), across engine replicas
under CPU quotas and two gateways.

    sudo python -m bench.tournament_crowd [--people 1000] [--rounds 2] [--think 2,10]
                                          [--replicas 4] [--core 0.25] [--log FILE]

The organiser creates a Swiss tournament of four-seat Giraffe Raffe tables and registers
--people humans (no bot fills a seat); each person gets a player token. The launcher runs
--replicas of every service but the gateway, a second gateway runs beside the first
(person p uses gateway p % 2, so every table's seats span both), and each engine replica
(the games' and the tournament's) runs under a cgroup v1 quota of --core CPUs, standing
in for a node of its own as in bench.scaleout (root: it writes cgroups).

Each simulated person does what the web client's tournament page does: between games it
holds the tournament's live stream and redraws the page (GET the tournament, then GET
/me) at most every max(1 s, 5 ms per entrant); on a new round it reads /me at once (and
each second while its table's game is not made yet) and redraws the whole page 200 ms
plus a random share of up to 3 ms per entrant (3 s at most) later. When /me shows a
table of a new round ready, the person sees it and clicks after 0.5-3 s (the page's
redraw happens if it falls due first), then holds its seat's stream and plays. A person
thinks for a time drawn uniformly from --think seconds before each move. The moves are
computed beforehand from each table's seed (the bench reads the tournament's seed from
the log, as the runner does; a person would not know it), so the client does no game
logic.

Reported: registration, each round's length and its turnaround (last move of a round to
the first and to the last table of the next one seated, and what the logs' times say:
the result reported, the pairing, every game created), moves and their latency (own
answer; push to the other seats' streams), the tournament page (its size, GET and /me
latency, redraws, tables not ready yet), errors, CPU and memory of every process, and
the client's own CPU. At the end: the tournament is over with every table played, no
acknowledged move is missing from its game's log, the standings served equal a fold of
the tournament's log, and the tournament's own bookkeeping (pairing a round, standings,
a result) timed in process on the run's real state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson

from bench.common import (
    Figure,
    cpu_seconds,
    launch,
    print_table,
    rss_mib,
    service_pids,
    stop_all,
    write_json,
)
from bench.crowd import second_gateway, send
from bench.rawhttp import Conn, SseConn, build
from bench.scaleout import CGROUP, capped
from services.core.codec import loads
from services.core.eventstore import StoredEvent
from services.core.eventstore.connect import open_store
from services.core.gamestate import fold
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.game import ENGINE, SPECTATOR, Event
from services.kernel.playthrough import bot_moves
from services.kernel.rng import SeededRng
from services.tournament import rules
from services.tournament import view as tournament_view
from services.tournament.game import GAME as TOURNAMENT
from services.tournament.ids import table_game_id, table_of, table_seed
from services.tournament.runner import table_options

GAME, SIZE = "giraffe-raffe", 4
IDLE_REDRAW_S = 60.0
Where = tuple[str, int]


@dataclass
class Seen:
    """What the people saw."""

    moves: int = 0
    move_s: list[float] = field(default_factory=list)  # a POST's answer
    push_s: list[float] = field(default_factory=list)  # POST start to another seat's frame
    page_s: list[float] = field(default_factory=list)  # GET /v1/tournaments/{id}
    page_bytes: list[int] = field(default_factory=list)
    me_s: list[float] = field(default_factory=list)  # GET /me
    not_ready: int = 0  # /me showed this round's table before its game existed
    idle_redraws: int = 0  # redrawn after IDLE_REDRAW_S without an event
    errors: dict[str, int] = field(default_factory=dict)
    streams: int = 0
    peak_streams: int = 0
    acked: dict[str, int] = field(default_factory=dict)  # game id -> version acknowledged
    last_move: dict[int, float] = field(default_factory=dict)  # round -> its last move
    seated: dict[int, list[float]] = field(default_factory=dict)  # round -> when tables sat

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def opened(self, n: int = 1) -> None:
        self.streams += n
        self.peak_streams = max(self.peak_streams, self.streams)


class TableGame:
    """One table's game: its four people sit as they find it, then it plays out."""

    def __init__(self, game_id: str, moves: list[tuple[int, int, dict[str, Any]]]):
        self.game_id, self.moves = game_id, moves
        self.round = table_of(game_id)[1]  # type: ignore[index]
        self.seats: dict[int, tuple[str, Where]] = {}
        self.done = asyncio.Event()
        self.arrivals: dict[int, dict[int, float]] = {}
        self.frame = asyncio.Event()

    def sit(
        self, seat: int, token: str, where: Where, seen: Seen, think: tuple[float, float]
    ) -> None:
        self.seats[seat] = (token, where)
        if len(self.seats) == SIZE:
            seen.seated.setdefault(self.round, []).append(time.monotonic())
            asyncio.get_running_loop().create_task(self.play(seen, think))

    async def play(self, seen: Seen, think: tuple[float, float]) -> None:
        streams = []
        try:
            for seat, (token, where) in self.seats.items():
                streams.append(await self._watch(seat, token, where))
            seen.opened(len(streams))
            await self._moves(seen, think)
        except (OSError, asyncio.IncompleteReadError) as error:
            seen.error(f"table: {type(error).__name__}")
        finally:
            for stream in streams:
                stream.close()
            seen.streams -= len(streams)
            seen.last_move[self.round] = time.monotonic()
            self.done.set()

    async def _watch(self, seat: int, token: str, where: Where) -> SseConn:
        def arrived(version: int, at: float) -> None:
            self.arrivals.setdefault(version, {})[seat] = at
            self.frame.set()

        path = f"/v1/games/{self.game_id}/events/stream"
        return await SseConn.open(*where, path, {"Authorization": f"Bearer {token}"}, arrived)

    async def _moves(self, seen: Seen, think: tuple[float, float]) -> None:
        conns: dict[Where, Conn] = {}
        for seat, version, command in self.moves:
            await asyncio.sleep(random.uniform(*think))
            token, where = self.seats[seat]
            if where not in conns:
                conns[where] = await Conn.open(*where)
            body = orjson.dumps({"command": command, "command_id": uuid.uuid4().hex})
            headers = {"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'}
            raw = build("POST", f"/v1/games/{self.game_id}/commands", headers, body)
            started = time.perf_counter()
            status, answer = await send(conns, where, raw)
            if status != 200:
                seen.error(f"move: http {status}")
                break
            seen.move_s.append(time.perf_counter() - started)
            seen.moves += 1
            new = orjson.loads(answer)["version"]
            seen.acked[self.game_id] = new
            await self._pushed(new, seat, started, seen)
        for conn in conns.values():
            conn.close()

    async def _pushed(self, version: int, mover: int, started: float, seen: Seen) -> None:
        others = [s for s in self.seats if s != mover]
        deadline = time.perf_counter() + 5
        while not all(s in self.arrivals.get(version, {}) for s in others):
            self.frame.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(self.frame.wait(), left)
            except TimeoutError:
                break
        got = self.arrivals.pop(version, {})
        for old in [v for v in self.arrivals if v < version]:
            del self.arrivals[old]
        seen.push_s += [got[s] - started for s in others if s in got]
        for _ in [s for s in others if s not in got]:
            seen.error("frame missing after 5 s")


class Person:
    """One entrant: the tournament page between games, a seat at a table during them."""

    def __init__(self, number: int, token: str, where: Where, room: Room) -> None:
        self.number, self.token, self.where, self.room = number, token, where, room
        self.played: set[str] = set()
        self.conns: dict[Where, Conn] = {}
        self.drawn = 0
        self.dirty = asyncio.Event()
        self.urgent = self.new_round = False
        self.page_due: float | None = None  # when the page redraws after a new round
        self.mine_at = -1  # the version my tables were last read at
        self.tables: list[dict[str, Any]] = []  # my tables as last read

    async def attend(self) -> None:
        self.conns[self.where] = await Conn.open(*self.where)
        try:
            while (game := await self.next_table()) is not None:
                game_id, seat, token = game
                table = self.room.tables[game_id]
                table.sit(seat, token, self.where, self.room.seen, self.room.think)
                await table.done.wait()
                self.played.add(game_id)
        finally:
            self.conns[self.where].close()

    async def next_table(self) -> tuple[str, int, str] | None:
        """The tournament page until a new table is ready (None: the tournament is over),
        redrawn as the web client does (gateway/web/tournaments.js)."""
        seen = self.room.seen
        calm = max(1.0, 0.005 * self.room.entrants)
        drawn_at = time.monotonic()
        # The page, then the stream from the version drawn, as the web client does.
        first: tuple[bool, list[dict[str, Any]]] | None = await self.draw()
        path = f"/v1/tournaments/{self.room.tournament_id}/events/stream?after={self.drawn}"
        stream = await TypedSse.open(*self.where, path, {}, self.on_event)
        seen.opened()
        mine_only, self.page_due = False, None
        try:
            while True:
                if first is not None:
                    (over, tables), first = first, None
                elif mine_only:
                    over, tables = False, await self.mine()
                else:
                    over, tables = await self.draw()
                if over:
                    return None
                fresh = [t for t in tables if not t["finished"] and t["game_id"] not in self.played]
                ready = [t for t in fresh if t["ready"]]
                if ready:
                    await self.pause(random.uniform(0.5, 3.0))  # seen, then clicked
                    return ready[0]["game_id"], ready[0]["seat"], ready[0]["token"]
                if fresh:
                    seen.not_ready += 1
                    await self.pause(1.0)
                    mine_only = True
                    continue
                if self.page_due is not None:  # no table for me: the page's redraw
                    await asyncio.sleep(max(0.0, self.page_due - time.monotonic()))
                    self.page_due, mine_only = None, False
                    continue
                try:
                    await asyncio.wait_for(self.dirty.wait(), IDLE_REDRAW_S)
                except TimeoutError:  # a page that missed the end would wait for good
                    seen.idle_redraws += 1
                    drawn_at, mine_only = time.monotonic(), False
                    continue
                if self.new_round:  # my table at once, the whole page a moment later
                    mine_only, self.page_due = True, time.monotonic() + self.spread()
                elif self.urgent:  # the end
                    await asyncio.sleep(self.spread())
                    mine_only = False
                else:
                    await asyncio.sleep(max(0.2, drawn_at + calm - time.monotonic()))
                    mine_only = False
                self.dirty.clear()
                self.urgent = self.new_round = False
                drawn_at = time.monotonic()
        finally:
            stream.close()
            seen.streams -= 1

    def spread(self) -> float:
        return 0.2 + random.uniform(0, min(3.0, 0.003 * self.room.entrants))

    async def pause(self, seconds: float) -> None:
        """Stay on the page this long; the page's redraw happens if it falls due."""
        until = time.monotonic() + seconds
        if self.page_due is not None and self.page_due < until:
            await asyncio.sleep(max(0.0, self.page_due - time.monotonic()))
            self.page_due = None
            await self.draw()
        await asyncio.sleep(max(0.0, until - time.monotonic()))

    def on_event(self, version: int, kind: bytes) -> None:
        self.drawn = max(self.drawn, version)
        self.urgent = self.urgent or kind in (b"RoundStarted", b"GameEnded")
        self.new_round = self.new_round or kind == b"RoundStarted"
        self.dirty.set()

    async def draw(self) -> tuple[bool, list[dict[str, Any]]]:
        """The page's two reads; whether the tournament is over, and my tables."""
        seen, tid = self.room.seen, self.room.tournament_id
        started = time.perf_counter()
        status, page = await self._get(f"/v1/tournaments/{tid}?min_version={self.drawn}", {})
        seen.page_s.append(time.perf_counter() - started)
        seen.page_bytes.append(len(page))
        if status != 200:
            seen.error(f"page: http {status}")
            return False, []
        found = re.search(rb'"version":(\d+)', page)
        self.drawn = max(self.drawn, int(found.group(1)) if found else 0)
        over = b'"over":true' in page
        waiting = any(not t["ready"] and not t["finished"] for t in self.tables)
        if self.mine_at >= self.drawn and not waiting:  # read at this version: not twice
            return over, self.tables
        return over, await self.mine()

    async def mine(self) -> list[dict[str, Any]]:
        """GET /me: my tables."""
        seen, tid, asked = self.room.seen, self.room.tournament_id, self.drawn
        started = time.perf_counter()
        auth = {"Authorization": f"Bearer {self.token}"}
        status, me = await self._get(f"/v1/tournaments/{tid}/me?min_version={self.drawn}", auth)
        seen.me_s.append(time.perf_counter() - started)
        if status != 200:
            seen.error(f"me: http {status}")
            return []
        self.mine_at, self.tables = asked, list(orjson.loads(me)["tables"])
        return self.tables

    async def _get(self, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
        return await send(self.conns, self.where, build("GET", path, headers))


class TypedSse(SseConn):
    """A live stream whose frames are told by version and type."""

    FRAME = re.compile(rb"id: (\d+)\nevent: (\w+)\n")

    def data_received(self, data: bytes) -> None:
        if not self.answered:
            self.answered, self.refused = True, not data.startswith(b"HTTP/1.1 200")
        text = self.tail + data
        end = 0
        for found in self.FRAME.finditer(text):
            self.on_id(int(found.group(1)), found.group(2))
            end = found.end()
        self.tail = text[max(end, len(text) - 64) :]


@dataclass
class Room:
    tournament_id: str
    seed: str
    think: tuple[float, float]
    seen: Seen
    tables: dict[str, TableGame]
    entrants: int


def all_moves(seed: str, rounds: int, tables: int) -> dict[tuple[int, int], list[Any]]:
    """Every table's moves, from the seeds the runner deals them (computed before the
    start, so the client plays without game logic while it is measured)."""
    options = table_options({}, people=True)
    out = {}
    for number in range(1, rounds + 1):
        for table in range(tables):
            moves_seed = table_seed(seed, number, table, duplicate=False)
            out[number, table] = bot_moves(
                GAMES[GAME], SIZE, moves_seed, GAMES[GAME].bot("random"), options
            )
        say(f"  moves of round {number}'s {tables} tables computed")
    return out


async def register(http: httpx.AsyncClient, tid: str, auth: dict[str, str], n: int) -> list[str]:
    tokens: list[str] = [""] * n
    order = iter(range(n))
    refused = 0

    async def worker() -> None:
        nonlocal refused
        for p in order:
            # A command id of its own: sent again after a 503, it is the same entry.
            body = {"name": f"person {p}", "kind": "human", "command_id": f"register-{p}"}
            answer = await http.post(f"/v1/tournaments/{tid}/players", json=body, headers=auth)
            while answer.status_code == 503:  # contended or unavailable: as a client does
                refused += 1
                await asyncio.sleep(float(answer.headers.get("retry-after", 1)))
                answer = await http.post(f"/v1/tournaments/{tid}/players", json=body, headers=auth)
            answer.raise_for_status()
            tokens[answer.json()["player"]] = answer.json()["token"]
            if p % 100 == 99:
                say(f"  {p + 1}/{n} registered")

    await asyncio.gather(*(worker() for _ in range(16)))
    say(f"  registrations answered 503 and sent again: {refused}")
    return tokens


async def run(
    args: argparse.Namespace, urls: list[str], pids: dict[str, int], redis: str
) -> dict[str, Any]:
    gateways = [(u.hostname or "127.0.0.1", u.port or 80) for u in map(urlparse, urls)]
    think = tuple(float(x) for x in args.think.split(","))
    seen = Seen()
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=urls[0], timeout=120) as http:
        options = {
            "name": "a thousand people",
            "games": [GAME],
            "format": "swiss",
            "table_size": SIZE,
            "rounds": args.rounds,
            "max_players": args.people,
        }
        created = (await http.post("/v1/tournaments", json=options)).json()
        tid = created["tournament_id"]
        auth = {"Authorization": f"Bearer {created['organiser_token']}"}
        started = time.monotonic()
        tokens = await register(http, tid, auth, args.people)
        out["registration_s"] = time.monotonic() - started
        say(f"{args.people} registered in {out['registration_s']:.1f} s")
        store = await open_store(StoreSettings.from_env().model_copy(update={"redis_url": redis}))
        seed = loads((await store.read_game_range(tid, 0, 1))[0].payload)["seed"]
        moves = all_moves(seed, args.rounds, args.people // SIZE)
        tables = {
            table_game_id(tid, r, t): TableGame(table_game_id(tid, r, t), m)
            for (r, t), m in moves.items()
        }
        room = Room(tid, seed, think, seen, tables, args.people)  # type: ignore[arg-type]
        people = [
            Person(p, tokens[p], gateways[p % len(gateways)], room) for p in range(args.people)
        ]
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        client_before = resource.getrusage(resource.RUSAGE_SELF)
        began = time.monotonic()
        tasks = [asyncio.create_task(p.attend()) for p in people]
        await asyncio.sleep(2.0)  # everyone is on the page, as an organiser would wait
        (await http.post(f"/v1/tournaments/{tid}/start", headers=auth)).raise_for_status()
        progress = asyncio.create_task(report_progress(seen, tables, args.rounds))
        await asyncio.gather(*tasks, return_exceptions=False)
        progress.cancel()
        seconds = time.monotonic() - began
        client = resource.getrusage(resource.RUSAGE_SELF)
        out["seconds"] = seconds
        out["client_cpu_s"] = (
            client.ru_utime + client.ru_stime - client_before.ru_utime - client_before.ru_stime
        )
        out["cpu_s"] = {n: cpu_seconds(pid) - before[n] for n, pid in pids.items()}
        out["rss_mib"] = {n: rss_mib(pid) for n, pid in pids.items()}
        out["checks"] = await checks(http, store, tid, seen, tables)
        out["bookkeeping"] = await bookkeeping(store, tid)
        await store.redis.aclose()
    out["seen"] = seen
    return out


async def report_progress(seen: Seen, tables: dict[str, TableGame], rounds: int) -> None:
    start = time.monotonic()
    while True:
        await asyncio.sleep(15)
        done = sum(t.done.is_set() for t in tables.values())
        say(
            f"  {time.monotonic() - start:.0f} s: {done}/{len(tables)} games over, "
            f"{seen.moves} moves, {seen.streams} streams open, errors {seen.errors or 0}"
        )


async def checks(
    http: httpx.AsyncClient, store: Any, tid: str, seen: Seen, tables: dict[str, TableGame]
) -> dict[str, Any]:
    """Over, nothing acknowledged lost, standings served == a fold of the log."""
    stored = await store.read_game_range(tid, 0, None)
    state = fold(TOURNAMENT, stored)
    for _ in range(100):  # the projection catches up with the last event
        served = (await http.get(f"/v1/tournaments/{tid}")).json()
        if served["version"] >= stored[-1].version:
            break
        await asyncio.sleep(0.2)
    rebuilt = tournament_view.view(state, SPECTATOR)
    lost = forked = 0
    for game_id, version in seen.acked.items():
        versions = [e.version for e in await store.read_game_range(game_id, 0, None)]
        lost += versions[-1:] < [version]
        forked += versions != list(range(1, len(versions) + 1))
    return {
        "over": served["status"]["over"],
        "games": served["progress"]["games"],
        "games_finished": served["progress"]["finished"],
        "tables_planned": len(tables),
        "served_from": served["source"],
        "standings_equal_rebuild": served["standings"] == rebuilt["standings"],
        "games_checked": len(seen.acked),
        "games_losing_moves": lost,
        "games_forked": forked,
    }


async def bookkeeping(store: Any, tid: str) -> dict[str, Any]:
    """The tournament's own work timed in process on the run's states: pairing each
    later round, the standings, the last result of a round (which pairs the next), and
    what the logs' times say about each turnaround."""
    stored: list[StoredEvent] = await store.read_game_range(tid, 0, None)
    out: dict[str, Any] = {"rounds": []}
    state = TOURNAMENT.initial()
    for i, e in enumerate(stored):
        if e.type == "RoundStarted" and state.rounds:
            rng = SeededRng(state.seed, "bench")
            pairing = timed(partial(rules._round_started, state, rng))
            standings = timed(partial(tournament_view.standings, state))
            whole_view = timed(partial(tournament_view.view, state, SPECTATOR))
            number = len(state.rounds)
            ended = await round_times(store, tid, number, stored[i].time_ms)
            out["rounds"].append(
                {
                    "round": number + 1,
                    "pairing_ms": pairing,
                    "standings_ms": standings,
                    "view_ms": whole_view,
                    "view_bytes": len(orjson.dumps(tournament_view.view(state, SPECTATOR))),
                    **ended,
                }
            )
        if e.type == "TableFinished":
            before = state
            last = stored[i]
            data = loads(last.payload)
            raw = {"type": "result", "round": data["round"], "table": data["table"]}
            command = TOURNAMENT.command({**raw, "keys": data["keys"]})
            decide = partial(rules.decide, before, ENGINE, command, SeededRng("b", "b"))
            out["result_ms"] = timed(decide)
        state = TOURNAMENT.evolve(state, Event(e.type, loads(e.payload), e.actor))
    return out


async def round_times(store: Any, tid: str, number: int, paired_ms: int) -> dict[str, Any]:
    """From the logs: the round's last move, its result at the tournament (the same
    append pairs the next round), and the next round's games created."""
    last_move = created = 0
    for game_id in await table_ids(store, tid, number):
        events = await store.read_game_range(game_id, 0, None)
        last_move = max(last_move, events[-1].time_ms)
    for game_id in await table_ids(store, tid, number + 1):
        first = await store.read_game_range(game_id, 0, 1)
        created = max(created, first[0].time_ms) if first else created
    return {
        "last_move_to_paired_ms": paired_ms - last_move,
        "paired_to_all_created_ms": created - paired_ms,
    }


async def table_ids(store: Any, tid: str, number: int) -> list[str]:
    ids: list[str] = []
    t = 0
    while True:
        game_id = table_game_id(tid, number, t)
        try:
            if not await store.read_game_range(game_id, 0, 1):
                return ids
        except Exception:
            return ids
        ids.append(game_id)
        t += 1


def timed(work: Callable[[], Any], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def figures(out: dict[str, Any], args: argparse.Namespace) -> list[Figure]:
    seen: Seen = out["seen"]
    ms = 1000
    result = [
        Figure("people", args.people, ""),
        Figure("registration (the organiser, 16 at a time)", out["registration_s"], "s"),
        Figure("start to the tournament over", out["seconds"], "s"),
        Figure("moves", seen.moves, ""),
        Figure("moves/s", seen.moves / out["seconds"], "/s"),
        Figure("move answer p50", statistics.median(seen.move_s or [0]) * ms, "ms"),
        Figure("move answer p99", quantile(seen.move_s, 0.99) * ms, "ms"),
        Figure("push to the other seats p50", statistics.median(seen.push_s or [0]) * ms, "ms"),
        Figure("push to the other seats p99", quantile(seen.push_s, 0.99) * ms, "ms"),
        Figure("live streams at most", seen.peak_streams, ""),
        Figure("tournament page GETs", len(seen.page_s), ""),
        Figure("tournament page size (last)", (seen.page_bytes or [0])[-1] / 1024, "KiB"),
        Figure("tournament page GET p50", statistics.median(seen.page_s or [0]) * ms, "ms"),
        Figure("tournament page GET p99", quantile(seen.page_s, 0.99) * ms, "ms"),
        Figure("/me p50", statistics.median(seen.me_s or [0]) * ms, "ms"),
        Figure("/me p99", quantile(seen.me_s, 0.99) * ms, "ms"),
        Figure("/me with the table not ready yet", seen.not_ready, ""),
        Figure(f"redraws after {IDLE_REDRAW_S:g} s without an event", seen.idle_redraws, ""),
        Figure("errors", sum(seen.errors.values()), ""),
        Figure("client CPU", 100 * out["client_cpu_s"] / out["seconds"], "%"),
    ]
    for number in sorted(seen.last_move):
        nxt = seen.seated.get(number + 1)
        if nxt:
            result.append(
                Figure(
                    f"round {number}: last move to a table of the next seated",
                    min(nxt) - seen.last_move[number],
                    "s",
                )
            )
            result.append(
                Figure(
                    f"round {number}: last move to every table of the next seated",
                    max(nxt) - seen.last_move[number],
                    "s",
                )
            )
    for r in out["bookkeeping"]["rounds"]:
        n = r["round"]
        result += [
            Figure(f"round {n}: pairing (in process)", r["pairing_ms"], "ms"),
            Figure(f"round {n}: standings (in process)", r["standings_ms"], "ms"),
            Figure(f"round {n}: whole view (in process)", r["view_ms"], "ms"),
            Figure(f"round {n}: log, last move to paired", r["last_move_to_paired_ms"], "ms"),
            Figure(
                f"round {n}: log, paired to all games made", r["paired_to_all_created_ms"], "ms"
            ),
        ]
    result.append(Figure("a result (in process)", out["bookkeeping"].get("result_ms", 0), "ms"))
    for name, seconds in sorted(out["cpu_s"].items()):
        result.append(Figure(f"CPU {name}", 100 * seconds / out["seconds"], "%"))
    for name, mib in sorted(out["rss_mib"].items()):
        if name.startswith(("gateway", "redis", "tournament", "projection")):
            result.append(Figure(f"RSS {name}", mib, "MiB"))
    for key, value in out["checks"].items():
        if isinstance(value, bool | int):
            result.append(Figure(f"check: {key}", float(value), ""))
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--think", default="2,10")
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--core", type=float, default=0.25, help="CPU per engine replica")
    parser.add_argument("--log", default="", help="where the services' logs go")
    args = parser.parse_args(argv)
    if args.core and (os.geteuid() != 0 or not CGROUP.is_dir()):
        sys.exit("bench.tournament_crowd writes cgroup v1 CPU quotas: run it as root (or --core 0)")
    os.environ.setdefault("RAFFE_MAX_STREAMS", "20000")
    system, text = launch("--replicas", str(args.replicas), log=args.log or None)
    extra: list[subprocess.Popen[Any]] = []
    try:
        gateway = re.search(r"gateway: (http://\S+)", text)
        redis = re.search(r"at (redis://\S+)", text)
        assert gateway and redis, text
        pids = service_pids(text)
        process, url = second_gateway(text, args.log and args.log + ".gateway2")
        extra.append(process)
        pids["gateway #2"] = process.pid
        engines = {k: v for k, v in pids.items() if " engine" in k}
        with capped(engines, args.core) if args.core else _nothing():
            out = asyncio.run(run(args, [gateway.group(1), url], pids, redis.group(1)))
    finally:
        for p in extra:
            p.terminate()
        stop_all([system])
    result = figures(out, args)
    print_table(
        f"a tournament of {args.people} people, {args.replicas} replicas of every engine at "
        f"{args.core} core, 2 gateways",
        result,
    )
    write_json("tournament-crowd", result)
    print(json.dumps({"checks": out["checks"], "errors": out["seen"].errors}))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


if __name__ == "__main__":
    main()
