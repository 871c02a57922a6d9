"""The table around every game (DESIGN §2, docs/fair-table.md): who still sits at it, the
players' time banks, and the endings a table decides rather than a game's rules.

``seated(spec)`` wraps any GameSpec into one whose state is ``Table(game state, ...)``:
the engine, the projection, replays and the live hub fold and view it through the same
functions as before, so every game gets, with no code of its own but a default move:

- concede / leave: the seat's player gives up; a bot stands in for the seat so the
  others can finish (Board Game Arena's "zombie"); the player ranks last. A concession
  at a table of two ends the game for the other player.
- seat_gone (the engine's, sent when presence says a player is gone past a setting): a
  bot stands in until the player sends ``return``; at a table of two the other player
  may ``claim_win`` once a countdown has passed (at once after a ``leave``).
- time banks (options ``bank_timer``, ``bank_increment``): every seat the game waits on
  runs its own clock from when it had to act (in simultaneous phases every seat that
  has not yet acted); a move adds the increment. When a bank runs out, ``flag`` (sent by
  the bot runner at the deadline the status shows) plays the game's default move
  (``GameSpec.expire``, AL-3) for the seats out of time.

Everything is an event (SeatLeft, SeatGone, SeatReturned, ClocksSet and the table's own
GameEnded, marked ``by_table``), so a replay shows it and the state stays a fold of the log.
Time comes in as the command's clock, as everywhere in game logic.
"""

from services.kernel.table.commands import StandIn
from services.kernel.table.events import STAND_IN_EVENTS, TABLE_EVENTS
from services.kernel.table.options import DEFAULT_DELAY_MOVES, TABLE_OPTIONS
from services.kernel.table.state import Table
from services.kernel.table.views import ranked_keys, table_json
from services.kernel.table.wrapper import seated

__all__ = [
    "DEFAULT_DELAY_MOVES",
    "STAND_IN_EVENTS",
    "TABLE_EVENTS",
    "TABLE_OPTIONS",
    "StandIn",
    "Table",
    "ranked_keys",
    "seated",
    "table_json",
]
