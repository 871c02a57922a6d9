"""python -m services.engine GAME: the gRPC engine of one game of services.games."""

from __future__ import annotations

import sys

from services.core.loop import run
from services.core.server import serve_engine
from services.games import GAMES


def main(argv: list[str]) -> None:
    if len(argv) != 1 or argv[0] not in GAMES:
        sys.exit(f"usage: python -m services.engine {{{','.join(GAMES)}}}")
    game = GAMES[argv[0]]
    run(serve_engine(game, game.default_port))


if __name__ == "__main__":
    main(sys.argv[1:])
