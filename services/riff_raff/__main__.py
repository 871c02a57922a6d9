"""python -m services.riff_raff: the Riff Raff engine (gRPC)."""

import asyncio

from services.core.server import serve_engine
from services.riff_raff.game import GAME

DEFAULT_PORT = 50063

if __name__ == "__main__":
    asyncio.run(serve_engine(GAME, DEFAULT_PORT))
