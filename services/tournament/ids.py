"""Names a tournament gives its games, and the seeds it deals them."""

from __future__ import annotations

import hashlib
import re

GAME_OF_TABLE = re.compile(r"^(?P<tournament>[A-Za-z0-9_]{1,40})-r(?P<round>\d+)-t(?P<table>\d+)$")


def table_game_id(tournament_id: str, round_number: int, table: int) -> str:
    """Each table's game has an id fixed by its place, so creating it twice (two runners,
    or one after a crash) is the same create, and a finished game names its table."""
    return f"{tournament_id}-r{round_number}-t{table}"


def table_of(game_id: str) -> tuple[str, int, int] | None:
    found = GAME_OF_TABLE.match(game_id)
    if found is None:
        return None
    return found["tournament"], int(found["round"]), int(found["table"])


def table_seed(tournament_seed: str, round_number: int, table: int, duplicate: bool) -> str:
    """Derived from the tournament's secret seed; in duplicate mode every table of a round
    gets the same one, so all of them play the same deal."""
    where = f"{round_number}" if duplicate else f"{round_number}:{table}"
    return hashlib.sha256(f"{tournament_seed}:{where}".encode()).hexdigest()[:32]
