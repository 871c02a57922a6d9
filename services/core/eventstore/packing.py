"""A redis-py asyncio connection that packs commands in C.

redis-py's asyncio ``Connection.pack_command`` is Python: about 25 us for the ~30
arguments of an append, on every command of every process. hiredis (already the reply
parser) packs the same bytes in about 5 us. Anything hiredis refuses (None, bools, text
that is not UTF-8) goes to redis-py's packer, which raises the error redis-py always
raised."""

from __future__ import annotations

from typing import Any

import hiredis
from redis.asyncio.connection import Connection


class PackedConnection(Connection):
    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        # As redis-py does: a command name like "SCRIPT LOAD" is sent as two arguments.
        if (isinstance(first, str) and " " in first) or (
            isinstance(first, bytes) and b" " in first
        ):
            args = (*first.split(), *args[1:])
        try:
            return [hiredis.pack_command(args)]
        except Exception:  # redis-py's packer raises its own error for these
            return super().pack_command(*args)
