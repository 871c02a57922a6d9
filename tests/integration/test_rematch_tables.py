"""A finished table's rematch, asked about every 2 s by its page: the game's creation is
read once (a finished game never changes), then answered from memory."""

from __future__ import annotations

from gateway.games.rematch import Rematches
from services.core.eventstore import EventStore
from services.core.runtime import GameRuntime
from services.giraffe_raffe.game import GAME
from services.kernel.game import SeatSpec


async def test_a_finished_tables_rematch_is_answered_without_reading_the_game_again(
    store: EventStore,
) -> None:
    seats = [SeatSpec("human", "Ann"), SeatSpec("bot", bot_level="random"), SeatSpec("human")]
    created = await GameRuntime(GAME, store).create(seats, {"dealer": 1}, seed="table")
    game_id = created.game_id
    rematches = Rematches(store)
    assert not rematches.known_over(game_id)
    await rematches.finished(game_id)
    assert rematches.known_over(game_id)
    await store.redis.delete(store.keys.game(game_id))  # nothing of the game to read now
    offer = await rematches.offer(game_id, 2)
    assert (offer.needed, offer.accepted, offer.waiting_for) == ([0, 2], [2], [0])
    assert [s.kind for s in offer.seats] == ["human", "bot", "human"]
    assert offer.options == {"dealer": 1} and offer.game == "giraffe-raffe"
    assert Rematches(store).known_over(game_id) is False  # another gateway asks its engine
