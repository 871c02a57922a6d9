"""What a game may import: the Game protocol and spec, events, errors, the seeded
generator, frozen-state helpers, commitments, command checks, and in-memory playthroughs.
Nothing here does I/O; the machinery (event store, gRPC, runtime) lives in services.core."""
