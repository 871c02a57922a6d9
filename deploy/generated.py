"""A file the build writes from other files (``make manifests``): written, or checked
for staleness (a test runs ``--check`` so a forgotten ``make manifests`` fails CI)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(output: Path, text: str, argv: list[str], what: str = "") -> int:
    """``--stdout`` prints it, ``--check`` exits 1 when ``output`` differs, else writes it."""
    if "--stdout" in argv:
        print(text, end="")
        return 0
    if "--check" in argv:
        if output.read_text() != text:
            print(f"{output} is stale: run `make manifests`", file=sys.stderr)
            return 1
        return 0
    output.write_text(text)
    print(f"wrote {output.relative_to(ROOT)}{what}")
    return 0
