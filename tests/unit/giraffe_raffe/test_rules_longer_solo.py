"""The longer game (GR-10), the solo game against the Robot (GR-11) and fair
randomness (AL-2)."""

from __future__ import annotations

import hashlib

from services.core.redaction import redact_event
from services.giraffe_raffe.bots import random_bot
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.state import State
from services.giraffe_raffe.view import legal_commands, redact, view
from services.kernel.game import Event, SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from tests.unit.giraffe_raffe.given import (
    apples,
    created,
    dealt,
    given,
    play,
    played,
    turn,
    types,
    when,
)


# ruling GR-10
def test_the_round_loser_takes_a_rotten_apple_and_deals_the_next_round() -> None:
    history = [created(2, mode="longer"), dealt([["R5"], ["B9"]]), turn(0)]
    history += when(given(*history), 0, **play("single", "R5"))
    events = when(given(*history), 1, **play("single", "B9"))
    assert types(events) == [
        "CardsPlayed",
        "TurnStarted",
        "PlayerLost",
        "RottenAppleTaken",
        "CardsDealt",
        "TurnStarted",
    ]
    assert events[2].data == {"seat": 0, "round": 1}
    assert events[4].data["round"] == 2 and events[4].data["dealer"] == 0
    assert events[5].data["seat"] == 0


def test_a_new_round_reshuffles_everything_and_returns_the_apples_but_not_rotten_ones() -> None:
    p = Playthrough.start(GAME, {"mode": "longer"}, [SeatSpec("human")] * 3, "long")
    first_hands = p.state.hands
    s = p.state
    after = given(
        *p.events,
        apples(0, 2),
        Event("PlayerLost", {"seat": 1, "round": 1}),
        Event("RottenAppleTaken", {"seat": 1}),
        dealt(
            [list(first_hands[2]), list(first_hands[0]), list(first_hands[1])], dealer=1, round_=2
        ),
    )
    assert after.apples == (0, 0, 0) and after.supply == 16
    assert after.rotten == (0, 1, 0)
    assert all(not t.plays for t in after.trees)
    assert s.round == 1 and after.round == 2


def test_a_second_rotten_apple_loses_the_game_and_all_others_win() -> None:
    s = given(
        created(3, mode="longer"),
        dealt([["R5"], ["B9"], []]),
        Event("RottenAppleTaken", {"seat": 2}),
        turn(1),
    )
    events = when(s, 1, **play("single-bg", "B9"))
    assert types(events) == [
        "CardsPlayed",
        "TurnStarted",
        "PlayerLost",
        "RottenAppleTaken",
        "GameEnded",
    ]
    assert events[-1].data["winners"] == [0, 1] and events[-1].data["losers"] == [2]


# ruling GR-11
def solo_events(
    hand: list[str], robot_hand: list[str], deck: list[str], **options: object
) -> list[Event]:
    return [
        created(1, mode="solo", **options),
        dealt([hand, robot_hand], robot_deck=deck),
        turn(0),
    ]


def solo(hand: list[str], robot_hand: list[str], deck: list[str], **options: object) -> State:
    return given(*solo_events(hand, robot_hand, deck, **options))


def test_solo_setup_you_go_first_with_15_cards_the_robot_has_5_and_a_deck() -> None:
    p = Playthrough.start(GAME, {"mode": "solo", "robot_deck": 17}, [SeatSpec("human")], "solo")
    s = p.state
    assert (len(s.hands[0]), len(s.hands[1]), len(s.robot_deck), len(s.redraw)) == (15, 5, 17, 4)
    assert s.turn == 0 and [t.id for t in s.trees if t.kind == "single"] == ["single"]


def test_the_robot_refills_to_5_and_plays_the_lowest_single_first() -> None:
    s = solo(["R1", "G15"], ["B4", "Y9", "R12"], ["B3", "G6", "G13"])
    events = when(s, 0, **play("single", "R1"))
    assert types(events)[:4] == ["CardsPlayed", "TurnStarted", "RobotCardsDrawn", "CardsPlayed"]
    assert events[2].data["cards"] == ["B3", "G6"]
    assert events[3].data == {"seat": 1, "tree": "single", "cards": ["B3"], "copies": {}}
    assert types(events)[4:] == ["TurnStarted"] and events[4].data["seat"] == 0


def test_the_robot_prefers_four_over_three_over_pair_after_singles() -> None:
    s = given(
        created(1, mode="solo"),
        dealt([["R1", "G15"], ["R8", "B8", "Y8", "G8", "B2"]], robot_deck=["R3"]),
        played(0, "single", ["G14"]),
        turn(0),
    )
    events = when(s, 0, **play("single", "G15"))
    robot_play = next(e for e in events if e.type == "CardsPlayed" and e.data["seat"] == 1)
    assert robot_play.data["tree"] == "four"
    assert next(e for e in events if e.type == "ApplesTaken").data == {"seat": 1, "count": 2}


def test_the_robot_plays_the_fewest_cards_and_lowest_values_on_count_trees() -> None:
    s = given(
        created(1, mode="solo"),
        dealt([["R1", "G15"], ["B2", "Y3", "G4", "R5", "B6"]], robot_deck=[]),
        played(0, "single", ["G14"]),
        turn(0),
    )
    events = when(s, 0, **play("single", "G15"))
    robot_play = next(e for e in events if e.type == "CardsPlayed" and e.data["seat"] == 1)
    assert robot_play.data["tree"] == "straight"
    assert robot_play.data["cards"] == ["B2", "Y3", "G4"]


def test_the_robot_draws_beyond_5_until_it_can_play_then_returns_an_apple_then_loses() -> None:
    history = [
        created(1, mode="solo"),
        dealt([["R1", "G15"], ["B2", "Y3"]], robot_deck=["B4"]),
        played(0, "single", ["G14"]),
        played(0, "straight", ["R9", "R10", "R11", "R12"]),
        played(0, "free", ["G9", "G10", "G11", "G12", "Y12"]),
        played(0, "color", ["Y9", "Y10", "Y11", "Y13", "Y14"]),
        apples(1, 1),
        apples(0, 1),
        turn(0),
    ]
    events = when(given(*history), 0, **play("single", "G15"))
    assert types(events) == [
        "CardsPlayed",
        "TurnStarted",
        "RobotCardsDrawn",
        "AppleReturned",
        "TurnStarted",
    ]
    history += events
    events = when(given(*history), 0, type="return_apple")
    assert types(events) == ["AppleReturned", "TurnStarted", "PlayerLost", "GameEnded"]
    assert events[-1].data["winners"] == [0] and events[-1].data["losers"] == []


def test_a_colour_tie_asks_the_player_by_default() -> None:
    history = solo_events(["R1", "G15"], ["B3", "G3", "Y9", "R12", "B12"], [])
    events = when(given(*history), 0, **play("single", "R1"))
    assert types(events) == ["CardsPlayed", "TurnStarted", "RobotTieOffered"]
    assert [o["cards"] for o in events[-1].data["options"]] == [["B3"], ["G3"]]
    pending = given(*history, *events)
    assert legal_commands(pending, 0)["commands"][0]["type"] == "choose_robot_play"
    chosen = when(pending, 0, type="choose_robot_play", option=1)
    assert chosen[0].data["cards"] == ["G3"] and chosen[0].data["seat"] == 1


def test_fixed_order_breaks_colour_ties_red_blue_yellow_green() -> None:
    s = solo(["R1", "G15"], ["G3", "Y3", "B3", "R12", "B12"], [], robot_ties="fixed_order")
    events = when(s, 0, **play("single", "R1"))
    assert events[2].data["cards"] == ["B3"]


def test_a_card_the_robot_wins_from_the_redraw_pile_goes_face_down_on_its_deck() -> None:
    history = [
        created(1, mode="solo"),
        dealt([["R1", "G15"], ["R6", "B6", "Y9", "R12", "B13"]], robot_deck=["G2"]),
        played(0, "single", ["G14"]),
        turn(0),
    ]
    events = when(given(*history), 0, **play("single", "G15"))
    taken = next(e for e in events if e.type == "RedrawCardTaken")
    assert taken.data == {"seat": 1, "card": "R15", "to": "robot_deck"}
    after = given(*history, *events)
    assert after.robot_deck[0] == "R15"
    hidden = redact(after, taken, 0)
    assert "card" not in hidden.data


# ruling AL-2
def test_the_seed_hash_is_public_and_the_seed_secret_until_the_end() -> None:
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 2, "my-secret-seed")
    v = view(p.state, 0)
    assert v["seed_hash"] == hashlib.sha256(b"my-secret-seed").hexdigest()
    assert "my-secret-seed" not in str(v)
    assert "seed" not in redact_event(GAME, p.state, p.events[0], 0).data
    while not p.state.over:
        seat = p.state.turn
        p.execute(seat, {"type": "return_apple"} if p.state.apples[seat] else _any_play(p, seat))
    assert view(p.state, -1)["seed"] == "my-secret-seed"
    assert p.events[-1].data["seed"] == "my-secret-seed"


def _any_play(p: Playthrough, seat: int) -> dict:
    legal = legal_commands(p.state, seat)
    return random_bot(view(p.state, seat), legal, SeededRng("t", p.version))
