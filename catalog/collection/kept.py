"""What the collection pages keep per process: placings, totals and search filters' printings.

Each is kept as ``what`` (its database, user, catalogue versions and filters) at a version (the
user's collection version: :func:`catalog.collection.listing.collection_version`), one version
per ``what``: a newer version replaces the older (pages ask only for the newest; the older one
stays reachable through :func:`kept_before` until then, to be moved on rather than made anew).
Everything in the key is read in the request's transaction, so a page never uses counts older
than what its transaction sees, and several servers need agree on nothing held in memory.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from catalog.caching import LRU, peek
from catalog.collection import ordering as order_ranks

# What is kept per process: at most this many entries, and at most this many item ids in all
# (name order keeps every matching id: 8 bytes each, so ~16 MB at the bound).
CACHE_ENTRIES = 512
CACHE_IDS = 2_000_000


@dataclass(frozen=True)
class _Entry:
    version: int
    value: Any
    weight: int  # the item ids it holds


_kept: LRU[Hashable, _Entry] = LRU(CACHE_IDS, weight=lambda entry: entry.weight, max_entries=CACHE_ENTRIES)


def cache_clear(*, ranks: bool = True, placings_only: bool = False) -> None:
    """Forget every kept placing and total (tests that empty a database under a running process),
    and the catalogue's ranks unless ``ranks`` is False. ``placings_only``: forget the placings
    alone, keeping the totals and search filters' printings (benchmarks: a page whose placing
    the cache let go, in a process that has shown the collection before)."""
    if ranks and not placings_only:
        order_ranks.cache_clear()
    if not placings_only:
        _kept.clear()
        return
    with _kept.locked() as cache:
        for what in [w for w in cache if isinstance(w, tuple) and w[0] == "placing"]:
            del cache[what]


def kept(what: Hashable, version: int) -> Any:
    """What :func:`keep` kept of ``what`` at ``version``, else None."""
    with _kept.locked() as cache:
        entry = peek(cache, what)
        if entry is None or entry.version != version:
            return None
        return cache[what].value  # now the most recently used


def kept_before(what: Hashable, version: int) -> tuple[int, Any] | None:
    """The newest version of ``what`` kept before ``version`` and its value, if any."""
    with _kept.locked() as cache:
        entry = peek(cache, what)
        return (entry.version, entry.value) if entry is not None and entry.version < version else None


def keep(what: Hashable, version: int, value: Any, weight: int = 1) -> None:
    """Keep ``value`` (``weight``: the item ids it holds) of ``what`` at ``version``, in place of
    an older version's (versions only grow: pages ask for the newest), the least recently used
    going first."""
    with _kept.locked() as cache:
        older = peek(cache, what)
        if older is not None:
            if older.version >= version:
                return
            del cache[what]
        cache[what] = _Entry(version, value, weight)
