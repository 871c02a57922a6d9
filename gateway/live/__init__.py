"""Live streams (SSE) of games and tournaments: the hub (who watches what, fan-out, per-
seat redaction, drains), its channels, spectators' delay and tournament holds."""
