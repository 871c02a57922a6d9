"""Names people give themselves (a tournament entrant, a seat): shown to every player
and printed by the CLI, so they must be plain text, and two names that look alike must
collide.

A name is NFKC-normalised (full-width and compatibility forms fold into their plain
letters), its runs of spaces collapsed and its ends trimmed; it must then be 1-64
characters with no control, format (bidi overrides, zero-width joiners), private-use,
unassigned or line-separator characters and no space but U+0020; a name that mixes
scripts with letters that imitate another script's ("\u0410lice" with a Cyrillic A) is
refused. ``look_alike_key`` is what names are compared by: every letter of another
script that imitates a Latin one (Unicode's confusables, via confusable-homoglyphs)
replaced by it, then case-folded, so "Alice", "alice" and "\u0410lice" share a key. The
table is services/kernel/lookalikes.json (generated from Unicode's data)."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from services.kernel import lookalikes
from services.kernel.errors import InvalidArgument

MAX_NAME = 64
# Cc control, Cf format (bidi, zero width), Cs surrogates, Co private use, Cn unassigned,
# Zl/Zp line and paragraph separators; other spaces (Zs) than U+0020 are refused apart.
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def clean_name(raw: object, max_length: int = MAX_NAME) -> str:
    """The name as it will be stored and shown, or InvalidArgument ``bad_name``."""
    if not isinstance(raw, str):
        raise InvalidArgument("a name is a string", "bad_name")
    name = " ".join(unicodedata.normalize("NFKC", raw).split(" "))
    name = " ".join(part for part in name.split(" ") if part)
    if not 1 <= len(name) <= max_length:
        raise InvalidArgument(f"a name is 1-{max_length} characters", "bad_name")
    for char in name:
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES or (category == "Zs" and char != " "):
            code = f"U+{ord(char):04X}"
            raise InvalidArgument(f"a name may not hold {code} ({category})", "bad_name")
    if lookalikes.is_mixed_script(name) and any(lookalikes.imitates(c) for c in name):
        raise InvalidArgument(
            "a name may not mix letters of one script that imitate another's", "bad_name"
        )
    return name


def look_alike_key(name: str) -> str:
    """What two names are compared by: equal keys look alike."""
    return "".join(_latin(c) for c in unicodedata.normalize("NFKC", name)).casefold()


@lru_cache(maxsize=4096)
def _latin(char: str) -> str:
    """The ASCII Latin letter ``char`` imitates, if it is of another script and does."""
    return lookalikes.latin_of(char) or char
