"""A stand-in service for the launcher's supervision test: it listens on RAFFE_PORT,
except on its second start, when it exits at once (a restart that fails)."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path


def main() -> int:
    starts = Path(os.environ["RAFFE_FLAKY_DIR"]) / f"starts-{os.environ['RAFFE_PORT']}"
    count = int(starts.read_text()) + 1 if starts.exists() else 1
    starts.write_text(str(count))
    if count == 2:
        return 1
    with socket.socket() as server:
        server.bind(("127.0.0.1", int(os.environ["RAFFE_PORT"])))
        server.listen()
        while True:
            time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
