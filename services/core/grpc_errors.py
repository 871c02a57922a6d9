"""Typed errors -> gRPC status codes, with an ErrorDetail in the status details so
clients read a stable code instead of parsing sentences."""

from __future__ import annotations

import grpc
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status

from raffe.v1 import common_pb2
from services.core.errors import (
    InvalidArgument,
    LimitExceeded,
    RaffeError,
    RuleViolation,
    StoreUnavailable,
    UnknownGame,
    VersionConflict,
)

# Most specific class first.
CODES: list[tuple[type[RaffeError], int]] = [
    (StoreUnavailable, code_pb2.UNAVAILABLE),
    (VersionConflict, code_pb2.ABORTED),
    (UnknownGame, code_pb2.NOT_FOUND),
    (LimitExceeded, code_pb2.INVALID_ARGUMENT),
    (InvalidArgument, code_pb2.INVALID_ARGUMENT),
    (RuleViolation, code_pb2.FAILED_PRECONDITION),
]


INTERNAL = status_pb2.Status(code=code_pb2.INTERNAL, message="internal error")


class EngineUnavailable(RaffeError):
    """No engine answered (no replica, a timeout, a failure without our details)."""

    code = "engine_unavailable"


def typed(status: grpc.StatusCode, detail: common_pb2.ErrorDetail | None, text: str) -> RaffeError:
    """The typed error an engine raised, from a failed call's code and ErrorDetail."""
    if detail is None:
        return EngineUnavailable(text or str(status))
    if status == grpc.StatusCode.UNAVAILABLE:
        return StoreUnavailable(detail.message, detail.code)
    if status == grpc.StatusCode.ABORTED:
        return VersionConflict(0, detail.current_version, detail.message)
    if status == grpc.StatusCode.NOT_FOUND:
        return UnknownGame(detail.message, detail.code)
    if status == grpc.StatusCode.FAILED_PRECONDITION:
        return RuleViolation(detail.message, detail.code)
    return InvalidArgument(detail.message, detail.code)


def status_of(error: RaffeError) -> status_pb2.Status:
    code = next((c for cls, c in CODES if isinstance(error, cls)), code_pb2.UNKNOWN)
    detail = common_pb2.ErrorDetail(code=error.code, message=error.message)
    if isinstance(error, VersionConflict):
        detail.current_version = error.current
    status = status_pb2.Status(code=code, message=f"{error.code}: {error.message}")
    status.details.add().Pack(detail)
    return status


def status_error(status: status_pb2.Status) -> RaffeError:
    """What a unary call failing with ``status`` raises, for answers on a stream."""
    code = next((c for c in grpc.StatusCode if c.value[0] == status.code), grpc.StatusCode.UNKNOWN)
    return typed(code, detail_of(status), status.message)


def from_call_error(error: grpc.aio.AioRpcError) -> common_pb2.ErrorDetail | None:
    """The ErrorDetail of a failed call, for clients (gateway, bots, tests)."""
    status = rpc_status.from_call(error)
    return None if status is None else detail_of(status)


def detail_of(status: status_pb2.Status) -> common_pb2.ErrorDetail | None:
    """The ErrorDetail packed in a status, if any."""
    for any_ in status.details:
        detail = common_pb2.ErrorDetail()
        if any_.Unpack(detail):
            return detail
    return None
