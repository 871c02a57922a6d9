"""The engine's state cache holds games in play, not finished ones (#25 item 5): a read
of a game in play finds it current; once the game has ended, a read folds it afresh
("cold" in raffe_engine_cache_total) and answers the same final view."""

from __future__ import annotations

from services.core.eventstore import EventStore
from services.core.runtime import CACHE, GameRuntime
from services.giraffe_raffe.game import GAME
from services.kernel.game import SeatSpec
from services.kernel.playthrough import bot_moves


def found(how: str) -> float:
    return CACHE.labels(GAME.name, how)._value.get()  # the counter as /metrics shows it


async def test_a_finished_game_leaves_the_engine_cache_and_still_reads(store: EventStore) -> None:
    runtime = GameRuntime(GAME, store)
    seed = "cache-leaves"
    created = await runtime.create([SeatSpec("human")] * 3, {}, seed=seed, practice=True)
    game_id = created.game_id
    moves = bot_moves(GAME, 3, seed, GAME.bot("random"))
    for i, (seat, _, command) in enumerate(moves):
        await runtime.execute(game_id, seat, command, command_id=f"c{i}")
        if i == len(moves) // 2:  # in play: the command's own state is cached
            current = found("current")
            await runtime.view(game_id, 0)
            assert found("current") == current + 1
    cold = found("cold")
    version, final, status = await runtime.view(game_id, 0)
    assert status["over"] and found("cold") == cold + 1  # folded afresh: it was not cached
    assert await runtime.view(game_id, 0) == (version, final, status)
    assert found("cold") == cold + 2  # nor kept by the read
