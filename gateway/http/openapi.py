"""The OpenAPI document as a client generator wants it: a bearer security scheme on the
routes that take a token, one Problem schema on every error answer (what every handler
sends), and operation ids that stay put (``<tag>_<function>``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from services.games import GAMES
from services.kernel.spec import GameSpec
from services.kernel.views import LegalShape
from services.tournament.game import GAME as TOURNAMENT

SCHEME = "seatToken"
# openapi_extra of a route: a token is needed, or optional (no token: a spectator).
TOKEN_REQUIRED: dict[str, Any] = {"security": [{SCHEME: []}]}
TOKEN_OPTIONAL: dict[str, Any] = {"security": [{SCHEME: []}, {}]}


class ProblemDetail(BaseModel):
    """RFC 9457 problem details, as every error of this API is sent."""

    model_config = ConfigDict(extra="allow", title="Problem")

    type: str = Field(description="a URI per error kind, e.g. /problems/not_your_turn")
    title: str
    status: int
    detail: str = Field(description="one human sentence")
    code: str = Field(description="machine-readable, stable: not_your_turn, bad_json, ...")
    current_version: int | None = Field(None, description="version conflicts: the game's")
    retry_after: int | None = Field(None, description="429 and 503: seconds to wait")
    limit: int | None = Field(
        None, description="a bot account's 429: the limit reached (the code names it)"
    )
    errors: list[dict[str, Any]] | None = Field(None, description="invalid_request: where")


def operation_id(route: APIRoute) -> str:
    return f"{route.tags[0]}_{route.name}" if route.tags else route.name


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def build(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = schema.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "description": "a seat's token (from creating or claiming a game), or a "
        "tournament organiser's or player's token",
    }
    problem = ProblemDetail.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas = components.setdefault("schemas", {})
    schemas["Problem"] = problem
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    typed_views(schemas)
    typed_commands(schemas)
    typed_events(schemas)
    typed_legal_commands(schema)
    typed_streams(schema)
    optional_request_fields(schema)
    ref = {"$ref": "#/components/schemas/Problem"}
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            everywhere(operation)
            for status, answer in operation.get("responses", {}).items():
                if status[0] in "45":
                    answer["content"] = {"application/problem+json": {"schema": ref}}
                    answer.setdefault("description", "a problem")
    return schema


# Answers any route may give, whatever its handler does: the middleware's (a body that is
# not JSON, too large or of another type; a rate limit) and an outage's.
ANY_ROUTE = {
    "429": "too many requests (Retry-After)",
    "503": "Redis or an engine cannot answer now (Retry-After): send it again",
}
WITH_A_BODY = {
    "400": "the body is not JSON (bad_json)",
    "413": "body too large",
    "415": "body is not application/json",
}


def everywhere(operation: dict[str, Any]) -> None:
    """Document on every operation the problems every route may answer (the routes'
    own lists left some out: an account route's 400 for a body that is not JSON)."""
    answers = operation.setdefault("responses", {})
    extra = {**ANY_ROUTE, **(WITH_A_BODY if "requestBody" in operation else {})}
    for status, text in extra.items():
        answers.setdefault(status, {"description": text})


def component(schemas: dict[str, Any], model: type) -> str:
    """A model (and the models it uses) as component schemas; the reference to it."""
    shape = TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(shape.pop("$defs", {}))
    schemas[model.__name__] = shape
    return f"#/components/schemas/{model.__name__}"


def typed_views(schemas: dict[str, Any]) -> None:
    """Each game's view model (its view.py) as a schema, and a view field that is one of
    them by ``game``: the server sends views as the engine wrote them (no validation on
    the hot path); a test checks every view a game shows against its model."""
    refs: dict[str, str] = {}
    for name, game in GAMES.items():
        if game.view_model is not None:
            refs[name] = component(schemas, game.view_model)
    if not refs:
        return
    # A tournament is a game to the runtime: its id answers /v1/games/{id}/replay and
    # /events too (its view is the one GET /v1/tournaments/{id} types, as a Tournament).
    schemas["TournamentView"] = {
        "type": "object",
        "title": "TournamentView",
        "description": "a tournament's view, as GET /v1/tournaments/{id} shows it",
        "properties": {"game": {"type": "string", "const": "tournament"}},
        "required": ["game"],
    }
    refs["tournament"] = "#/components/schemas/TournamentView"
    one_of = {
        "oneOf": [{"$ref": r} for r in refs.values()],
        "discriminator": {"propertyName": "game", "mapping": refs},
        "description": "the caller's view; its shape is the game's (by `game`)",
    }
    for holder in ("GameView", "CommandResult", "ReplayView"):
        if holder in schemas:
            schemas[holder]["properties"]["view"] = one_of


def typed_commands(schemas: dict[str, Any]) -> None:
    """Each game's commands as ``<Game>Command`` (one of its models, by ``type``), and a
    command body's ``command`` as any of them: games may share a command name (each
    game's union has its own discriminator), and the engine checks a command against its
    game's own model."""
    refs = []
    for name, game in GAMES.items():
        if game.commands is None:
            continue
        shape: dict[str, Any]
        if isinstance(game.commands, type):  # a game of one command: its model by name
            shape = {"$ref": component(schemas, game.commands)}
        else:
            template = "#/components/schemas/{model}"
            shape = TypeAdapter(game.commands).json_schema(ref_template=template)
        for model, definition in shape.pop("$defs", {}).items():
            if schemas.get(model, definition) != definition:
                raise ValueError(f"two games' command models are both called {model}")
            schemas[model] = definition
        title = f"{pascal(name)}Command"
        schemas[title] = {**shape, "title": title, "description": f"a command of a {name} game"}
        refs.append({"$ref": f"#/components/schemas/{title}"})
    if "CommandIn" in schemas and refs:
        schemas["CommandIn"]["properties"]["command"] = {
            "anyOf": refs,
            "description": "one of the game's commands (its <Game>Command), by `type`",
        }


class EventEnvelope(BaseModel):
    """One event as every endpoint and live stream sends it; ``data`` is the event
    type's payload (its shape per game: the ``<Game>Event`` schemas)."""

    model_config = ConfigDict(title="Event")

    id: str = Field(description="unique across all games")
    game_id: str
    version: int = Field(description="1, 2, 3... gapless within the game")
    type: str = Field(description="past tense, e.g. CardsPlayed")
    schema_version: int = Field(description="of the payload's shape for this type")
    data: dict[str, Any]
    actor: int = Field(description="the seat that acted; -1: the engine (deal, bot, timer)")
    command_id: str = Field(description="the command that produced it")
    time_ms: int = Field(description="when it was appended (Unix ms)")
    engine_version: str


def pascal(name: str) -> str:
    return "".join(part.title() for part in name.replace("_", "-").split("-"))


def event_schemas(schemas: dict[str, Any], games: Mapping[str, GameSpec[Any]]) -> dict[str, str]:
    """Each game's events as ``<Game>Event`` (one of its types, by ``type``), every
    payload a schema of its own (``<Game><Type>``, and ``<Game><Type>Seen`` where
    redaction reshapes it while the game runs); the refs by game."""
    envelope = schemas["Event"] = EventEnvelope.model_json_schema()
    unions: dict[str, str] = {}
    for name, game in games.items():
        if game.events is None:
            continue
        prefix, mapping = pascal(name), {}
        for type_name, cls in game.events.by_name.items():
            data = [_payload(schemas, f"{prefix}{type_name}", cls)]
            if type_name in game.events.seen:
                seen = game.events.seen[type_name]
                data.append(_payload(schemas, f"{prefix}{type_name}Seen", seen))
            # The envelope's fields, inline (generators cannot narrow an allOf's str to
            # a const), with this type and its payload.
            properties = {
                **envelope["properties"],
                "type": {"type": "string", "const": type_name},
                "data": data[0] if len(data) == 1 else {"anyOf": data},
            }
            schemas[f"{prefix}{type_name}Event"] = {
                **envelope,
                "properties": properties,
                "title": f"{prefix}{type_name}Event",
                "description": f"{type_name} in a {name} game",
            }
            mapping[type_name] = f"#/components/schemas/{prefix}{type_name}Event"
        schemas[f"{prefix}Event"] = {
            "oneOf": [{"$ref": r} for r in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
            "description": f"an event of a {name} game",
        }
        unions[name] = f"#/components/schemas/{prefix}Event"
    return unions


def _payload(schemas: dict[str, Any], title: str, cls: type) -> dict[str, str]:
    shape = TypeAdapter(cls).json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(shape.pop("$defs", {}))
    schemas[title] = {**shape, "title": title}
    return {"$ref": f"#/components/schemas/{title}"}


def typed_events(schemas: dict[str, Any]) -> None:
    """Events in a command's answer and in a page of events are one of the games'
    (sent as the engine wrote them, unvalidated on the hot path; a test checks every
    event every seat sees against these schemas)."""
    unions = event_schemas(schemas, {**GAMES, TOURNAMENT.name: TOURNAMENT})
    tournament = unions.pop(TOURNAMENT.name)
    items = {"anyOf": [{"$ref": r} for r in unions.values()], "description": "by game"}
    if "CommandResult" in schemas:
        schemas["CommandResult"]["properties"]["events"] = {"type": "array", "items": items}
    # A tournament's id answers /v1/games/{id}/events too: its events, by their types.
    page = {"anyOf": [*items["anyOf"], {"$ref": tournament}]}
    if "EventPage" in schemas:
        schemas["EventPage"]["properties"]["events"] = {"type": "array", "items": page}


def typed_legal_commands(schema: dict[str, Any]) -> None:
    """A seat's legal commands, typed per game (each game's legal_model in its view.py:
    every entry one of its command kinds, by ``type``), in the command's answer and from
    GET .../commands (which adds the version)."""
    schemas = schema["components"]["schemas"]
    refs = [
        {"$ref": component(schemas, game.legal_model)}
        for game in GAMES.values()
        if game.legal_model is not None
    ]
    # The models forbid fields they do not name (a test checks real answers against
    # them); GET .../commands adds the version, so each names it (optional elsewhere).
    for ref in refs:
        shape = schemas[ref["$ref"].rsplit("/", 1)[1]]
        shape.setdefault("properties", {})["version"] = {
            "type": "integer",
            "description": "GET .../commands: the game's version these are at",
        }
    generic = LegalShape.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas["LegalCommands"] = (
        {"anyOf": refs, "description": "the caller's legal commands; their shape is the game's"}
        if refs
        else generic
    )
    ref = {"$ref": "#/components/schemas/LegalCommands"}
    if "CommandResult" in schemas:
        schemas["CommandResult"]["properties"]["commands"] = ref
    version = {"type": "object", "properties": {"version": {"type": "integer"}}}
    versioned = {"allOf": [ref, {**version, "required": ["version"]}]}
    answer = schema["paths"]["/v1/games/{game_id}/commands"]["get"]["responses"]["200"]
    answer["content"] = {"application/json": {"schema": versioned}}


class GameFrame(BaseModel):
    """An account stream's ``game_start`` (you hold a seat of a game that is not over)
    or ``game_end`` (it is over): open its stream (``/v1/games/{game_id}/events/stream``)
    to play it."""

    model_config = ConfigDict(title="GameFrame")

    game_id: str
    game: str = Field(description="its kind: giraffe-raffe, giraffometer, riff-raff")
    seat: int = Field(description="your seat")


class OpenedFrame(BaseModel):
    """An account stream's ``opened``: every open challenge and game in progress came
    before it; changes come after."""

    model_config = ConfigDict(title="OpenedFrame")

    after: str = Field(description="the feed id live frames follow (0-0: none yet)")


class StreamLine(BaseModel):
    """A line of a stream asked for as new-line delimited JSON (``format=ndjson``, or
    ``Accept: application/x-ndjson``); an empty line is a heartbeat."""

    model_config = ConfigDict(title="StreamLine")

    event: str = Field(description="the frame's kind: as SSE's ``event:``")
    id: str | None = Field(description="resume after it (``after``); null: not resumable")
    data: dict[str, Any] = Field(description="the frame, as SSE's ``data:``")


class ViewFrame(BaseModel):
    """A live stream's ``view`` frame (streams opened with ``views=true``): after each
    batch of events, the caller's view and legal commands at the new version."""

    model_config = ConfigDict(title="ViewFrame")

    game_id: str
    version: int
    seat: int
    view: dict[str, Any]
    commands: dict[str, Any] | None = Field(description="null for spectators")


def typed_streams(schema: dict[str, Any]) -> None:
    """The live routes answer text/event-stream: each frame's ``event:`` is an event's
    type (``data:`` the event, ``id:`` its version) or ``view`` (a ViewFrame)."""
    schemas = schema["components"]["schemas"]
    frame = ViewFrame.model_json_schema(ref_template="#/components/schemas/{model}")
    frame["properties"]["view"] = schemas["GameView"]["properties"]["view"]
    frame["properties"]["commands"] = {
        "anyOf": [{"$ref": "#/components/schemas/LegalCommands"}, {"type": "null"}]
    }
    schemas["ViewFrame"] = frame
    # Each game's events (<Game>Event: one of its types, by type).
    unions = [
        {"$ref": f"#/components/schemas/{name}"}
        for name, shape in schemas.items()
        if name.endswith("Event") and "oneOf" in shape
    ]
    streams: dict[str, dict[str, Any]] = {
        "/v1/games/{game_id}/events/stream": {
            "oneOf": [*unions, {"$ref": "#/components/schemas/ViewFrame"}],
            "description": "Server-Sent Events: `id:` the event's version, `event:` its "
            "type (or `view`), `data:` the event (or a ViewFrame) as JSON; a `: ping` "
            "comment keeps a quiet stream open",
        },
        "/v1/quickplay/stream": {
            "$ref": "#/components/schemas/QueueTicket",
            "description": "Server-Sent Events: `event: queue`, `data:` your ticket as JSON, "
            "at once and at every change",
        },
        "/v1/tournaments/{tournament_id}/events/stream": {
            "$ref": "#/components/schemas/Event",
            "description": "Server-Sent Events: `id:` the event's version, `event:` its "
            "type, `data:` the tournament's event as JSON",
        },
    }
    refs = {m.__name__: component(schemas, m) for m in (GameFrame, OpenedFrame, StreamLine)}
    streams["/v1/accounts/me/events"] = {
        "oneOf": [
            {"$ref": "#/components/schemas/ChallengeOut"},
            {"$ref": refs["GameFrame"]},
            {"$ref": refs["OpenedFrame"]},
        ],
        "description": "Server-Sent Events: `event:` challenge (a ChallengeOut), game_start "
        "or game_end (a GameFrame), opened (an OpenedFrame); `id:` on live frames, to "
        "resume after; a `: ping` comment keeps a quiet stream open",
    }
    both = ("/v1/games/{game_id}/events/stream", "/v1/accounts/me/events")
    for path, frames in streams.items():
        answer = schema["paths"][path]["get"]["responses"]["200"]
        answer["description"] = "a live stream of frames"
        answer["content"] = {"text/event-stream": {"schema": frames}}
        if path in both:  # also as lines: a StreamLine whose data is such a frame
            line = copy.deepcopy(schemas["StreamLine"])
            line["properties"]["data"] = {k: v for k, v in frames.items() if k != "description"}
            line["description"] = "new-line delimited JSON: " + line.get("description", "")
            answer["content"]["application/x-ndjson"] = {"schema": line}


def _refs(node: Any) -> set[str]:
    """The component schemas a part of the document refers to."""
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def optional_request_fields(schema: dict[str, Any]) -> None:
    """A request field with a default may be left out, and says so: TypeScript
    generators (openapi-typescript) read a ``default`` as "always there" and would make
    a client send every defaulted field. The default moves into the description."""
    schemas = schema["components"]["schemas"]
    bodies = [
        op.get("requestBody", {}) for path in schema["paths"].values() for op in path.values()
    ]
    todo, seen = list(_refs(bodies)), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo += _refs(schemas[name])
        required = set(schemas[name].get("required", ()))
        for field, prop in schemas[name].get("properties", {}).items():
            if field not in required and "default" in prop:
                said = json.dumps(prop.pop("default"))
                prop["description"] = f"{prop.get('description', '')} (default {said})".strip()
