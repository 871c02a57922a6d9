"""A finished game's portable record (docs/records.md): one JSON document with its
options, seats, seed, every command with its time and every event; checked offline by
``raffe verify``, exported in bulk as JSON Lines."""
