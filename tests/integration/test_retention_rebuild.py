"""A rebuild after retention has trimmed the logs equals the live read models (#30 item
4): open, running and finished games and tournaments on both sides of the retention
horizon, including an open game and an open tournament idle since before the trim
(a rebuild from the trimmed log alone lost both)."""

from __future__ import annotations

from typing import Any

import pytest

from services.core.eventstore import EventStore
from services.core.runtime import GameRuntime
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import bot_moves
from services.projection import rebuild as rebuild_module
from services.projection.archive import Archiver
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.readmodels import ReadModels
from services.projection.rebuild import rebuild
from services.tournament.game import GAME as TOURNAMENT

PARTITIONS = 4


async def project(store: EventStore, folder: Folder, checkpoints: dict[int, int]) -> None:
    """What the projection does live: each partition's new log entries, folded and saved
    with their checkpoint (generation 1)."""
    models = ReadModels(store)
    for p in range(PARTITIONS):
        events = await store.read_partition(p, checkpoints.get(p, 0), 100_000)
        if events:
            touched = await fold_batch(folder, events)
            games = [model(g, f) for g, f in touched.items()]
            await models.save(1, p, "-", events[-1].position, games)
            checkpoints[p] = events[-1].position


class Tables:
    """Games of every kind and state, made through the engine runtime."""

    def __init__(self, store: EventStore) -> None:
        self.runtimes = {name: GameRuntime(GAMES[name], store) for name in GAMES}
        self.tournaments = GameRuntime(TOURNAMENT, store)

    async def open_game(self, game_id: str) -> None:
        seats = [SeatSpec("human"), SeatSpec("open")]
        await self.runtimes["giraffe-raffe"].create(seats, {}, game_id=game_id)

    async def played(self, game: str, game_id: str, moves: int | None) -> None:
        """A practice game of two seats, played ``moves`` moves in (None: to the end)."""
        runtime = self.runtimes[game]
        await runtime.create([SeatSpec("human")] * 2, {}, game_id=game_id, seed=game_id)
        plan = bot_moves(GAMES[game], 2, game_id, GAMES[game].bot(""))
        for seat, version, command in plan[:moves]:
            await runtime.execute(
                game_id, seat, command, command_id=f"{game_id}-{version}", expected_version=version
            )

    async def more(self, game: str, game_id: str, count: int) -> None:
        """``count`` more moves of a game ``played`` part of the way."""
        plan = bot_moves(GAMES[game], 2, game_id, GAMES[game].bot(""))
        version = (await self.runtimes[game].view(game_id, -1))[0]
        for seat, at, command in [m for m in plan if m[1] >= version][:count]:
            await self.runtimes[game].execute(
                game_id, seat, command, command_id=f"{game_id}-{at}", expected_version=at
            )

    async def tournament(self, tid: str, started: bool) -> None:
        await self.tournaments.create([SeatSpec("human")], {"games": ["giraffometer"]}, game_id=tid)
        for n in range(3 if started else 1):
            command = {"type": "register", "name": f"bot{n}", "kind": "bot"}
            await self.tournaments.execute(tid, 0, command, command_id=f"{tid}-r{n}")
        if started:
            await self.tournaments.execute(tid, 0, {"type": "start"}, command_id=f"{tid}-s")


async def read_models(store: EventStore, gen: int) -> dict[str, Any]:
    """Every game's read model and every lobby entry of generation ``gen``."""
    out: dict[str, Any] = {}
    pattern = f"{store.settings.key_prefix}:{{p:*}}:rm:{gen}:*"
    async for raw in store.redis.scan_iter(match=pattern):
        key = raw.decode()
        name = key.split(f":rm:{gen}:", 1)[1]
        if name.startswith("game:"):
            out[name] = await store.redis.hgetall(key)
        elif name.startswith("lobby"):
            out[f"{key.split(':rm:')[0]}:{name}"] = await store.redis.zrange(
                key, 0, -1, withscores=True
            )
    return out


async def test_a_rebuild_after_trimming_equals_the_live_read_models(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two kept games a save: the kept games of a partition span several saves (a second
    # save at the same checkpoint used to be refused as stale, its games lost).
    monkeypatch.setattr(rebuild_module, "TRIMMED_BATCH", 2)
    store = EventStore(store.redis, store.settings.model_copy(update={"partitions": PARTITIONS}))
    tables, folder, checkpoints = Tables(store), Folder(store), dict[int, int]()
    # Before the horizon: an idle open game, an idle open tournament, a running one, a
    # game that goes on after the horizon, and finished games (archived at the horizon).
    await tables.open_game("old-open")
    await tables.tournament("old-tournament-open", started=False)
    await tables.tournament("old-tournament-running", started=True)
    await tables.played("giraffometer", "old-running", moves=4)
    await tables.played("giraffe-raffe", "old-finished", moves=None)
    await tables.played("giraffometer", "old-finished-2", moves=None)
    await project(store, folder, checkpoints)
    archived = await Archiver(store, retain_s=0).run(dict(checkpoints), gen=1)
    assert archived == 2
    assert [await store.read_partition(p, 0, 10) for p in range(PARTITIONS)] == [[]] * PARTITIONS
    # After it: the old running game moves on; new games of every state.
    await tables.more("giraffometer", "old-running", 3)
    await tables.open_game("new-open")
    await tables.tournament("new-tournament-open", started=False)
    await tables.played("riff-raff", "new-running", moves=3)
    await tables.played("giraffometer", "new-finished", moves=None)
    await project(store, folder, checkpoints)
    live = await read_models(store, 1)
    games = {name.removeprefix("game:") for name in live if name.startswith("game:")}
    assert games == {
        "old-open",
        "old-tournament-open",
        "old-tournament-running",
        "old-running",
        "new-open",
        "new-tournament-open",
        "new-running",
        "new-finished",
    }

    assert await rebuild(store) == 2

    rebuilt = await read_models(store, 2)
    assert sorted(rebuilt) == sorted(live)
    for name, value in live.items():
        assert rebuilt[name] == value, name
