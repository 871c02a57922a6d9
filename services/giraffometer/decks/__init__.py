"""Giraffometer decks: the shipped default deck and validation of custom ones (GM-2)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from services.kernel.errors import InvalidArgument

MAX_CUSTOM_FACTS = 100  # keeps a custom deck, stored as one event, under 64 KiB
MIN_FACTS = 6


@dataclass(frozen=True)
class Fact:
    id: str
    question: str
    unit: str
    answer: int
    source: str
    as_of: int | None = None
    theme: str = ""
    # What is being compared (GM-7): a round deals six facts of six different kinds.
    # A deck may name it; else it is the unit's family (kind_of).
    kind: str = ""

    def __post_init__(self) -> None:
        if not self.kind:
            object.__setattr__(self, "kind", kind_of(self.unit))

    def public(self) -> dict[str, Any]:
        """What players see before the reveal: no answer."""
        return {
            "id": self.id,
            "question": self.question,
            "unit": self.unit,
            "theme": self.theme,
            "kind": self.kind,
        }


def kind_of(unit: str) -> str:
    """A fact's kind from its unit: the unit without "(rounded)", years BC and AD as
    years ("thousand km² (rounded)" -> "thousand km²")."""
    family = re.sub(r"\s*\(rounded\)", "", unit).strip().lower()
    return "year" if family in ("year bc", "year ad") else family


def _resource(name: str) -> Any:
    return json.loads(files("services.giraffometer.decks").joinpath(name).read_text())


@cache
def schema() -> dict[str, Any]:
    schema: dict[str, Any] = _resource("deck.schema.json")
    return schema


@cache
def default_deck() -> dict[str, Fact]:
    """The shipped deck by fact id (read once, on first use): what new games draw."""
    return {f["id"]: Fact(**f) for f in _resource("default.json")["facts"]}


@cache
def known_facts() -> dict[str, Fact]:
    """Every fact the shipped deck has ever held, retired ones included: a game dealt
    before a fact was retired still folds, reveals and scores it."""
    shipped = _resource("default.json")
    return {f["id"]: Fact(**f) for f in [*shipped.get("retired", []), *shipped["facts"]]}


def validate(deck: Any, max_facts: int | None = MAX_CUSTOM_FACTS) -> list[Fact]:
    """A deck's facts, or InvalidArgument naming the first offending fact."""
    # Imported on the first custom deck: jsonschema takes ~8 MiB in every process that
    # loads it, and only the processes that check a custom deck need it.
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema()).iter_errors(deck), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "deck"
        fact = _fact_name(deck, list(first.path))
        raise InvalidArgument(f"{where}{fact}: {first.message}", "bad_deck")
    facts = [Fact(**f) for f in deck["facts"]]
    if max_facts is not None and len(facts) > max_facts:
        raise InvalidArgument(f"a custom deck has at most {max_facts} facts", "bad_deck")
    seen: dict[int, str] = {}
    ids: set[str] = set()
    for f in facts:
        if f.answer in seen:
            raise InvalidArgument(
                f"fact {f.id!r} has the answer {f.answer}, like fact {seen[f.answer]!r}: "
                "answers must be unique within a deck",
                "bad_deck",
            )
        if f.id in ids:
            raise InvalidArgument(f"fact id {f.id!r} appears twice", "bad_deck")
        seen[f.answer] = f.id
        ids.add(f.id)
    return facts


def _fact_name(deck: Any, path: list[Any]) -> str:
    if len(path) >= 2 and path[0] == "facts" and isinstance(path[1], int):
        try:
            return f" (fact {deck['facts'][path[1]].get('id', '?')!r})"
        except (AttributeError, IndexError, KeyError, TypeError):
            return ""
    return ""


@cache
def facts_for(themes: tuple[str, ...] | None) -> dict[str, Fact]:
    """The known facts of some themes (all for None), one dict shared by every game that
    asks: a game's state holds it without copying (a copy per game was most of a
    Giraffometer game's memory in the projection)."""
    return {k: f for k, f in known_facts().items() if not themes or f.theme in themes}
