"""python -m services.giraffometer: the Giraffometer engine (gRPC)."""

from services.core.loop import run
from services.core.server import serve_engine
from services.giraffometer.game import GAME

DEFAULT_PORT = 50062

if __name__ == "__main__":
    run(serve_engine(GAME, DEFAULT_PORT))
