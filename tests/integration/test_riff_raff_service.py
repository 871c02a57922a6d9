"""The Riff Raff engine over a real gRPC channel and a real Redis."""

from __future__ import annotations

import pytest

from services.core.errors import InvalidArgument, RuleViolation
from services.core.eventstore import EventStore
from services.core.transport import EngineClient
from services.kernel.game import SeatSpec
from services.kernel.rng import SeededRng
from services.projection.service import replay_view
from services.riff_raff.bots import BOTS
from services.riff_raff.game import GAME  # noqa: F401 - the engine fixture (conftest) serves it
from tests.engine_fixtures import cid, play_out


async def test_a_full_4_player_bot_game(engine: EngineClient, store: EventStore) -> None:
    created = await engine.create([SeatSpec("bot")] * 4, {}, seed="rr-svc")
    game_id, rng = created.game_id, SeededRng("bots")
    bots = ["careful", "random", "careful", "random"]
    assert await play_out(engine, game_id, [BOTS[b] for b in bots], rng)
    version, final, status = await engine.view(game_id, -1)
    assert status["winners"]
    _, events = await engine.events(game_id, -1)
    loads = [e for e in events if e["type"] == "PieceLoaded"]
    assert loads and all(e["data"]["physics"] == "raffe-ship/1" for e in loads)
    replayed = await replay_view(store, game_id, -1, version, reveal=True)
    assert replayed == final


async def test_cards_stay_secret_and_bad_input_appends_nothing(engine: EngineClient) -> None:
    created = await engine.create([SeatSpec("human")] * 3, {"captain": 0}, seed="secret")
    game_id = created.game_id
    version, _, _ = await engine.view(game_id, -1)
    done = await engine.execute(game_id, 1, {"type": "choose_card", "card": 6}, cid(), version)
    for seat in (0, 2, -1):
        _, events = await engine.events(game_id, seat)
        chosen = next(e for e in events if e["type"] == "CardChosen")
        assert set(chosen["data"]) == {"seat", "commitment"}
        _, view, _ = await engine.view(game_id, seat)
        assert view["chosen"] == [1] and view.get("your_card") is None
    cases = [
        (1, {"type": "choose_card", "card": 7}, RuleViolation, "not_your_turn"),
        (0, {"type": "choose_card", "card": 11}, InvalidArgument, "bad_card"),
        (0, {"type": "load", "pieces": [{"piece": "box"}]}, RuleViolation, "wrong_phase"),
        (0, {"type": "report", "fell": []}, RuleViolation, "not_tabletop"),
    ]
    for seat, command, error, code in cases:
        with pytest.raises(error) as info:
            await engine.execute(game_id, seat, command, cid(), done.version)
        assert info.value.code == code
    assert (await engine.view(game_id, -1))[0] == done.version


async def test_tabletop_disputes_are_settled_by_the_captain(engine: EngineClient) -> None:
    created = await engine.create([SeatSpec("human")] * 2, {"mode": "tabletop", "captain": 0})
    game_id = created.game_id

    async def act(seat: int, command: dict) -> None:
        version = (await engine.view(game_id, -1))[0]
        await engine.execute(game_id, seat, command, cid(), version)

    await act(0, {"type": "choose_card", "card": 2})
    await act(1, {"type": "choose_card", "card": 9})
    await act(1, {"type": "load", "pieces": [{"piece": "rat"}]})
    with pytest.raises(RuleViolation) as info:
        await act(1, {"type": "dispute"})
    assert info.value.code in ("own_report", "wrong_phase")
    await act(1, {"type": "report", "fell": ["s1-rat-0"], "caught": []})
    with pytest.raises(RuleViolation) as info:
        await act(1, {"type": "dispute"})
    assert info.value.code == "own_report"
    await act(0, {"type": "dispute"})
    _, view, status = await engine.view(game_id, -1)
    assert view["phase"] == "settle" and status["to_act"] == [1]  # seat 1 is the captain now
    await act(1, {"type": "settle", "fell": [], "caught": []})
    _, view, _ = await engine.view(game_id, -1)
    assert "s1-rat-0" in view["ship"]["aboard"] and view["turn"]["seat"] == 0
