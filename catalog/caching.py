"""What a process keeps in memory: least-recently-used caches on cachetools, each behind a lock.

cachetools' caches are not thread-safe; as its documentation advises, each cache here has a lock
of its own, taken around every read and write (a threaded server shares them between requests).
Every user of this module keys its entries by what they are read from (the database, a
``catalogue_version`` or a collection version read in the caller's transaction), so an entry is
never stale, only unused: the least recently used goes first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from cachetools import Cache, LRUCache

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Counted(LRUCache[K, V]):
    """An LRU cache bounded by the total size of its values and by the number of its entries."""

    def __init__(self, maxsize: int, getsizeof: Callable[[V], float] | None, max_entries: int | None) -> None:
        super().__init__(maxsize, getsizeof)
        self.max_entries = max_entries

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        while self.max_entries is not None and len(self) > self.max_entries:
            self.popitem()


class LRU(Generic[K, V]):
    """At most ``maxsize`` entries, or with ``weight``: values weighing ``maxsize`` in all (a value
    heavier than that alone is kept alone) and at most ``max_entries`` of them. Each call takes
    the lock; :meth:`locked` gives the cache itself for a few steps that must not interleave."""

    def __init__(
        self, maxsize: int, *, weight: Callable[[V], int] | None = None, max_entries: int | None = None
    ) -> None:
        sized = None if weight is None else (lambda value: min(weight(value), maxsize))
        self._cache: _Counted[K, V] = _Counted(maxsize, sized, max_entries)
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept as ``key`` (now the most recently used), else None."""
        with self._lock:
            return self._cache.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as ``key``, the least recently used going first when full."""
        with self._lock:
            self._cache[key] = value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)

    @contextmanager
    def locked(self) -> Iterator[LRUCache[K, V]]:
        """The cache itself, under the lock (read with :func:`peek` to leave its order as it is)."""
        with self._lock:
            yield self._cache


def peek(cache: LRUCache[K, V], key: K) -> V | None:
    """The value of ``key`` in ``cache`` without marking it used, else None."""
    try:
        return Cache.__getitem__(cache, key)  # LRUCache's own __getitem__ marks it used
    except KeyError:
        return None
