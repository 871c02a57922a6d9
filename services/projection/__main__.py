"""python -m services.projection           the projection worker and its replay service
python -m services.projection rebuild   rebuild every read model into a new generation, the
                                        ratings boards from the ratings streams, and the
                                        players directory and games from the accounts"""

import sys

from services.accounts.streams import rebuild as rebuild_accounts
from services.core.eventstore import open_store
from services.core.loop import run
from services.core.settings import RatingSettings, StoreSettings
from services.projection.rebuild import rebuild
from services.projection.service import serve
from services.ratings.follow import boards_of
from services.ratings.follow import rebuild as rebuild_boards


async def _rebuild() -> None:
    store = await open_store(StoreSettings.from_env())
    await rebuild(store, progress=True)
    rated = await rebuild_boards(boards_of(store, RatingSettings()), progress=True)
    print(f"rebuild: ratings boards folded from {rated} rated games", file=sys.stderr)
    accounts = await rebuild_accounts(store, progress=True)
    print(f"rebuild: players and their games drawn from {accounts} accounts", file=sys.stderr)
    await store.redis.aclose()


if __name__ == "__main__":
    run(_rebuild() if sys.argv[1:] == ["rebuild"] else serve())
