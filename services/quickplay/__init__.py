"""Quick play (docs/quickplay.md): players queue for a game kind and a table size; one
matchmaker at a time (a lease, in the bot runner's processes) forms tables by rating and
fills seats with bots after a wait the players see. The queue lives in Redis (queue),
the choice of tables is pure (matching), the matchmaker seats the tables (matchmaker)."""
