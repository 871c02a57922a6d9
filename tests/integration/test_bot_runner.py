"""Bot runners over real engines (gRPC) and Redis: two runners share the work, a crashed
runner's games are finished by the other, and deadlines are enforced (AL-3)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from services.bots.runner import REPLAYED, STUCK, BotRunner
from services.core.eventstore import EventStore, open_store
from services.core.grpc_errors import EngineUnavailable
from services.core.settings import StoreSettings
from services.core.transport import EngineClient, Look
from services.games import GAMES
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.giraffometer.game import GAME as GIRAFFOMETER
from services.kernel.game import SeatSpec
from services.kernel.rng import SeededRng
from tests.engine_fixtures import running_engine


async def wait_over(engine: EngineClient, game_id: str) -> dict:
    async with asyncio.timeout(60):
        while True:
            _, view, status = await engine.view(game_id, -1)
            if status["over"]:
                return view
            await asyncio.sleep(0.05)


async def test_two_runners_finish_bot_games_once_even_when_one_dies(
    redis_url: str, store_settings: StoreSettings
) -> None:
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 4})
    async with AsyncExitStack() as stack:
        gr, _ = await stack.enter_async_context(running_engine(GIRAFFE_RAFFE, settings))
        gm, _ = await stack.enter_async_context(running_engine(GIRAFFOMETER, settings))
        engines = {"giraffe-raffe": gr, "giraffometer": gm}
        store = await open_store(settings)
        runners = [BotRunner(store, engines, ttl_ms=400) for _ in range(2)]
        tasks = [asyncio.create_task(r.run()) for r in runners]
        games = []
        for n in range(6):
            engine = gr if n % 2 == 0 else gm
            options = {} if n % 2 == 0 else {"target": 3}
            created = await engine.create([SeatSpec("bot")] * 3, options, seed=f"runner-{n}")
            games.append((engine, created.game_id))
        await asyncio.sleep(0.3)
        runners[0].stopping.set()  # one runner goes away mid-work
        tasks[0].cancel()
        for engine, game_id in games:
            await wait_over(engine, game_id)
            _, events = await engine.events(game_id, -1)
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            commands = Counter(e["command_id"] for e in events if e["actor"] >= 0)
            moves = {e["command_id"] for e in events if e["command_id"].startswith("bot:")}
            assert moves and len(moves) == len({c for c in commands if c.startswith("bot:")})
        runners[1].stopping.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await store.redis.aclose()


async def test_the_runner_closes_a_round_when_its_timer_runs_out(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """The runner that noted the deadline stops before it passes; the one that takes
    over its partitions knows nothing of it in memory, finds it in Redis and sends it."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 4})
    async with running_engine(GAMES["giraffometer"], settings) as (gm, _):  # at a table
        store = await open_store(settings)
        first = BotRunner(store, {"giraffometer": gm}, ttl_ms=400)
        task = asyncio.create_task(first.run())
        created = await gm.create(
            [SeatSpec("human"), SeatSpec("bot")], {"round_timer": 5}, seed="timer"
        )
        partition = store.partition_of(created.game_id)
        timers = f"{store.keys.tag(partition)}:bots:timers"
        for _ in range(200):  # the first runner notes the round's deadline
            if await store.redis.zscore(timers, created.game_id):
                break
            await asyncio.sleep(0.05)
        assert await store.redis.zscore(timers, created.game_id)
        first.stopping.set()
        await task  # its leases are released: the next runner takes the partitions
        runner = BotRunner(store, {"giraffometer": gm}, ttl_ms=400)
        task = asyncio.create_task(runner.run())
        deadline = time.monotonic() + 15
        revealed = None
        while time.monotonic() < deadline and revealed is None:
            _, events = await gm.events(created.game_id, -1)
            revealed = next((e for e in events if e["type"] == "RoundRevealed"), None)
            await asyncio.sleep(0.2)
        runner.stopping.set()
        await task
        await store.redis.aclose()
    # AL-3 (revised): the timer ran out on seat 0, whose bot voted for it; then the
    # round closed on every vote.
    assert revealed is not None and revealed["data"]["closed_by"] == "votes"
    assert set(revealed["data"]["votes"]) == {"0", "1"}
    ran_out = [e for e in events if e["type"] == "TimeRanOut"]
    assert [e["data"] for e in ran_out] == [{"seat": 0, "clock": "turn"}]


class Looking:
    """The real engine client, noting which games the runner asks about."""

    def __init__(self, engine: EngineClient) -> None:
        self.engine, self.viewed = engine, set[str]()

    def __getattr__(self, name: str) -> object:
        return getattr(self.engine, name)

    async def view(self, game_id: str, seat: int) -> tuple:
        self.viewed.add(game_id)
        return await self.engine.view(game_id, seat)

    async def first_to_act(self, game_id: str, seats: list[int], otherwise: int) -> Look:
        self.viewed.add(game_id)
        return await self.engine.first_to_act(game_id, seats, otherwise)


class Counting(Looking):
    """The real engine client, counting the runner's reads of games by kind."""

    def __init__(self, engine: EngineClient) -> None:
        super().__init__(engine)
        self.calls = Counter[str]()

    async def view(self, game_id: str, seat: int) -> tuple:
        self.calls["view"] += 1
        return await super().view(game_id, seat)

    async def view_and_commands(self, game_id: str, seat: int) -> tuple:
        self.calls["view_and_commands"] += 1
        return await self.engine.view_and_commands(game_id, seat)

    async def first_to_act(self, game_id: str, seats: list[int], otherwise: int) -> Look:
        self.calls["first_to_act"] += 1
        return await super().first_to_act(game_id, seats, otherwise)


async def test_the_runner_leaves_human_games_without_a_clock_alone(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """No engine call per move for games with no bot seat and no timer, and every game
    is forgotten once it ends (the runner's memory stays bounded)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 2})
    async with AsyncExitStack() as stack:
        gr, _ = await stack.enter_async_context(running_engine(GIRAFFE_RAFFE, settings))
        looking = Looking(gr)
        store = await open_store(settings)
        runner = BotRunner(store, {"giraffe-raffe": looking}, ttl_ms=400)  # type: ignore[dict-item]
        task = asyncio.create_task(runner.run())
        humans = (await gr.create([SeatSpec("human")] * 2, {}, seed="humans")).game_id
        bots = (await gr.create([SeatSpec("bot")] * 2, {}, seed="bots")).game_id
        play, rng = GAMES["giraffe-raffe"].bot("random"), SeededRng("humans")
        while not (status := (await gr.view(humans, -1))[2])["over"]:
            seat = status["to_act"][0]
            (_, view, _), (version, legal) = (
                await gr.view(humans, seat),
                await gr.commands(humans, seat),
            )
            await gr.execute(humans, seat, play(view, legal, rng), f"h{version}", version)
        await wait_over(gr, bots)
        for _ in range(200):  # the runner sees GameEnded shortly after
            if not runner.watched:
                break
            await asyncio.sleep(0.05)
        assert runner.watched == {}
        assert bots in looking.viewed and humans not in looking.viewed
        # The human game never reached the runner's stream (services.core.attention).
        followed = set()
        for p in range(settings.partitions):
            entries = await store.redis.xrange(runner.stream_key(p))
            followed |= {f[b"g"].decode() for _, f in entries}
        assert followed == {bots}
        runner.stopping.set()
        await asyncio.gather(task, return_exceptions=True)
        await store.redis.aclose()


async def test_an_answer_can_carry_the_next_seats_view_for_the_runner(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """answer_next: the engine answers with the first seat to act after the command (its
    view and legal commands), so a bot plays on without reading again; a retry gets the
    same answer (the state its original made); a caller that did not ask gets its own."""
    settings = store_settings.model_copy(update={"redis_url": redis_url})
    async with running_engine(GIRAFFOMETER, settings) as (gm, _):
        created = await gm.create([SeatSpec("bot")] * 3, {"target": 3}, seed="next")
        version, _, _, _ = await gm.view_and_commands(created.game_id, 0)
        vote = {"type": "vote", "lowest": 1, "highest": 2}
        done = await gm.execute(created.game_id, 0, vote, "v0", version, answer_next=True)
        assert done.seat == 1 and done.view["seat"] == 1 and done.commands["to_act"]
        again = await gm.execute(created.game_id, 0, vote, "v0", version, answer_next=True)
        assert again.duplicate and (again.seat, again.version) == (1, done.version)
        own = await gm.execute(created.game_id, 1, vote, "v1", done.version)
        assert own.seat == 1 and own.view["seat"] == 1


async def test_a_look_answers_for_the_first_of_the_bot_seats_to_act(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """first_of: one GetView answers for the first of those seats that must act (its
    view and legal commands, and which seat that is), else for the seat asked for."""
    settings = store_settings.model_copy(update={"redis_url": redis_url})
    async with running_engine(GIRAFFOMETER, settings) as (gm, _):
        seats = [SeatSpec("human"), SeatSpec("bot"), SeatSpec("bot")]
        game_id = (await gm.create(seats, {"target": 3}, seed="look")).game_id
        look = await gm.first_to_act(game_id, [1, 2], -1)
        assert look.status["to_act"] == [0, 1, 2]  # a round of votes: everyone
        assert look.seat == 1 and look.view["seat"] == 1 and look.commands["to_act"]
        vote = {"type": "vote", "lowest": 1, "highest": 2}
        for seat in (1, 2):
            version, _, _, _ = await gm.view_and_commands(game_id, seat)
            await gm.execute(game_id, seat, vote, f"v{seat}", version)
        after = await gm.first_to_act(game_id, [1, 2], -1)
        assert after.status["to_act"] == [0] and after.version == version + 1
        assert after.seat == -1 and after.view["seat"] == -1  # the spectator's, as asked
        assert (await gm.first_to_act(game_id, [0], -1)).seat == 0


async def test_a_paced_bot_reads_its_view_after_the_pause_while_others_vote_too(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A look's view is kept for the bot's move only while the bot alone must act: in
    a round of votes a person may vote during the bot's pause, and a move on the view
    from before it would be refused."""
    settings = store_settings.model_copy(update={"redis_url": redis_url})
    async with running_engine(GIRAFFOMETER, settings) as (gm, _):
        store = await open_store(settings)
        seats = [SeatSpec("human"), SeatSpec("bot"), SeatSpec("bot")]
        created = await gm.create(seats, {"target": 3}, seed="paced")
        try:
            paced = BotRunner(store, {"giraffometer": gm}, pace_ms=50)
            watch = await paced._watch(created.game_id)
            _, status, seen = await paced._look(gm, created.game_id, watch)
            assert status["to_act"] == [0, 1, 2] and seen is None
            at_once = BotRunner(store, {"giraffometer": gm})
            _, _, seen = await at_once._look(gm, created.game_id, watch)
            assert seen is not None and seen.seat == 1 and seen.legal["to_act"]
        finally:
            await store.redis.aclose()


async def test_a_bot_turn_after_a_persons_move_reads_the_game_once(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """After a person's move the runner looks at the game once and has its bot's view
    from that look (it read the game, then the bot's view: two calls a bot turn)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 2})
    async with running_engine(GIRAFFE_RAFFE, settings) as (gr, _):
        counting = Counting(gr)
        store = await open_store(settings)
        runner = BotRunner(store, {"giraffe-raffe": counting}, ttl_ms=400)  # type: ignore[dict-item]
        task = asyncio.create_task(runner.run())
        try:
            seats = [SeatSpec("human"), SeatSpec("bot"), SeatSpec("bot")]
            game_id = (await gr.create(seats, {}, seed="person-and-bots")).game_id
            play, rng, moves = GAMES["giraffe-raffe"].bot("random"), SeededRng("person"), 0
            async with asyncio.timeout(60):
                while not (status := (await gr.view(game_id, -1))[2])["over"]:
                    if status["to_act"] != [0]:
                        await asyncio.sleep(0.01)
                        continue
                    version, view, _, legal = await gr.view_and_commands(game_id, 0)
                    await gr.execute(game_id, 0, play(view, legal, rng), f"p{version}", version)
                    moves += 1
        finally:
            runner.stopping.set()
            await asyncio.gather(task, return_exceptions=True)
            await store.redis.aclose()
        assert moves >= 3
        # The bots' views came with the looks: the old runner read one per bot turn.
        assert counting.calls["view_and_commands"] == 0 and counting.calls["view"] == 0
        # A look when a move is heard, and one or two more when the bots' own moves are
        # heard (read in one batch or two, as the log is read).
        assert counting.calls["first_to_act"] <= 3 * moves + 2, (counting.calls, moves)


async def test_the_runner_plays_on_from_each_answer_without_reading_again(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A bots-only game: each move's answer carries the next bot's view, so the runner
    reads a seat's view only when it starts or a move is refused (it read one per move).
    Counted where every such read lands: a look (first_of) and a seat's view alike."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 2})
    async with running_engine(GIRAFFE_RAFFE, settings) as (gr, server):
        reads = 0
        first_to_act = server.runtime.first_to_act

        async def counted(*args: object, **kw: object) -> object:
            nonlocal reads
            reads += 1
            return await first_to_act(*args, **kw)

        server.runtime.first_to_act = counted
        store = await open_store(settings)
        runner = BotRunner(store, {"giraffe-raffe": gr}, ttl_ms=400)
        task = asyncio.create_task(runner.run())
        try:
            created = await gr.create([SeatSpec("bot")] * 3, {}, seed="play-on")
            await wait_over(gr, created.game_id)
        finally:
            runner.stopping.set()
            await asyncio.gather(task, return_exceptions=True)
            await store.redis.aclose()
        _, events = await gr.events(created.game_id, -1)
        moves = {e["command_id"] for e in events if e["command_id"].startswith("bot:")}
        assert len(moves) > 20 and reads < len(moves) / 4, (reads, len(moves))


async def test_bots_keep_a_pace_a_person_can_follow(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """#24 item 5: with a pace (RAFFE_BOT_PACE_MS), each bot move comes at least that
    long after the move before it; at 0 bots play at once (tests, benchmarks)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 2})
    async with running_engine(GIRAFFE_RAFFE, settings) as (gr, _):
        store = await open_store(settings)
        runner = BotRunner(store, {"giraffe-raffe": gr}, ttl_ms=400, pace_ms=150)
        task = asyncio.create_task(runner.run())
        try:
            created = await gr.create(
                [SeatSpec("bot")] * 2, {"dealer": 0}, seed="paced", practice=True
            )
            for _ in range(100):  # six bot moves in, at least
                _, events = await gr.events(created.game_id, -1)
                if (
                    len({e["command_id"] for e in events if e["command_id"].startswith("bot:")})
                    >= 6
                ):
                    break
                await asyncio.sleep(0.1)
        finally:
            runner.stopping.set()
            await asyncio.gather(task, return_exceptions=True)
            await store.redis.aclose()
    times: dict[str, int] = {}
    for e in events:  # each move's first event
        if e["command_id"].startswith("bot:"):
            times.setdefault(e["command_id"], e["time_ms"])
    moments = sorted(times.values())
    assert len(moments) >= 6
    gaps = [b - a for a, b in itertools.pairwise(moments)]
    assert min(gaps) >= 150, gaps  # never sooner than the pace (an upper bound is no test)


@asynccontextmanager
async def running(runner: BotRunner) -> AsyncIterator[BotRunner]:
    """The runner's loop for the block; stopped at its end (its games' tasks too)."""
    task = asyncio.create_task(runner.run())
    try:
        yield runner
    finally:
        runner.stopping.set()
        await asyncio.gather(task, return_exceptions=True)


@asynccontextmanager
async def giraffe_raffe_and_store(
    settings: StoreSettings,
) -> AsyncIterator[tuple[EngineClient, EventStore]]:
    """A Giraffe Raffe engine and a store of its Redis, closed at the block's end."""
    async with running_engine(GIRAFFE_RAFFE, settings) as (gr, _):
        store = await open_store(settings)
        try:
            yield gr, store
        finally:
            await store.redis.aclose()


async def bot_moves(engine: EngineClient, game_id: str, at_least: int) -> None:
    async with asyncio.timeout(30):
        while True:
            _, events = await engine.events(game_id, -1)
            moves = {e["command_id"] for e in events if e["command_id"].startswith("bot:")}
            if len(moves) >= at_least:
                return
            await asyncio.sleep(0.02)


async def test_a_game_begun_while_bots_play_another_is_played_at_once(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A bots-only game plays to its end in one go; a game created meanwhile in the
    runner's partitions gets its bots' moves while that one is still being played, not
    after it (a tournament round's late tables waited a whole game)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 1})
    async with giraffe_raffe_and_store(settings) as (gr, store):
        runner = BotRunner(store, {"giraffe-raffe": gr}, ttl_ms=400, pace_ms=60)
        async with running(runner):
            first = (await gr.create([SeatSpec("bot")] * 2, {}, seed="first")).game_id
            await bot_moves(gr, first, 1)
            second = (await gr.create([SeatSpec("bot")] * 2, {}, seed="second")).game_id
            await bot_moves(gr, second, 3)
            _, _, status = await gr.view(first, -1)
            assert not status["over"]  # the first is still being played
            assert len(runner.playing) == 2
        assert runner.playing == {}  # stopping ends the games' tasks too


async def test_a_game_left_mid_play_is_played_on_by_the_next_runner(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A runner saves its checkpoint before the first event of a game it is still
    playing: stopped mid-game, the game's events are read again by the next owner of
    the partition, which plays it to its end (no new event would wake it otherwise)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 1})
    async with giraffe_raffe_and_store(settings) as (gr, store):
        leaving = BotRunner(store, {"giraffe-raffe": gr}, ttl_ms=400, pace_ms=60)
        async with running(leaving):
            game = (await gr.create([SeatSpec("bot")] * 2, {}, seed="left")).game_id
            await bot_moves(gr, game, 3)
        _, _, status = await gr.view(game, -1)
        assert not status["over"]
        async with running(BotRunner(store, {"giraffe-raffe": gr}, ttl_ms=400)):
            await wait_over(gr, game)


async def test_a_game_of_people_read_from_its_middle_is_left_alone(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A runner taking a partition over mid-game reads a game of people (a tournament
    table: followed for the tournament) without its GameCreated: it looks it up once,
    leaves it, and plays the bots' games on (it once looked again for ever, frozen)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 1})
    async with giraffe_raffe_and_store(settings) as (gr, store):
        looking = Looking(gr)
        runner = BotRunner(store, {"giraffe-raffe": looking}, ttl_ms=400)  # type: ignore[dict-item]
        people = (await gr.create([SeatSpec("human")] * 2, {}, seed="ppl", attended=True)).game_id
        created = (await store.redis.xrange(runner.stream_key(0), count=1))[0][0]
        await store.redis.set(runner.checkpoint_key(0), created.split(b"-")[0])
        seat = (await gr.view(people, -1))[2]["to_act"][0]
        (_, view, _), (version, legal) = (
            await gr.view(people, seat),
            await gr.commands(people, seat),
        )
        play = GAMES["giraffe-raffe"].bot("random")
        await gr.execute(people, seat, play(view, legal, SeededRng("ppl")), "p1", version)
        async with running(runner):
            bots = (await gr.create([SeatSpec("bot")] * 2, {}, seed="after")).game_id
            await wait_over(gr, bots)
            assert people not in runner.playing and people not in looking.viewed


class Saving(BotRunner):
    """The real runner, counting its checkpoint writes."""

    saves = 0

    async def save_checkpoints(self, saves: dict[int, tuple[int, int]]) -> dict[int, bool]:
        self.saves += bool(saves)
        return await super().save_checkpoints(saves)


async def test_the_runner_reads_a_game_it_plays_without_writing_per_move(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """While a game's task plays, the runner reads on (a game may begin meanwhile), but
    the played game's own moves are not news that needs an answer at once: its
    partition's checkpoint is written at most every ``checkpoint_every_s``, not after
    each move (which doubled the runner's CPU and added 40% to Redis's per event)."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 1})
    async with giraffe_raffe_and_store(settings) as (gr, store):
        runner = Saving(store, {"giraffe-raffe": gr}, ttl_ms=400, pace_ms=20)
        async with running(runner):
            game = (await gr.create([SeatSpec("bot")] * 3, {}, seed="saves")).game_id
            await wait_over(gr, game)
        _, events = await gr.events(game, -1)
        moves = {e["command_id"] for e in events if e["command_id"].startswith("bot:")}
        # ~25 ms a move: about one write a second and one at the start (it was one a move)
        assert len(moves) > 20 and runner.saves < len(moves) / 4, (runner.saves, len(moves))


class Refusing(Looking):
    """The real engine, whose appends fail for a while (Redis hung under the engine's
    cached state: looks answer, moves do not)."""

    def __init__(self, engine: EngineClient, refusals: int) -> None:
        super().__init__(engine)
        self.refusals = refusals

    async def execute(self, *args: object, **kwargs: object) -> object:
        if self.refusals > 0:
            self.refusals -= 1
            raise EngineUnavailable("no engine answered")
        return await self.engine.execute(*args, **kwargs)


async def test_a_game_whose_playing_stopped_while_a_bot_owes_a_move_is_played_again(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """#51 item 2: every move refused (1,200 times: the engine reads its cache, its
    appends fail) ran the runner's play out of its pass bound with a bot still to act;
    no event followed, so nothing looked at the game again: it stalled for good. Now it
    stays owed, is counted stuck, and is played again to its end."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 1})
    async with giraffe_raffe_and_store(settings) as (gr, store):
        refusing = Refusing(gr, 1200)
        runner = BotRunner(store, {"giraffe-raffe": refusing}, ttl_ms=400, stuck_after_s=0.2)  # type: ignore[dict-item]
        replayed = REPLAYED._value.get()
        async with running(runner):
            game = (await gr.create([SeatSpec("bot")] * 2, {}, seed="refused")).game_id
            stuck = 0.0
            async with asyncio.timeout(30):
                while refusing.refusals:
                    stuck = max(stuck, STUCK._value.get())
                    await asyncio.sleep(0.05)
            await wait_over(gr, game)
        assert REPLAYED._value.get() > replayed
        assert stuck >= 1  # seen while it waited
        assert runner.owed == {}
