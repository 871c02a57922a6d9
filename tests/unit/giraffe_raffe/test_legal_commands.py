"""legal_commands is exact: checked by brute force against decide on random small states."""

from __future__ import annotations

import json
from itertools import chain, combinations, product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.core.errors import InvalidArgument, RuleViolation
from services.giraffe_raffe.cards import DECK, FACE, is_copy
from services.giraffe_raffe.plays import plays
from services.giraffe_raffe.state import State
from services.giraffe_raffe.trees import VALUE_KINDS, need
from services.giraffe_raffe.view import legal_commands
from tests.unit.giraffe_raffe.given import apples, created, dealt, played, turn, when
from tests.unit.giraffe_raffe.given import given as fold_given

Key = tuple[str, tuple[str, ...], int]


def key(tree: str, cards: tuple[str, ...] | list[str]) -> Key:
    """Copies are interchangeable: a play is its numbered cards and how many Copies."""
    numbered = tuple(sorted(c for c in cards if not is_copy(c)))
    return (tree, numbered, sum(1 for c in cards if is_copy(c)))


@st.composite
def small_states(draw: st.DrawFn) -> State:
    players = draw(st.sampled_from([2, 3, 4]))
    hand = draw(st.lists(st.sampled_from(DECK), min_size=1, max_size=7, unique=True))
    rest = [c for c in DECK if c not in hand]
    numbered_rest = [c for c in rest if not is_copy(c)]
    history = [
        created(players, count_rule=draw(st.sampled_from(["more", "exactly_one_more"]))),
        dealt([hand] + [[]] * (players - 1), redraw=[]),
    ]
    s = fold_given(*history)
    for tree in s.trees:
        if not draw(st.booleans()):
            continue
        if tree.kind in VALUE_KINDS:
            top = [draw(st.sampled_from(numbered_rest))]
        else:
            top = draw(
                st.lists(st.sampled_from(numbered_rest), min_size=3, max_size=5, unique=True)
            )
        history.append(played(1, tree.id, top))
    history += [apples(0, draw(st.integers(0, 1))), turn(0)]
    return fold_given(*history)


def accepted(s: State) -> set[Key]:
    """Every (tree, cards) decide accepts, trying every Copy mapping of every subset."""
    hand = s.hands[0]
    found: set[Key] = set()
    subsets = chain.from_iterable(combinations(hand, r) for r in range(1, len(hand) + 1))
    for cards in subsets:
        numbered = [c for c in cards if not is_copy(c)]
        copies = [c for c in cards if is_copy(c)]
        mappings = [
            dict(zip(copies, t, strict=True)) for t in product(numbered, repeat=len(copies))
        ] or [{}]
        for tree in s.trees:
            outcomes = set()
            for mapping in mappings:
                try:
                    when(s, 0, type="play", tree=tree.id, cards=list(cards), copies=mapping)
                    outcomes.add(True)
                except (RuleViolation, InvalidArgument):
                    outcomes.add(False)
            assert len(outcomes) == 1, "which card a Copy names never changes legality"
            if True in outcomes:
                found.add(key(tree.id, cards))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_states())
def test_legal_commands_match_decide_exactly(s: State) -> None:
    legal = legal_commands(s, 0)
    rule = s.options["count_rule"]
    enumerated = {key(t.id, p) for t in s.trees for p in plays(need(t, rule), s.hands[0])}
    decided = accepted(s)
    assert enumerated == decided
    entries = {c["tree"]: c for c in legal["commands"] if c["type"] == "play"}
    assert set(entries) == {t.id for t in s.trees}
    for tree_id, entry in entries.items():
        on_tree = {k for k in decided if k[0] == tree_id}
        assert entry["playable"] == bool(on_tree)
        for _, numbered, copies in on_tree:
            size = len(numbered) + copies
            assert entry["min_cards"] <= size <= (entry["max_cards"] or 99)
            if entry["kind"] == "single":
                assert FACE[numbered[0]][0] in {c[0].upper() for c in entry["colours"]}
        if "options" in entry:
            assert {key(tree_id, o) for o in entry["options"]} == on_tree
    assert ({"type": "return_apple"} in legal["commands"]) == (s.apples[0] > 0)
    assert len(json.dumps(legal)) < 64 * 1024


def test_the_worst_hand_stays_under_64_kib() -> None:
    hand = [*[f"{c}{v}" for v in (1, 2, 3, 4) for c in "RBYG"][:15], "C1", "C2", "C3", "C4"]
    s = fold_given(created(2), dealt([hand, []], redraw=[]), turn(0))
    assert len(json.dumps(legal_commands(s, 0))) < 64 * 1024
