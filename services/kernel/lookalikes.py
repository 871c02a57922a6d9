"""Unicode's look-alike characters, as names need them (services.kernel.names): the
script each character belongs to, which characters imitate another, and the ASCII Latin
letter a character of another script imitates.

The table is lookalikes.json beside this module, generated from the confusable-homoglyphs
package's data (Unicode's confusables and script ranges) by

    python -m services.kernel.lookalikes            write the table
    python -m services.kernel.lookalikes --check    exit 1 when it is stale (a test does)

The package is not loaded at run time: its tables took ~20 MiB in every process that
checked a name (the projection and the runners too), this one a few hundred KiB."""

from __future__ import annotations

import json
import sys
from bisect import bisect_right
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("lookalikes.json")
COMMON = "COMMON"


@cache
def _table() -> tuple[list[int], list[int], list[str], frozenset[str], dict[str, str]]:
    raw = json.loads(files("services.kernel").joinpath("lookalikes.json").read_text("utf-8"))
    starts = [r[0] for r in raw["ranges"]]
    ends = [r[1] for r in raw["ranges"]]
    scripts = [raw["scripts"][r[2]] for r in raw["ranges"]]
    return starts, ends, scripts, frozenset(raw["imitating"]), raw["latin"]


def script(char: str) -> str:
    """The script block alias of ``char`` ("LATIN", "CYRILLIC", "COMMON", ...)."""
    starts, ends, scripts, _, _ = _table()
    i = bisect_right(starts, ord(char)) - 1
    return scripts[i] if i >= 0 and ord(char) <= ends[i] else "Unknown"


def is_mixed_script(text: str) -> bool:
    """Whether ``text`` holds letters of more than one script (COMMON aside)."""
    return len({script(c) for c in text} - {COMMON}) > 1


def imitates(char: str) -> bool:
    """Whether some character of Unicode's confusables looks like ``char``."""
    return char in _table()[3]


def latin_of(char: str) -> str | None:
    """The ASCII Latin letter ``char`` (of another script) imitates, if any."""
    return _table()[4].get(char)


# -- generation (needs the confusable-homoglyphs package) ----------------------------


def generate() -> dict[str, Any]:
    from confusable_homoglyphs import categories, confusables  # only here: see above

    data = categories.categories_data
    names: list[str] = data["iso_15924_aliases"]
    ranges = [[start, end, alias] for start, end, alias, _ in data["code_points_ranges"]]
    # Only single characters: names are checked character by character.
    single = {c: e for c, e in confusables.confusables_data.items() if len(c) == 1}
    latin: dict[str, str] = {}
    for char, entries in single.items():
        if char.isascii() or categories.alias(char) in ("LATIN", COMMON):
            continue
        for glyph in entries:
            if glyph["c"].isascii() and glyph["n"].startswith("LATIN"):
                latin[char] = glyph["c"]
                break
    imitating = "".join(sorted(single))
    return {"scripts": names, "ranges": ranges, "imitating": imitating, "latin": latin}


def render() -> str:
    return json.dumps(generate(), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if TABLE.read_text("utf-8") != text:
            print(f"{TABLE} is stale: run python -m services.kernel.lookalikes", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, "utf-8")
    print(f"wrote {TABLE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
