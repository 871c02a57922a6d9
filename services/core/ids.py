"""Random ids in the text form of a version 4 UUID.

``uuid.uuid4()`` builds a UUID object (its checks, its int, its string) to give 16 random
bytes as text; an engine names each event it appends with one, and the object was most
of what turning an event into its stored form cost. The same text from the same 16
random bytes costs a third as much. The bytes come from ``os.urandom``, as uuid4's do: no
generator state, so a forked process never repeats its parent's ids."""

from __future__ import annotations

import os

# The variant's hex digit ("10" in its top two bits: 8, 9, a or b) from any hex digit.
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def random_uuid() -> str:
    """``str(uuid.uuid4())``, made without the UUID object."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"
