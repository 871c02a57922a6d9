"""python -m services.giraffe_raffe: the Giraffe Raffe engine (gRPC)."""

from services.core.loop import run
from services.core.server import serve_engine
from services.giraffe_raffe.game import GAME

DEFAULT_PORT = 50061

if __name__ == "__main__":
    run(serve_engine(GAME, DEFAULT_PORT))
