"""The process's caches (catalog/caching.py) and the collection pages' use of them (kept.py)."""

from __future__ import annotations

import threading

from catalog.caching import LRU, peek
from catalog.collection import kept


def test_the_least_recently_used_goes_first() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now b is the least recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (1, None, 3, 2)
    cache.clear()
    assert len(cache) == 0


def test_weighed_with_a_bound_on_entries_and_a_heavy_value_kept_alone() -> None:
    cache: LRU[str, int] = LRU(10, weight=lambda value: value, max_entries=3)
    for name in "abcd":
        cache.put(name, 1)
    assert [cache.get(name) for name in "abcd"] == [None, 1, 1, 1]  # four entries: a went
    cache.put("e", 9)  # 1 + 1 + 9 > 10: the two least recently used go
    assert [cache.get(name) for name in "bcde"] == [None, None, 1, 9]
    cache.put("f", 50)  # heavier than the bound: kept alone
    assert len(cache) == 1 and cache.get("f") == 50


def test_peek_leaves_the_order_as_it_is() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    with cache.locked() as raw:
        assert peek(raw, "a") == 1 and peek(raw, "z") is None
    cache.put("c", 3)  # a was only peeked at: it goes
    assert cache.get("a") is None and cache.get("b") == 2


def test_threads_share_a_cache() -> None:
    cache: LRU[int, int] = LRU(64)

    def work(offset: int) -> None:
        for i in range(2000):
            cache.put((offset + i) % 100, i)
            cache.get((offset + i * 7) % 100)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 64


def test_a_newer_version_replaces_the_older_which_stays_reachable_until_then() -> None:
    kept.cache_clear(ranks=False)
    what = ("placing", "test-db", 1)
    kept.keep(what, 5, "five")
    assert kept.kept(what, 5) == "five" and kept.kept(what, 6) is None
    assert kept.kept_before(what, 6) == (5, "five") and kept.kept_before(what, 5) is None
    kept.keep(what, 4, "four")  # older than what is kept: ignored
    assert kept.kept(what, 5) == "five"
    kept.keep(what, 6, "six")
    assert kept.kept(what, 5) is None and kept.kept(what, 6) == "six"
    kept.keep(("totals", "test-db", 1), 6, "totals")
    kept.cache_clear(placings_only=True)
    assert kept.kept(what, 6) is None and kept.kept(("totals", "test-db", 1), 6) == "totals"
    kept.cache_clear(ranks=False)
