"""How everything that talks to an engine reaches it (the gateway, the bot and tournament
runners, tests), behind one interface, ``EngineClient``:

- ``client.py``: EngineClient: every call of raffe.v1.Engine, typed errors, retries; the
  one place that chooses how a command travels (a lane when the client has lanes, else a
  unary Execute).
- ``lanes.py``: lanes, long ExecuteBatches calls that carry many commands each.
- ``replicas.py``: a channel per engine replica for the lanes, when a target lists several.
"""

from services.core.transport.client import EngineClient, Executed, Look, typed_error

__all__ = ["EngineClient", "Executed", "Look", "typed_error"]
