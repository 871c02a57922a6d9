"""Who a rated game rates and how: pure.

A finished game is rated when it is not a practice game (practice covers a seed the
creator chose), has two seats or more, and every human seat is held by a player (an
account) with at least one such player: a table with an anonymous seat token, or only
bots, moves nobody's rating. Each bot level is a player of its own ("bot:<level>"), so a
bot level has a rating like anyone. Solo games (one seat against the Robot) are not
rated. Places come from the game's own result keys (higher is better), as a
tournament's table points do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.ratings.events import GameRated
from services.tournament.ratings import INITIAL, Rating, ordinal, rate
from services.tournament.scoring import ranks

BOT_PREFIX = "bot:"
# What leaving a rated game costs beyond last place, in openskill mu (25 at the start, a
# place among four moves it about 1-3): a leaver does worse than anyone who played on.
LEAVE_PENALTY = 1.0


@dataclass
class Standing:
    rating: Rating = INITIAL
    games: int = 0


@dataclass
class Ratings:
    """A game kind's ratings, folded from its stream."""

    version: int = 0
    players: dict[str, Standing] = field(default_factory=dict)

    def of(self, player: str) -> Standing:
        return self.players.get(player, Standing())


def rated_players(
    seats: Sequence[Mapping[str, Any]], players: Mapping[int, str], default_bot: str
) -> list[str] | None:
    """Who each seat rates as, or None when the game is not rated (see the module)."""
    if len(seats) < 2:
        return None
    out = []
    for i, seat in enumerate(seats):
        if seat.get("kind") == "bot":
            out.append(BOT_PREFIX + (seat.get("bot_level") or default_bot or "default"))
        elif i in players:
            out.append(players[i])
        else:
            return None
    return out if any(not p.startswith(BOT_PREFIX) for p in out) else None


def decide(
    state: Ratings,
    game_id: str,
    game: str,
    ended_ms: int,
    players: list[str],
    keys: Sequence[float],
    left: Sequence[int] = (),
) -> GameRated:
    """``keys`` rank those who ``left`` (seats) last already (services.kernel.table);
    beyond last place, each of them loses LEAVE_PENALTY of their mu (docs/fair-table.md)."""
    places = ranks(keys)
    before = [state.of(p).rating for p in players]
    # openskill rates teams; a player sitting twice (two bot seats of one level) is one
    # player, rated from the first of their seats' updates.
    after = rate(before, [(list(range(len(players))), places)])
    for seat in left:
        mu, sigma = after[seat]
        after[seat] = (round(mu - LEAVE_PENALTY, 6), sigma)
    return GameRated(
        game_id,
        game,
        ended_ms,
        players,
        places,
        [list(r) for r in before],
        [list(r) for r in after],
        [state.of(p).games + 1 for p in players],
        sorted(left) or None,
    )


def evolve(state: Ratings, e: GameRated) -> Ratings:
    state.version += 1
    for player, after, games in reversed(list(zip(e.players, e.after, e.games, strict=True))):
        state.players[player] = Standing((after[0], after[1]), games)  # the first seat last
    return state


def score(rating: Sequence[float]) -> float:
    """The number boards sort by: openskill's ordinal (mu - 3 sigma)."""
    return ordinal((rating[0], rating[1]))


# The rating people see (docs/ratings.md): the same score on the scale players know from
# chess sites, a newcomer at 1500; it orders players exactly as the score does.
SHOWN_START, SHOWN_PER_POINT = 1500, 40


def shown(board_score: float) -> int:
    """The displayed rating of a score: 1500 + 40 x (mu - 3 sigma), rounded."""
    return round(SHOWN_START + SHOWN_PER_POINT * board_score)
