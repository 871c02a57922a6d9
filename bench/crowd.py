"""Thousands of people at once, at human pace (#28 items 1-2): connections and fan-out,
not moves per second.

    python -m bench.crowd [--levels 100,250,500,1000] [--hold 45] [--gateways N]
                          [--think 2,20] [--spectators 1] [--affinity] [--gateway-core C]

Tables of four simulated people playing Giraffe Raffe (seeded practice games whose moves
are computed beforehand, so the client does no game logic), each person thinking for a
time drawn uniformly from --think seconds before a move; every seat holds its live
stream for the whole game, and --spectators more streams watch each table. The number of
tables ramps through --levels (tables already playing go on), each level held --hold
seconds. With --gateways N, N - 1 more gateways run beside the launcher's and a table's
seats are spread over them (a move is pushed across gateways by Redis pub/sub), or with
--affinity where the production ingress sends them: each request hashed by its path
(decision 59), so all of a table's streams are on one gateway. --gateway-core puts each
gateway under a cgroup v1 CPU quota, a node of its own as in bench.scaleout (root).

--baseline measures the streams alone: the commands go through a gateway of their own,
and every viewer also holds a stream of the same game on the minimal SSE server
(bench.sse_baseline), so each level prints the stream gateways' CPU a delivery against
the minimal server's, and the CPU of a move with every seat watching against the same
moves' path without the stream gateways.

Per level: live streams open, moves/s, push latency p50/p99 (a move's POST start to its
frame on every other seat's and every spectator's stream), errors (refused moves,
frames missing after 5 s, streams dropped), RSS and CPU of every process and Redis, and
the client's own CPU (bench.rawhttp: a small fraction of the servers'). The ratio
column compares each level with the first. Targets (#28): 5,000 streams (1,000 tables
plus 1,000 spectators) with push p99 <= 250 ms and no error.
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
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import httpx
from redis import Redis as SyncRedis

from bench.common import (
    LAUNCH_ENV,
    Figure,
    against,
    cpu_seconds,
    launch,
    print_table,
    rss_mib,
    service_pids,
    stop_all,
    write_json,
)
from bench.rawhttp import Conn, SseConn, build
from bench.scaleout import capped
from bench.sse_baseline import start_baseline
from services.core.local_redis import free_port
from services.games import GAMES
from services.kernel.playthrough import bot_moves
from services.records.verify import verify

GAME, SEATS = "giraffe-raffe", 4


@dataclass
class Tally:
    """What the crowd saw, since the last reset (one level)."""

    moves: int = 0
    push: list[float] = field(default_factory=list)
    base_push: list[float] = field(default_factory=list)  # the same moves on the baseline
    errors: dict[str, int] = field(default_factory=dict)
    streams: int = 0  # open now (not reset)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def reset(self) -> None:
        self.moves, self.push, self.base_push, self.errors = 0, [], [], {}


@dataclass(frozen=True)
class Apart:
    """For measuring the streams alone (--baseline): the commands through a gateway of
    their own, and every viewer on the minimal SSE server too (bench.sse_baseline)."""

    commands: tuple[str, int] | None = None
    baseline: tuple[str, int] | None = None


class Table:
    """One game: four people (each on a gateway) and its spectators, all on streams."""

    def __init__(
        self,
        gateways: list[tuple[str, int]],
        index: int,
        think: tuple[float, float],
        affinity: bool = False,
        apart: Apart | None = None,
    ):
        self.gateways, self.index, self.think = gateways, index, think
        self.affinity = affinity
        self.apart = apart or Apart()
        self.arrivals: dict[int, dict[str, float]] = {}
        self.base_arrivals: dict[int, dict[str, float]] = {}
        self.base_streams: list[SseConn] = []
        self.acked: dict[str, int] = {}  # game id -> highest version acknowledged
        self.finished: list[tuple[str, float]] = []  # game id, when its last move was
        self.streams: list[SseConn] = []
        self.watchers: list[str] = []
        self.frame = asyncio.Event()

    def gateway_of(self, who: int, path: str) -> tuple[str, int]:
        """Seats spread over the gateways, or with affinity where the production
        ingress sends ``path``: hashed by the path alone (decision 59), so every stream
        of a table lands on one gateway."""
        if self.affinity:
            return self.gateways[zlib.crc32(path.encode()) % len(self.gateways)]
        return self.gateways[(self.index + who) % len(self.gateways)]

    async def create(self, http: httpx.AsyncClient, tally: Tally) -> None:
        self.seed = f"crowd-{self.index}-{uuid.uuid4().hex[:8]}"
        body = {
            "game": GAME,
            "seats": [{"kind": "human"}] * SEATS,
            "seed": self.seed,
            "practice": True,
        }
        answer = await http.post("/v1/games", json=body)
        while answer.status_code == 503:  # a gateway past its deadline: counted, sent again
            tally.error("create 503")
            await asyncio.sleep(float(answer.headers.get("retry-after", 1)))
            answer = await http.post("/v1/games", json=body)
        answer.raise_for_status()
        created = answer.json()
        self.game_id, self.tokens, self.version = (
            created["game_id"],
            created["tokens"],
            created["version"],
        )
        self.moves = bot_moves(GAMES[GAME], SEATS, self.seed, GAMES[GAME].bot("random"))

    async def watch(self, spectators: int, tally: Tally) -> None:
        path = f"/v1/games/{self.game_id}/events/stream?after={self.version}"
        viewers = [(str(s), {"Authorization": f"Bearer {t}"}) for s, t in self.tokens.items()]
        viewers += [(f"spectator{i}", {}) for i in range(spectators)]
        for n, (who, headers) in enumerate(viewers):

            def arrived(version: int, at: float, who: str = who) -> None:
                self.arrivals.setdefault(version, {})[who] = at
                self.frame.set()

            host, port = self.gateway_of(n, path.partition("?")[0])
            self.streams.append(await SseConn.open(host, port, path, headers, arrived))
            self.watchers.append(who)
            tally.streams += 1
            if self.apart.baseline is not None:  # the same viewer on the minimal server
                await self.watch_baseline(who)

    async def watch_baseline(self, who: str) -> None:
        def arrived(version: int, at: float) -> None:
            self.base_arrivals.setdefault(version, {})[who] = at
            self.frame.set()

        assert self.apart.baseline is not None
        path = f"/games/{self.game_id}/events"
        self.base_streams.append(await SseConn.open(*self.apart.baseline, path, {}, arrived))

    async def play(
        self, http: httpx.AsyncClient, spectators: int, tally: Tally, stop: asyncio.Event
    ) -> None:
        """Game after game at this table (a game of four lasts a few minutes at this
        pace): the finished game's streams close, the next game's open."""
        while not stop.is_set():
            played_out = await self.play_one(tally, stop)
            if stop.is_set():
                return
            self.close(tally, finished=True)
            if played_out:  # over (a refused move abandons a game unfinished)
                self.finished.append((self.game_id, time.monotonic()))
            while not stop.is_set():  # a refused or timed-out creation: counted, again
                try:
                    await self.create(http, tally)
                    await self.watch(spectators, tally)
                    break
                except (httpx.HTTPError, OSError, KeyError, ValueError) as error:
                    tally.error(f"next game: {type(error).__name__}")
                    self.close(tally, finished=True)
                    await asyncio.sleep(1.0)

    async def play_one(self, tally: Tally, stop: asyncio.Event) -> bool:
        """The game's moves; whether every one was played (the game is over)."""
        conns, played = {}, 0
        for seat, version, command in self.moves:
            if stop.is_set():
                break
            await asyncio.sleep(random.uniform(*self.think))
            path = f"/v1/games/{self.game_id}/commands"
            where = self.apart.commands or self.gateway_of(seat, path)  # a connection per
            # gateway, not per seat:
            if where not in conns:  # the client's descriptors go to streams
                conns[where] = await Conn.open(*where)
            body = json.dumps({"command": command, "command_id": uuid.uuid4().hex}).encode()
            headers = {
                "Authorization": f"Bearer {self.tokens[str(seat)]}",
                "If-Match": f'"{version}"',
            }
            raw = build("POST", path, headers, body)
            started = time.perf_counter()
            try:
                status, answer = await send(conns, where, raw)
            except (OSError, asyncio.IncompleteReadError):
                tally.error("connection")
                break
            if status != 200:
                tally.error(f"http {status}")
                break
            tally.moves += 1
            played += 1
            new = json.loads(answer)["version"]
            self.acked[self.game_id] = new
            await self.pushed(new, str(seat), started, tally)
        for conn in conns.values():
            conn.close()
        return played == len(self.moves)

    async def pushed(self, version: int, mover: str, started: float, tally: Tally) -> None:
        others = [w for w in self.watchers if w != mover]
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            seen = self.arrivals.get(version, {})
            base = self.base_arrivals.get(version, {}) if self.base_streams else seen
            if all(w in seen and w in base for w in others):
                break
            self.frame.clear()
            try:
                await asyncio.wait_for(self.frame.wait(), deadline - time.perf_counter())
            except TimeoutError:
                break
        seen = self.arrivals.pop(version, {})
        for old in [v for v in self.arrivals if v < version]:
            del self.arrivals[old]
        tally.push += [seen[w] - started for w in others if w in seen]
        base = self.base_arrivals.pop(version, {})
        for old in [v for v in self.base_arrivals if v < version]:
            del self.base_arrivals[old]
        tally.base_push += [base[w] - started for w in others if w in base]
        for w in [w for w in others if w not in seen]:
            stream = self.streams[self.watchers.index(w)]
            tally.error("stream refused" if stream.refused else "frame missing after 5 s")

    def close(self, tally: Tally, finished: bool = False) -> None:
        for stream in self.base_streams:
            stream.close()
        self.base_streams, self.base_arrivals = [], {}
        for stream in self.streams:
            dropped = stream.transport is None and not finished
            stream.close()
            tally.streams -= 1
            if dropped:
                tally.error("stream dropped")
        self.streams, self.watchers, self.arrivals = [], [], {}


async def send(conns: dict[Any, Conn], where: Any, raw: bytes) -> tuple[int, bytes]:
    """The answer; sent again once on a fresh connection if the server closed an idle
    keep-alive one as it was written (uvicorn closes them after 5 s, and people think
    longer), as browsers do: the command id makes the resend safe."""
    try:
        return await conns[where].request(raw)
    except (OSError, asyncio.IncompleteReadError):
        conns[where].close()
        conns[where] = await Conn.open(*where)
        return await conns[where].request(raw)


def second_gateway(
    launched: str, log: str = "", cwd: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A gateway beside the launcher's, on the same Redis and engines (its log to
    ``log``, if given; ``cwd``: another checkout's code)."""
    redis = re.search(r"at (redis://\S+)", launched)
    engines: dict[str, list[str]] = {}  # replicas as one "a+b" target, as the launcher does
    for name, address in re.findall(r"([a-z-]+) engine(?: #\d+)? at (\S+)", launched):
        engines.setdefault(name, []).append(address)
    projection = re.search(r"projection(?: #\d+)? at (\S+)", launched)
    assert redis and projection
    port = free_port()
    env = {
        **os.environ,
        **LAUNCH_ENV,
        "RAFFE_REDIS_URL": redis.group(1),
        "RAFFE_PORT": str(port),
        "RAFFE_METRICS_PORT": str(free_port()),
        "RAFFE_PROJECTION": projection.group(1),
        "RAFFE_ENGINES": ",".join(f"{k}={'+'.join(v)}" for k, v in engines.items()),
    }
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - the child's
    process = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, stderr=out, cwd=cwd)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(url + "/healthz", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.1)
    return process, url


def usage(pids: dict[str, int], before: dict[str, float], seconds: float) -> dict[str, Any]:
    return {
        name: {
            "rss_mib": rss_mib(pid),
            "cpu_pct": 100 * (cpu_seconds(pid) - before[name]) / seconds,
        }
        for name, pid in pids.items()
    }


async def crowd(
    args: argparse.Namespace,
    urls: list[str],
    pids: dict[str, int],
    redis_url: str,
    apart: Apart | None = None,
) -> list[dict[str, Any]]:
    gateways = [(u.hostname or "127.0.0.1", u.port or 80) for u in map(urlparse, urls)]
    think = tuple(float(x) for x in args.think.split(","))
    tally, stop = Tally(), asyncio.Event()
    tables: list[Table] = []
    players: list[asyncio.Task[None]] = []
    levels = []
    # New games through the commands' gateway when it is apart: the stream gateways'
    # CPU is then the streams' alone.
    made = urls[0]
    if apart and apart.commands:
        made = "http://{}:{}".format(*apart.commands)
    async with httpx.AsyncClient(base_url=made, timeout=60) as http:
        for level in [int(x) for x in args.levels.split(",")]:
            started = time.monotonic()
            while len(tables) < level:
                table = Table(gateways, len(tables), think, args.affinity, apart)  # type: ignore[arg-type]
                await table.create(http, tally)
                await table.watch(args.spectators, tally)
                tables.append(table)
                players.append(asyncio.create_task(table.play(http, args.spectators, tally, stop)))
                if len(tables) % 50 == 0:
                    say(f"  {len(tables)}/{level} tables seated, {tally.streams} streams")
            say(f"level {level}: seated in {time.monotonic() - started:.1f} s")
            await asyncio.sleep(min(5.0, args.hold / 4))  # the ramp's own moves settle
            if args.soak:
                levels += await soak(args, http, tables, tally, pids, redis_url)
            else:
                levels.append({"tables": level, **await measure(args.hold, tally, pids)})
                say(json.dumps(levels[-1]))
        stop.set()
        for task in players:
            task.cancel()
        for table in tables:
            table.close(tally)
        if args.soak:
            levels.append(await nothing_lost(http, tables))
    return levels


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def measure(seconds: float, tally: Tally, pids: dict[str, int]) -> dict[str, Any]:
    """What the crowd saw and the processes spent over ``seconds`` from now."""
    tally.reset()
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    client_before = resource.getrusage(resource.RUSAGE_SELF)
    held = time.monotonic()
    await asyncio.sleep(seconds)
    seconds = time.monotonic() - held
    client = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = client.ru_utime + client.ru_stime - client_before.ru_utime - client_before.ru_stime
    ordered = sorted(tally.push) or [0.0]
    base = sorted(tally.base_push) or [0.0]
    return {
        "seconds": seconds,
        "base_push_p50_ms": statistics.median(base) * 1000,
        "base_push_p99_ms": base[max(0, int(len(base) * 0.99) - 1)] * 1000,
        "base_pushes": len(tally.base_push),
        "streams": tally.streams,
        "moves_per_s": tally.moves / seconds,
        "moves": tally.moves,
        "push_p50_ms": statistics.median(ordered) * 1000,
        "push_p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000,
        "pushes": len(tally.push),
        "errors": dict(tally.errors),
        "client_cpu_pct": 100 * client_cpu / seconds,
        "processes": usage(pids, before, seconds),
    }


async def soak(
    args: argparse.Namespace,
    http: httpx.AsyncClient,
    tables: list[Table],
    tally: Tally,
    pids: dict[str, int],
    redis_url: str,
) -> list[dict[str, Any]]:
    """One sample a minute for --soak minutes: the figures of a level, Redis's memory,
    and a finished game that retention has archived by now, whose record must re-play
    exactly (services.records.verify) from the archive."""
    samples = []
    redis = SyncRedis.from_url(redis_url)
    started = time.monotonic()
    for minute in range(int(args.soak)):
        sample = await measure(60.0, tally, pids)
        sample["minute"] = minute + 1
        sample["redis_used_mib"] = int(redis.info("memory")["used_memory"]) / 2**20
        sample["archived_verified"] = await verify_archived(
            http, tables, args.retain, args.archive_ttl
        )
        samples.append(sample)
        gateway = sample["processes"]["gateway"]["rss_mib"]
        say(
            f"minute {minute + 1}/{int(args.soak)} ({time.monotonic() - started:.0f} s): "
            f"{sample['streams']} streams, {sample['moves_per_s']:.1f} moves/s, push p99 "
            f"{sample['push_p99_ms']:.0f} ms, errors {sample['errors'] or 0}, gateway "
            f"{gateway:.0f} MiB, redis {sample['redis_used_mib']:.0f} MiB, archived games "
            f"re-played {sample['archived_verified']}"
        )
    return samples


async def verify_archived(
    http: httpx.AsyncClient, tables: list[Table], retain: float, ttl: float
) -> int:
    """Records of up to three games finished long enough ago to be archived, re-played
    through the engines' code: the count that matched (a mismatch raises)."""
    now = time.monotonic()  # archived by now (the projection archives every 30 s), and
    latest = retain + min(300.0, ttl - 30)  # past the archive's TTL a game is gone whole
    due = [g for t in tables for g, at in t.finished if retain + 45 < now - at < latest]
    verified = 0
    for game_id in random.sample(due, min(3, len(due))):  # before the archive's TTL
        answer = await http.get(f"/v1/games/{game_id}/record")
        if answer.status_code != 200:
            raise AssertionError(f"record of archived game {game_id}: {answer.status_code}")
        verify(answer.json(), GAMES)
        verified += 1
    return verified


async def nothing_lost(http: httpx.AsyncClient, tables: list[Table]) -> dict[str, Any]:
    """Every acknowledged move is in its game's log, every log one unbroken history
    (read back through the API: archived games from their archives)."""
    lost = forked = games = 0
    for table in tables:
        for game_id, version in table.acked.items():
            events: list[dict[str, Any]] = []
            while True:
                page = await http.get(f"/v1/games/{game_id}/events", params={"after": len(events)})
                if page.status_code != 200 or not page.json()["events"]:
                    break
                events += page.json()["events"]
            versions = [e["version"] for e in events]
            if not versions:  # deleted whole by the archive's TTL (retention), not lost
                continue
            lost += versions[-1:] < [version]
            forked += versions != list(range(1, len(versions) + 1))
            games += 1
    say(f"checked {games} games: {lost} with acknowledged moves missing, {forked} forked")
    return {"games_checked": games, "games_losing_moves": lost, "games_forked": forked}


def against_baseline(level: dict[str, Any]) -> list[Figure]:
    """--baseline: the stream gateways against the minimal SSE server serving the same
    viewers the same moves (a delivery: one move's frames to one other viewer), and the
    CPU of a move with every seat watching against the same move's without the streams
    (every process but the stream gateways and the baseline: the commands' path)."""
    t, cpu = level["tables"], level["processes"]
    streams = sum(v["cpu_pct"] for k, v in cpu.items() if k.startswith("gateway"))
    base = cpu["sse baseline"]["cpu_pct"]
    per = 10 * level["seconds"]  # percent of a core over the level -> ms
    path = sum(v["cpu_pct"] for k, v in cpu.items() if k != "sse baseline")
    path -= streams
    moves = max(level["moves"], 1)
    return [
        against(
            f"{t} tables: stream gateways' CPU a delivery",
            1000 * streams * per / max(level["pushes"], 1),
            "us",
            "the minimal SSE server",
            1000 * base * per / max(level["base_pushes"], 1),
        ),
        against(
            f"{t} tables: CPU a move, every seat watching",
            (path + streams) * per / moves,
            "ms",
            "the commands' path alone",
            path * per / moves,
        ),
        against(
            f"{t} tables: push p50 against the minimal server",
            level["push_p50_ms"],
            "ms",
            "the minimal SSE server",
            level["base_push_p50_ms"],
        ),
        against(
            f"{t} tables: push p99 against the minimal server",
            level["push_p99_ms"],
            "ms",
            "the minimal SSE server",
            level["base_push_p99_ms"],
        ),
    ]


def figures(levels: list[dict[str, Any]]) -> list[Figure]:
    levels = [level for level in levels if "tables" in level]
    if not levels:
        return []
    first = levels[0]
    out = []
    for level in levels:
        t = level["tables"]
        out.append(
            against(
                f"{t} tables: live streams", level["streams"], "", "first level", first["streams"]
            )
        )
        out.append(
            against(
                f"{t} tables: moves/s",
                level["moves_per_s"],
                "/s",
                "first level",
                first["moves_per_s"],
            )
        )
        for q in ("p50", "p99"):
            out.append(
                against(
                    f"{t} tables: push {q}",
                    level[f"push_{q}_ms"],
                    "ms",
                    "first level",
                    first[f"push_{q}_ms"],
                )
            )
        if level.get("base_pushes"):
            out += against_baseline(level)
        out.append(Figure(f"{t} tables: errors", sum(level["errors"].values()), ""))
        out.append(Figure(f"{t} tables: client CPU", level["client_cpu_pct"], "%"))
        for name, used in level["processes"].items():
            if name.startswith(("gateway", "redis", "giraffe-raffe")):
                out.append(Figure(f"{t} tables: {name} CPU", used["cpu_pct"], "%"))
                out.append(Figure(f"{t} tables: {name} RSS", used["rss_mib"], "MiB"))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--levels", default="100,250,500,1000")
    parser.add_argument("--hold", type=float, default=45.0)
    parser.add_argument("--think", default="2,20")
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--gateways", type=int, default=1, help="gateways (1 is the launcher's)")
    parser.add_argument("--soak", type=float, default=0, help="minutes at the (one) level")
    parser.add_argument("--retain", type=float, default=60, help="soak: RAFFE_RETAIN_FINISHED_S")
    parser.add_argument("--archive-ttl", type=float, default=600, help="soak: RAFFE_ARCHIVE_TTL_S")
    parser.add_argument("--chart", default="", help="soak: memory over time, as a PNG")
    parser.add_argument("--log", default="", help="where the services' logs go")
    parser.add_argument("--affinity", action="store_true", help="a table on one gateway")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="commands through a gateway of their own, every viewer on the minimal SSE server too",
    )
    parser.add_argument(
        "--gateway-core", type=float, default=0, help="CPU quota per gateway (root: cgroups)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("RAFFE_MAX_STREAMS", "20000")
    if args.soak:
        os.environ["RAFFE_RETAIN_FINISHED_S"] = str(int(args.retain))
        os.environ["RAFFE_ARCHIVE_TTL_S"] = str(int(args.archive_ttl))
    system, text = launch(log=args.log or None)
    extra: list[subprocess.Popen[Any]] = []
    try:
        gateway = re.search(r"gateway: (http://\S+)", text)
        redis = re.search(r"at (redis://\S+)", text)
        assert gateway and redis, text
        urls, pids = [gateway.group(1)], service_pids(text)
        for n in range(2, args.gateways + 1):
            process, url = second_gateway(text, args.log and f"{args.log}.gateway{n}")
            extra.append(process)
            urls.append(url)
            pids[f"gateway #{n}"] = process.pid
        apart = None
        if args.baseline:
            apart = apart_from_streams(text, redis.group(1), extra, pids)
        gateways = {k: v for k, v in pids.items() if k.startswith("gateway")}
        with capped(gateways, args.gateway_core) if args.gateway_core else nullcontext():
            levels = asyncio.run(crowd(args, urls, pids, redis.group(1), apart))
    finally:
        for process in extra:
            process.terminate()
        stop_all([system])
    if args.soak:
        report_soak(levels, args.chart)
    else:
        result = figures(levels)
        how = f"{args.gateways} gateway(s)" + (", tables on one" if args.affinity else "")
        how += f", {args.gateway_core} core each" if args.gateway_core else ""
        print_table(f"a crowd at human pace ({how})", result)
        write_json(f"crowd-{args.gateways}gw", result)
    print(json.dumps(levels))


def apart_from_streams(
    launched: str, redis_url: str, extra: list[subprocess.Popen[Any]], pids: dict[str, int]
) -> Apart:
    """--baseline: a gateway for the commands alone and the minimal SSE server, both
    started here (and stopped with ``extra``)."""
    process, url = second_gateway(launched)
    extra.append(process)
    pids["commands gateway"] = process.pid
    server, port = start_baseline(redis_url, float(os.environ.get("RAFFE_SSE_HEARTBEAT_S", 15)))
    extra.append(server)
    pids["sse baseline"] = server.pid
    parsed = urlparse(url)
    return Apart((parsed.hostname or "127.0.0.1", parsed.port or 80), ("127.0.0.1", port))


def report_soak(samples: list[dict[str, Any]], chart: str) -> None:
    """Drift of every process's RSS and of Redis's memory: the mean of the last third of
    the minutes against the middle third (the first third is warm-up)."""
    minutes = [s for s in samples if "minute" in s]
    third = max(1, len(minutes) // 3)
    middle, last = minutes[third : 2 * third], minutes[-third:]
    series = {
        name: [s["processes"][name]["rss_mib"] for s in minutes] for name in minutes[0]["processes"]
    }
    series["redis used memory"] = [s["redis_used_mib"] for s in minutes]
    out = []
    for name, values in series.items():
        mid = statistics.mean(values[third : 2 * third]) if middle else values[0]
        end = statistics.mean(values[-third:]) if last else values[-1]
        out.append(against(f"{name} (MiB, last third)", end, "MiB", "middle third", mid))
    errors = sum(sum(s["errors"].values()) for s in minutes)
    out.append(Figure("errors", errors, ""))
    out.append(Figure("moves", sum(s["moves"] for s in minutes), ""))
    out.append(Figure("archived games re-played", sum(s["archived_verified"] for s in minutes), ""))
    checked = samples[-1]
    out.append(Figure("games losing acknowledged moves", checked["games_losing_moves"], ""))
    out.append(Figure("games forked", checked["games_forked"], ""))
    print_table(f"soak: {len(minutes)} minutes", out)
    write_json("crowd-soak", out)
    if chart:
        draw(series, chart)


def draw(series: dict[str, list[float]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 4.5))
    for name, values in series.items():
        axis.plot(range(1, len(values) + 1), values, label=name)
    axis.set_xlabel("minute")
    axis.set_ylabel("MiB")
    axis.set_title("memory during the soak (RSS per process, Redis used memory)")
    axis.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=90)


if __name__ == "__main__":
    main()
