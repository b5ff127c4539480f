"""A small LRU map for what the site keeps between requests (whole game pages by their ETag,
pictures by theirs): only work saved, never what decides who may see a page, which every
request reads again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """Values up to ``size`` in all, the least recently used dropped first: ``size`` counts
    values, or what ``weigh`` says each weighs (bytes, for pictures). A value heavier than
    ``size`` by itself is not kept."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self._items: OrderedDict[str, tuple[V, int]] = OrderedDict()
        self._size = size
        self._weigh = weigh
        self.weight = 0  # of the values kept

    def get(self, key: str) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: str, value: V) -> None:
        weight = 1 if self._weigh is None else self._weigh(value)
        old = self._items.pop(key, None)
        if old is not None:
            self.weight -= old[1]
        if weight > self._size:
            return
        self._items[key] = (value, weight)
        self.weight += weight
        while self.weight > self._size:
            _key, (_value, w) = self._items.popitem(last=False)
            self.weight -= w

    def __len__(self) -> int:
        return len(self._items)
