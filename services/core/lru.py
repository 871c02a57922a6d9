"""A least-recently-used map bounded by an estimate of bytes, not by a count.

A count bound let the projection keep 20,000 games at ~62 KB each (a Giraffometer game)
against a 512 MiB container limit. Callers estimate each entry's size (the bytes of the
events folded into it, times a factor for Python objects) and the map evicts the least
recently used entries past ``max_bytes``."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
# Python objects built from JSON take several times its bytes (dicts, small ints, strs).
OBJECT_FACTOR = 6


class BytesLRU(Generic[K, V]):
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def peek(self, key: K) -> V | None:
        """The value without making it recently used."""
        found = self._items.get(key)
        return None if found is None else found[0]

    def put(self, key: K, value: V, size: int) -> None:
        self.pop(key)
        self._items[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped

    def pop(self, key: K) -> V | None:
        found = self._items.pop(key, None)
        if found is None:
            return None
        self.bytes -= found[1]
        return found[0]

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def size_of(self, key: K) -> int:
        found = self._items.get(key)
        return 0 if found is None else found[1]
