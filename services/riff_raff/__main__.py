"""python -m services.riff_raff: the Riff Raff engine (gRPC)."""

from services.core.loop import run
from services.core.server import serve_engine
from services.riff_raff.game import GAME

DEFAULT_PORT = 50063

if __name__ == "__main__":
    run(serve_engine(GAME, DEFAULT_PORT))
