"""JSON-lines logging for every service: one object per line, extra fields included, the
time to the millisecond (UTC), no terminal colour codes (uvicorn's ``color_message`` is
dropped), and the request id of the call being served when there is one (set by the
gateway for each request and carried to the engines with each command)."""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import sys
import time
from contextvars import ContextVar

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The request a line was logged while serving ("" outside any): the gateway sets it per
# HTTP request, an engine per command (proto Command.request_id).
REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="")


def timestamp(created: float) -> str:
    """ISO 8601 UTC to the millisecond: 2026-12-02T06:31:10.123Z."""
    return f"{_second(int(created))}.{int(created * 1000) % 1000:03d}Z"


@functools.lru_cache(maxsize=4)
def _second(whole: int) -> str:
    """The seconds part, formatted once a second (the access log writes a line per
    request: formatting it each time showed in the gateway's CPU per command)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": _ANSI.sub("", record.getMessage()),
        }
        request_id = REQUEST_ID.get()
        if request_id:
            line["request_id"] = request_id
        line.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(os.environ.get("RAFFE_LOG_LEVEL", "INFO"))
    # httpx logs every request at INFO: a line per webhook or push delivery (the
    # notifier counts them in raffe_notifications_total instead).
    logging.getLogger("httpx").setLevel(logging.WARNING)
