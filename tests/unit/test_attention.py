"""Which games the runners follow (services.core.attention)."""

from __future__ import annotations

import pytest

from services.core.attention import attended
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.kernel.game import SeatSpec
from services.kernel.playthrough import created_event
from services.tournament.game import GAME as TOURNAMENT


def created(kinds: list[str], **options: object) -> dict[str, object]:
    return dict(created_event(options, [SeatSpec(k) for k in kinds], "seed").data)


@pytest.mark.parametrize(
    ("kinds", "options", "asked", "expected"),
    [
        (["human", "human"], {}, False, False),
        (["human", "open"], {"turn_timer": None}, False, False),
        (["human", "bot"], {}, False, True),
        (["human", "human"], {"turn_timer": 30}, False, True),
        (["human", "human"], {}, True, True),
    ],
)
def test_bots_clocks_and_asking_make_a_game_attended(
    kinds: list[str], options: dict[str, object], asked: bool, expected: bool
) -> None:
    assert attended(created(kinds, **options), always=False, asked=asked) is expected


def test_only_tournaments_are_attended_whatever_their_seats() -> None:
    assert TOURNAMENT.always_attended and not GIRAFFE_RAFFE.always_attended
    assert attended(created([]), always=TOURNAMENT.always_attended, asked=False)
