"""The OpenAPI document as a client generator wants it: a bearer security scheme on the
routes that take a token, one Problem schema on every error answer (what every handler
sends), and operation ids that stay put (``<tag>_<function>``)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field

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
    ref = {"$ref": "#/components/schemas/Problem"}
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            for status, answer in operation.get("responses", {}).items():
                if status[0] in "45":
                    answer["content"] = {"application/problem+json": {"schema": ref}}
                    answer.setdefault("description", "a problem")
    return schema
