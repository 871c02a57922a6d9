"""Games and their commands: routes (create, seats, views, commands, events), the command
fast path, the catalog, quick play and rematches."""
