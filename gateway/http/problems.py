"""Errors as application/problem+json (RFC 9457), one stable ``type`` per error."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException

from services.core.errors import (
    InvalidArgument,
    RaffeError,
    RuleViolation,
    StoreUnavailable,
    UnknownGame,
    VersionConflict,
    store_failure,
)
from services.core.grpc_errors import EngineUnavailable

MEDIA_TYPE = "application/problem+json"
RETRY_AFTER_S = 1  # what a 503 asks: Redis and engines restart within seconds


def problems(*documented: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """A route's documented problem answers (OpenAPI ``responses``) from (status, what
    it means) pairs: each is problem+json."""
    return {code: {"description": text, "content": {MEDIA_TYPE: {}}} for code, text in documented}


class Problem(Exception):
    """An HTTP error the gateway itself raises."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.extra = status, code, detail, extra


def problem_response(status: int, kind: str, detail: str, **extra: Any) -> JSONResponse:
    body = {
        "type": f"/problems/{kind}",
        "title": kind.replace("_", " "),
        "status": status,
        "detail": detail,
        "code": kind,
        **extra,
    }
    headers = {"Retry-After": str(extra["retry_after"])} if "retry_after" in extra else None
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE, headers=headers)


def _status_of(error: RaffeError) -> int:
    if isinstance(error, VersionConflict):
        return 409
    if isinstance(error, UnknownGame):
        return 404
    if isinstance(error, EngineUnavailable | StoreUnavailable):
        return 503
    if isinstance(error, RuleViolation | InvalidArgument):
        return 422
    return 500


async def on_problem(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Problem)
    return problem_response(exc.status, exc.code, exc.detail, **exc.extra)


async def on_raffe_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RaffeError)
    extra: dict[str, Any] = {}
    if isinstance(exc, VersionConflict):
        extra["current_version"] = exc.current
    if isinstance(exc, EngineUnavailable | StoreUnavailable):
        extra["retry_after"] = RETRY_AFTER_S
    return problem_response(_status_of(exc), exc.code, exc.message, **extra)


async def on_store_error(request: Request, exc: Exception) -> JSONResponse:
    """Redis out of reach (restarting, unreachable, no connection free in time)."""
    return await on_raffe_error(request, failure_problem(exc))


def failure_problem(exc: BaseException) -> RaffeError:
    """What an unexpected failure tells the client: 503 store_unavailable when Redis is
    out of reach, else a 500 (logged by whoever caught it)."""
    return store_failure(exc) or RaffeError("internal error", "internal")


async def on_validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    return problem_response(
        422, "invalid_request", "the request does not match its schema", errors=errors
    )


async def on_http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return problem_response(exc.status_code, code, str(exc.detail))


HANDLERS = {
    Problem: on_problem,
    RedisError: on_store_error,
    OSError: on_store_error,
    RaffeError: on_raffe_error,
    RequestValidationError: on_validation,
    HTTPException: on_http,
}
