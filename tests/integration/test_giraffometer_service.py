"""The Giraffometer engine over a real gRPC channel and a real Redis."""

from __future__ import annotations

import pytest

from services.core.errors import InvalidArgument, RaffeError, RuleViolation
from services.core.eventstore import EventStore
from services.core.transport import EngineClient
from services.giraffometer.bots import BOTS
from services.giraffometer.game import GAME  # noqa: F401 - the engine fixture (conftest) serves it
from services.kernel.game import SeatSpec
from services.kernel.rng import SeededRng
from services.projection.service import replay_view
from tests.engine_fixtures import cid, play_out


async def test_a_full_game_of_5_bots(engine: EngineClient) -> None:
    created = await engine.create([SeatSpec("bot")] * 5, {"target": 5}, seed="gm-svc")
    game_id = created.game_id
    bots = ["expert", "normal", "easy", "random", "random"]
    rng = SeededRng("bots")
    assert await play_out(engine, game_id, [BOTS[b] for b in bots], rng)
    version, final, status = await engine.view(game_id, -1)
    assert status["winners"] and all(final["scores"][w] >= 5 for w in status["winners"])
    _, events = await engine.events(game_id, -1)
    assert [e["version"] for e in events] == list(range(1, version + 1))
    assert events[-1]["data"]["seed"] == "gm-svc"


async def test_votes_stay_invisible_to_others_until_the_reveal(
    engine: EngineClient, store: EventStore
) -> None:
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="secret-votes")
    game_id = created.game_id
    version, _, _ = await engine.view(game_id, 0)
    await engine.execute(game_id, 0, {"type": "vote", "lowest": 5, "highest": 3}, cid(), version)
    for seat in (1, 2, -1):
        _, view, _ = await engine.view(game_id, seat)
        assert view["voted"] == [0] and view["your_vote"] is None
        _, events = await engine.events(game_id, seat)
        cast = next(e for e in events if e["type"] == "VoteCast")
        assert set(cast["data"]) == {"seat", "commitment"}
        assert "answer" not in str(view["facts"])
        shuffled = next(e for e in events if e["type"] == "DeckShuffled")
        assert set(shuffled["data"]) == {"count"}
        replay = await replay_view(store, game_id, seat, version + 1)
        assert replay["your_vote"] is None and "votes" not in replay
    _, own, _ = await engine.view(game_id, 0)
    assert own["your_vote"] == {"lowest": 5, "highest": 3}


@pytest.mark.parametrize(
    ("command", "error", "code"),
    [
        ({"type": "vote", "lowest": 2, "highest": 2}, InvalidArgument, "same_position"),
        ({"type": "vote", "lowest": 0, "highest": 2}, InvalidArgument, "bad_lowest"),
        ({"type": "vote", "lowest": 9, "highest": 2}, InvalidArgument, "bad_lowest"),
        ({"type": "close_round"}, RuleViolation, "round_still_open"),
    ],
)
async def test_bad_votes_are_typed_and_append_nothing(
    engine: EngineClient, command: dict, error: type[RaffeError], code: str
) -> None:
    created = await engine.create([SeatSpec("human")] * 2, {"round_timer": 60}, seed="bad")
    version, _, _ = await engine.view(created.game_id, 0)
    with pytest.raises(error) as info:
        await engine.execute(created.game_id, 0, command, cid(), version)
    assert info.value.code == code
    assert (await engine.view(created.game_id, 0))[0] == version


async def test_a_second_vote_a_non_player_and_a_bad_deck(engine: EngineClient) -> None:
    created = await engine.create([SeatSpec("human")] * 2, {}, seed="twice")
    version, _, _ = await engine.view(created.game_id, 0)
    done = await engine.execute(
        created.game_id, 0, {"type": "vote", "lowest": 1, "highest": 2}, cid(), version
    )
    with pytest.raises(RuleViolation) as info:
        await engine.execute(
            created.game_id, 0, {"type": "vote", "lowest": 3, "highest": 4}, cid(), done.version
        )
    assert info.value.code == "already_voted"
    with pytest.raises(RuleViolation) as info:
        await engine.execute(
            created.game_id, 7, {"type": "vote", "lowest": 3, "highest": 4}, cid(), done.version
        )
    assert info.value.code == "not_a_player"
    bad_deck = {
        "name": "d",
        "facts": [{"id": "a", "question": "How many?x", "unit": "u", "answer": 1}] * 6,
    }
    with pytest.raises(InvalidArgument) as info:
        await engine.create([SeatSpec("human")] * 2, {"deck": bad_deck})
    assert "source" in info.value.message
