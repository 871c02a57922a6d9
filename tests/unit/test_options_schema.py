"""Each game publishes its options as a schema a client builds its create form from
(#24 item 4), and the schema says the truth: every value it offers, with the seats it
says a table takes, is accepted by the game's own options check; every kind of seat it
leaves out is refused; every option the game knows is in it."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from services.games import GAMES
from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec

KINDS = ("human", "open", "bot")


def schema_of(game: str) -> dict[str, Any]:
    found = GAMES[game].options_schema
    return found() if callable(found) else found


def seats_for(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The x-seats rule that applies to these options (the game's own reading of it)."""
    return GAMES[game].seat_rule(options)


def offered(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every option set a form offers: each value of each option, the others default."""
    props = schema["properties"]
    out: list[dict[str, Any]] = [{}]
    for name, prop in props.items():
        if prop.get("x-form") is False:
            continue
        values = prop.get("enum") or []
        if prop.get("type") == "boolean":
            values = [True, False]
        elif "integer" in str(prop.get("type")) and not prop.get("x-seat"):
            values = [prop["minimum"], prop["maximum"]]
        for value in values:
            options = {name: value}
            for other, rule in (prop.get("x-when") or {}).items():
                options[other] = rule[0]
            out.append(options)
    return out


@pytest.mark.parametrize("game", list(GAMES))
def test_the_schema_is_a_json_schema_naming_every_option(game: str) -> None:
    schema = schema_of(game)
    Draft202012Validator.check_schema(schema)
    props = schema["properties"]
    assert all(p.get("title") for p in props.values())
    assert all(
        set(p["x-labels"]) >= {str(v) for v in p["enum"]}
        for p in props.values()
        if "enum" in p and "x-labels" in p
    )
    defaults = GAMES[game].options({}, [SeatSpec("human"), SeatSpec("bot")])
    assert set(defaults) - {"physics"} <= set(props)  # riff-raff records its physics version


@pytest.mark.parametrize("game", list(GAMES))
def test_every_offered_value_makes_a_game_with_the_seats_the_schema_says(game: str) -> None:
    schema = schema_of(game)
    for options in offered(schema):
        rule = seats_for(game, options)
        most = min(rule["max"], options.get(rule.get("max_option", ""), rule["max"]))
        for count in {rule["min"], most}:
            for kind in rule["kinds"]:
                seats = [SeatSpec("human")] + [SeatSpec(kind)] * (count - 1)
                GAMES[game].options(options, seats)  # accepted
        for kind in set(KINDS) - set(rule["kinds"]):
            with pytest.raises(InvalidArgument):
                GAMES[game].options(
                    options, [SeatSpec("human")] + [SeatSpec(kind)] * (rule["max"] - 1)
                )
