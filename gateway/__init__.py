"""The REST gateway: what clients call. One room per thing it serves, each a package:

- ``games``: games and their commands (create, seats, views, commands, the command fast
  path, the catalog, quick play, rematches); ``games.routes`` is its HTTP face.
- ``live``: live streams (SSE) of games and tournaments: ``live.hub.LiveHub`` (who
  watches what, the fan-out once per audience, drains) with its parts by concern
  (frames, watched games and viewers, version waiters, streams by token for
  revocation), the channels it listens on, spectators' delay and tournament holds.
- ``accounts``: accounts and players, sessions and tokens (seat tokens, personal API
  tokens, stream tickets), the operator's ``python -m gateway.accounts.admin``.
- ``tournaments``: tournament routes and pages of standings.
- ``records``: game records (export, verify) and ratings.
- ``web``: the web client's files and the offline API docs.
- ``http``: plumbing every room uses: problem+json errors, the guard (body caps, rate
  limits, metrics, access log), who the caller is (``http.auth``), creation quotas,
  the OpenAPI document.

``clients.Clients`` wires the rooms to Redis, the engines and the projection (built once
by ``app.create_app``'s lifespan); ``settings`` holds every setting the gateway reads.
Rooms import ``http``, ``clients`` and each other's named modules; nothing imports
``app`` but ``__main__`` (the floors are declared in .importlinter and checked by
``make lint``)."""
