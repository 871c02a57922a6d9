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
    UnknownGame,
    VersionConflict,
)

# Most specific class first.
CODES: list[tuple[type[RaffeError], int]] = [
    (VersionConflict, code_pb2.ABORTED),
    (UnknownGame, code_pb2.NOT_FOUND),
    (LimitExceeded, code_pb2.INVALID_ARGUMENT),
    (InvalidArgument, code_pb2.INVALID_ARGUMENT),
    (RuleViolation, code_pb2.FAILED_PRECONDITION),
]


def to_status(error: RaffeError) -> grpc.Status:
    code = next((c for cls, c in CODES if isinstance(error, cls)), code_pb2.UNKNOWN)
    detail = common_pb2.ErrorDetail(code=error.code, message=error.message)
    if isinstance(error, VersionConflict):
        detail.current_version = error.current
    status = status_pb2.Status(code=code, message=f"{error.code}: {error.message}")
    status.details.add().Pack(detail)
    return rpc_status.to_status(status)


def from_call_error(error: grpc.aio.AioRpcError) -> common_pb2.ErrorDetail | None:
    """The ErrorDetail of a failed call, for clients (gateway, bots, tests)."""
    status = rpc_status.from_call(error)
    if status is None:
        return None
    for any_ in status.details:
        detail = common_pb2.ErrorDetail()
        if any_.Unpack(detail):
            return detail
    return None
