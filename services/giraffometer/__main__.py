"""python -m services.giraffometer: the Giraffometer engine (gRPC)."""

import asyncio

from services.core.server import serve_engine
from services.giraffometer.game import GAME

DEFAULT_PORT = 50062

if __name__ == "__main__":
    asyncio.run(serve_engine(GAME, DEFAULT_PORT))
