"""The rulings the code and tests cite live in the repository (docs/rulings.md), and
every id cited there is defined."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULING = re.compile(r"\b(GR|GM|RR|AL)-(\d+)\b")


def test_every_cited_ruling_is_defined_in_the_repository() -> None:
    defined = set(re.findall(r"\*\*((?:GR|GM|RR|AL)-\d+)", (ROOT / "docs/rulings.md").read_text()))
    assert {"GR-1", "GM-2", "RR-4", "AL-2"} <= defined
    cited: set[str] = set()
    for folder in ("services", "gateway", "tests", "docs"):
        for path in (ROOT / folder).rglob("*.py" if folder != "docs" else "*.md"):
            cited |= {f"{a}-{n}" for a, n in RULING.findall(path.read_text())}
    assert cited and cited <= defined, sorted(cited - defined)
