"""python -m services.projection           the projection worker and its replay service
python -m services.projection rebuild   rebuild every read model into a new generation"""

import sys

from services.core.eventstore import open_store
from services.core.loop import run
from services.core.settings import StoreSettings
from services.projection.rebuild import rebuild
from services.projection.service import serve


async def _rebuild() -> None:
    store = await open_store(StoreSettings.from_env())
    await rebuild(store, progress=True)
    await store.redis.aclose()


if __name__ == "__main__":
    run(_rebuild() if sys.argv[1:] == ["rebuild"] else serve())
