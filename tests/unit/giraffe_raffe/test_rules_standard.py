"""Giraffe Raffe rules, one group per ruling (docs/rulings.md GR-1..GR-9)."""

from __future__ import annotations

import pytest

from services.core.errors import InvalidArgument, RaffeError, RuleViolation
from services.giraffe_raffe.cards import COPIES, DECK, NUMBERED
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.state import APPLES, State
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
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


def start(players: int, seed: str = "s", **options: object) -> Playthrough:
    return Playthrough.start(GAME, options, [SeatSpec("human")] * players, seed)


# ruling GR-1
def test_the_deck_has_60_numbered_cards_and_4_copies() -> None:
    assert len(NUMBERED) == 60 and len(set(NUMBERED)) == 60
    assert len(COPIES) == 4
    assert len(set(DECK)) == 64


# ruling GR-2
@pytest.mark.parametrize(("players", "hand"), [(2, 15), (3, 15), (4, 15), (5, 12)])
def test_setup_deals_hands_and_a_redraw_pile_of_4(players: int, hand: int) -> None:
    s = start(players).state
    assert [len(h) for h in s.hands] == [hand] * players
    assert len(s.redraw) == 4
    assert len(s.out) == 64 - players * hand - 4
    assert s.supply == APPLES == 16


@pytest.mark.parametrize(
    ("players", "singles"),
    [
        (2, {"single": ("R", "B", "Y", "G")}),
        (3, {"single-ry": ("R", "Y"), "single-bg": ("B", "G")}),
        (4, {f"single-{c}": (c.upper(),) for c in "rbyg"}),
        (5, {f"single-{c}": (c.upper(),) for c in "rbyg"}),
    ],
)
def test_single_trees_depend_on_the_player_count(players: int, singles: dict) -> None:
    trees = start(players).state.trees
    assert {t.id: t.colours for t in trees if t.kind == "single"} == singles
    assert [t.kind for t in trees if t.kind != "single"] == [
        "four",
        "three",
        "pair",
        "straight",
        "color",
        "free",
    ]


# ruling GR-3
def test_a_named_dealer_plays_first() -> None:
    for dealer in range(3):
        assert start(3, dealer=dealer).state.turn == dealer


def test_an_unnamed_dealer_is_drawn_from_the_seed() -> None:
    dealers = {start(4, seed=f"seed-{n}").state.dealer for n in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert start(4, seed="x").state.dealer == start(4, seed="x").state.dealer


# ruling GR-4
def base(*hands: list[str], **options: object) -> State:
    return given(created(len(hands), **options), dealt(hands), turn(0))


@pytest.mark.parametrize(
    ("tree", "cards", "code"),
    [
        ("pair", ["R7", "B8"], "values_differ"),
        ("pair", ["R7"], "wrong_card_count"),
        ("pair", ["R7", "B7", "Y7"], "wrong_card_count"),
        ("three", ["R7", "B7"], "wrong_card_count"),
        ("straight", ["R3", "B4"], "wrong_card_count"),
        ("straight", ["R3", "B4", "Y6"], "straight_not_consecutive"),
        ("straight", ["R3", "B3", "Y4"], "straight_needs_distinct_values"),
        ("straight", ["R15", "B1", "Y2"], "straight_not_consecutive"),  # no wrap 15 -> 1
        ("color", ["R3", "R4", "B5"], "colours_differ"),
        ("free", ["R3", "B9"], "wrong_card_count"),
        ("single", ["R3", "R4"], "wrong_card_count"),
    ],
)
def test_plays_of_the_wrong_shape_are_rejected(tree: str, cards: list[str], code: str) -> None:
    s = base(
        ["R3", "R4", "R7", "B3", "B4", "B7", "B8", "Y4", "Y6", "Y7", "R15", "B1", "Y2", "B5", "B9"],
        ["G1"],
    )
    with pytest.raises(RuleViolation) as info:
        when(s, 0, **play(tree, *cards))
    assert info.value.code == code


@pytest.mark.parametrize(
    ("tree", "cards"),
    [
        ("single", ["Y7"]),
        ("pair", ["R7", "B7"]),
        ("three", ["R7", "B7", "Y7"]),
        ("straight", ["R3", "B4", "B5"]),
        ("straight", ["R3", "B4", "B5", "Y6", "Y7"]),
        ("color", ["B3", "B4", "B8"]),
        ("free", ["R3", "B9", "Y2"]),
    ],
)
def test_plays_of_the_right_shape_are_accepted(tree: str, cards: list[str]) -> None:
    s = base(["R3", "R7", "B3", "B4", "B5", "B7", "B8", "B9", "Y2", "Y6", "Y7"], ["G1"])
    events = when(s, 0, **play(tree, *cards))
    assert events[0].type == "CardsPlayed"
    assert events[0].data["cards"] == cards


def test_a_four_colour_single_tree_takes_any_colour_a_3_player_tree_only_its_own() -> None:
    s = base(["G5", "B6"], ["R1"], ["R2"])
    with pytest.raises(RuleViolation) as info:
        when(s, 0, **play("single-ry", "G5"))
    assert info.value.code == "wrong_colour"
    assert when(s, 0, **play("single-bg", "G5"))[0].data["tree"] == "single-bg"


# ruling GR-5
def test_value_trees_need_a_strictly_higher_value_whatever_the_colour() -> None:
    s = given(created(2), dealt([["B7", "Y8"], ["G1"]]), played(1, "single", ["R7"]), turn(0))
    with pytest.raises(RuleViolation) as info:
        when(s, 0, **play("single", "B7"))
    assert info.value.code == "value_not_higher"
    assert types(when(s, 0, **play("single", "Y8")))[0] == "CardsPlayed"


def test_count_trees_need_at_least_one_card_more_by_default() -> None:
    s = given(
        created(2),
        dealt([["R1", "R2", "R3", "R4", "R5", "B9"], ["G1"]]),
        played(1, "color", ["G2", "G3", "G4"]),
        turn(0),
    )
    with pytest.raises(RuleViolation):
        when(s, 0, **play("color", "R1", "R2", "R3"))
    assert when(s, 0, **play("color", "R1", "R2", "R3", "R4", "R5"))[0].type == "CardsPlayed"


def test_exactly_one_more_rejects_two_more() -> None:
    s = given(
        created(2, count_rule="exactly_one_more"),
        dealt([["R1", "R2", "R3", "R4", "R5", "B9"], ["G1"]]),
        played(1, "free", ["G2", "G3", "G4"]),
        turn(0),
    )
    with pytest.raises(RuleViolation) as info:
        when(s, 0, **play("free", "R1", "R2", "R3", "R4", "R5"))
    assert info.value.code == "wrong_card_count"
    assert when(s, 0, **play("free", "R1", "R2", "R3", "R4"))[0].type == "CardsPlayed"


# ruling GR-6
def test_rulebook_example_copy_with_a_red_7_is_a_pair_of_7s() -> None:
    s = base(["R7", "C1", "B9"], ["G1"])
    events = when(s, 0, **play("pair", "R7", "C1"))
    assert events[0].data["copies"] == {"C1": "R7"}  # inferred: one numbered card
    after = given(created(2), dealt([["R7", "C1", "B9"], ["G1"]]), turn(0), *events)
    assert after.tree("pair").top.value == 7


def test_seven_and_two_copies_make_a_three() -> None:
    s = base(["R7", "C1", "C2"], ["G1"])
    events = when(s, 0, **play("three", "R7", "C1", "C2"))
    assert events[0].data["copies"] == {"C1": "R7", "C2": "R7"}


def test_a_copy_may_name_which_card_it_copies() -> None:
    s = base(["R7", "B7", "C1"], ["G1"])
    events = when(s, 0, **play("three", "R7", "B7", "C1", C1="B7"))
    assert events[0].data["copies"] == {"C1": "B7"}


@pytest.mark.parametrize(
    ("tree", "cards", "copies", "error", "code"),
    [
        ("pair", ["C1", "C2"], {}, RuleViolation, "copy_needs_numbered"),
        ("single", ["R7", "C1"], {}, RuleViolation, "wrong_card_count"),
        ("straight", ["R7", "B8", "C1"], {}, RuleViolation, "straight_needs_distinct_values"),
        ("pair", ["R7", "C1"], {"C1": "B7"}, InvalidArgument, "copy_target_not_in_play"),
        ("pair", ["R7", "C1"], {"C2": "R7"}, InvalidArgument, "copy_not_in_play"),
    ],
)
def test_illegal_copy_plays(
    tree: str, cards: list[str], copies: dict[str, str], error: type[RaffeError], code: str
) -> None:
    s = base(["R7", "B7", "B8", "C1", "C2"], ["G1"])
    with pytest.raises(error) as info:
        when(s, 0, **play(tree, *cards, **copies))
    assert info.value.code == code


def test_copies_are_legal_in_color_and_free() -> None:
    s = base(["R7", "R9", "B2", "C1"], ["G1"])
    assert when(s, 0, **play("color", "R7", "R9", "C1"))[0].type == "CardsPlayed"
    assert when(s, 0, **play("free", "B2", "R9", "C1", C1="B2"))[0].type == "CardsPlayed"


# ruling GR-7
@pytest.mark.parametrize(
    ("tree", "cards", "reward"),
    [
        ("pair", ["R7", "B7"], [("RedrawCardTaken", {"seat": 0, "card": "R15", "to": "hand"})]),
        ("three", ["R8", "B8", "Y8"], [("ApplesTaken", {"seat": 0, "count": 1})]),
        ("four", ["R9", "B9", "Y9", "G9"], [("ApplesTaken", {"seat": 0, "count": 2})]),
        ("straight", ["R1", "R2", "R3"], [("ApplesTaken", {"seat": 0, "count": 1})]),
        ("color", ["R1", "R2", "R3"], [("ApplesTaken", {"seat": 0, "count": 1})]),
        ("free", ["R1", "R2", "R3"], [("ApplesTaken", {"seat": 0, "count": 1})]),
        ("single", ["R1"], []),
    ],
)
def test_rewards(tree: str, cards: list[str], reward: list) -> None:
    hand = ["R1", "R2", "R3", "R7", "B7", "R8", "B8", "Y8", "R9", "B9", "Y9", "G9"]
    events = when(base(hand, ["G14"]), 0, **play(tree, *cards))
    got = [(e.type, dict(e.data)) for e in events[1:] if e.type != "TurnStarted"]
    assert got == reward


def test_rewards_take_only_what_is_there() -> None:
    s = given(
        created(2),
        dealt([["R9", "B9", "Y9", "G9", "R7", "B7"], ["G1"]], redraw=[]),
        apples(1, 15),
        turn(0),
    )
    four = when(s, 0, **play("four", "R9", "B9", "Y9", "G9"))
    assert [(e.type, e.data.get("count")) for e in four[1:-1]] == [("ApplesTaken", 1)]
    pair = when(s, 0, **play("pair", "R7", "B7"))
    assert types(pair) == ["CardsPlayed", "TurnStarted"]


# ruling GR-8
def test_a_player_may_return_an_apple_even_when_a_play_is_possible() -> None:
    s = given(created(2), dealt([["R1"], ["G1"]]), apples(0, 1), turn(0))
    events = when(s, 0, type="return_apple")
    assert types(events) == ["AppleReturned", "TurnStarted"]
    after = given(created(2), dealt([["R1"], ["G1"]]), apples(0, 1), turn(0), *events)
    assert (after.apples[0], after.supply, after.turn) == (0, 16, 1)


def test_returning_an_apple_without_one_is_rejected() -> None:
    with pytest.raises(RuleViolation) as info:
        when(base(["R1"], ["G1"]), 0, type="return_apple")
    assert info.value.code == "no_apple"


# ruling GR-9
def test_a_player_who_cannot_act_loses_at_once_and_everyone_else_wins() -> None:
    s = given(
        created(3),
        dealt([["R5", "B9"], ["R2"], ["G1"]]),
        played(2, "single-ry", ["R3"]),
        turn(0),
    )
    events = when(s, 0, **play("single-ry", "R5"))
    assert types(events) == ["CardsPlayed", "TurnStarted", "PlayerLost", "GameEnded"]
    assert events[2].data["seat"] == 1
    assert dict(events[3].data) == {"winners": [0, 2], "losers": [1], "seed": "given-seed"}


def test_an_empty_hand_with_an_apple_does_not_lose() -> None:
    s = given(created(2), dealt([["R5"], []]), apples(1, 1), turn(0))
    events = when(s, 0, **play("single", "R5"))
    assert types(events) == ["CardsPlayed", "TurnStarted"]


def test_out_of_turn_and_after_the_end_are_rejected() -> None:
    s = base(["R5"], ["G1"])
    with pytest.raises(RuleViolation) as info:
        when(s, 1, **play("single", "G1"))
    assert info.value.code == "not_your_turn"
    over = given(created(2), dealt([["R5"], ["G1"]]), turn(0))
    over = given(
        created(2), dealt([["R5"], ["G1"]]), turn(0), *when(over, 0, **play("single", "R5"))
    )
    assert over.over
    with pytest.raises(RuleViolation) as info:
        when(over, 0, type="return_apple")
    assert info.value.code == "game_over"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (play("single", "R6"), "card_not_in_hand"),
        (play("single", "Z9"), "unknown_card"),
        (play("pair", "R5", "R5"), "duplicate_card"),
        (play("trunk", "R5"), "unknown_tree"),
        ({"type": "dance"}, "unknown_command"),
        ({"type": "return_apple", "extra": 1}, "unknown_field"),
        ({"type": "play", "tree": "free", "cards": "R5"}, "bad_cards"),
    ],
)
def test_bad_commands_get_typed_errors(command: dict, code: str) -> None:
    with pytest.raises((RuleViolation, InvalidArgument)) as info:
        when(base(["R5", "B5"], ["G1"]), 0, **command)
    assert info.value.code == code
    assert info.value.message


@pytest.mark.parametrize(
    ("options", "seats"),
    [
        ({"mode": "tournament"}, 3),
        ({"count_rule": "less"}, 3),
        ({"robot_deck": 0, "mode": "solo"}, 1),
        ({"dealer": 7}, 3),
        ({"colour": "red"}, 3),
        ({}, 6),
        ({"mode": "solo"}, 2),
    ],
)
def test_unknown_option_values_are_rejected(options: dict, seats: int) -> None:
    with pytest.raises(InvalidArgument):
        start(seats, **options)
