"""Rating finished games (run by the projection, which sees every game end): each rated
game's GameRated is appended to its kind's ratings stream (``rt-<game>``) at the
stream's expected version, with the game's id as the command id, so a game is rated
once however often its end is seen (a redelivered batch, a second projection replica)
and two games rated at once by two replicas are rated one after the other."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter

from services.core.codec import dumps, to_domain
from services.core.errors import VersionConflict
from services.core.eventstore import EventStore, NewEvent
from services.core.ids import random_uuid
from services.core.seating import seated_players
from services.games import GAMES
from services.kernel.events import payload
from services.kernel.game import SPECTATOR, Game
from services.ratings import rules
from services.ratings.events import TYPES, GameRated

RATINGS = "ratings"  # the aggregate type of ratings streams
ENGINE_VERSION = "ratings/1"
ATTEMPTS = 16
RATED = Counter("raffe_games_rated_total", "Finished games rated", ["game"])


def stream_id(game: str) -> str:
    return f"rt-{game}"


class Rater:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.kinds: dict[str, rules.Ratings] = {}  # folded ratings streams, kept current

    async def ratings(self, game: str) -> rules.Ratings:
        """The kind's ratings, advanced by whatever was appended since last read."""
        state = self.kinds.setdefault(game, rules.Ratings())
        for stored in await self.store.read_game(stream_id(game), state.version):
            rules.evolve(state, TYPES.parse(to_domain(stored)))
        return state

    async def rate(
        self, game_id: str, game: Game[Any], created: dict[str, Any], state: Any, ended_ms: int
    ) -> GameRated | None:
        """Rate a finished game if it is rated (services.ratings.rules); None if not, or
        if it was rated already."""
        spec = GAMES.get(game.name)
        if spec is None or created.get("practice"):
            return None
        seated = await seated_players(self.store, game_id)
        players = rules.rated_players(created.get("seats", []), seated, spec.default_bot)
        if players is None:
            return None
        final = game.view(state, SPECTATOR)
        keys = spec.result_keys(final)
        left = [s["seat"] for s in (final.get("table") or {}).get("left", [])]
        for _ in range(ATTEMPTS):
            ratings = await self.ratings(game.name)
            rated = rules.decide(ratings, game_id, game.name, ended_ms, players, keys, left)
            event = NewEvent(random_uuid(), "GameRated", dumps(payload(rated)))
            try:
                result = await self.store.append(
                    stream_id(game.name),
                    RATINGS,
                    ratings.version,
                    game_id,
                    [event],
                    time_ms=int(time.time() * 1000),
                    engine_version=ENGINE_VERSION,
                )
            except VersionConflict:
                continue  # another replica rated a game meanwhile: rate on the newer state
            if result.duplicate:
                return None
            rules.evolve(ratings, rated)
            RATED.labels(game.name).inc()
            return rated
        raise VersionConflict(0, 0, f"could not rate {game_id} in {ATTEMPTS} attempts")
