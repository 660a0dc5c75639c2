"""Where each printing stands in a collection page's order, once per catalogue (issue 17).

Sorting a large collection in name order in SQL costs what the join and a sort on text keys
cost (pinyin, name, game, set position, number: 90–160 ms for 50,000 items, SQLite and
PostgreSQL), every time a placing is made anew: the first open, and after a card enters the
collection. Those keys belong to the catalogue, not to the user: ranked once per catalogue
version (one query over the printings, shared by every user), an item's place is its printing's
rank then its own id, two integers packed into one, and a collection of 50,000 items is fetched
unordered and sorted in Python in a third of the time. A kept placing can also take a new item in
by bisection instead of placing every item anew.

Ranks are dense (``DENSE_RANK()``, SQLite ≥ 3.25 and PostgreSQL): printings whose keys are
equal share a rank (two sets sharing a place and collector numbers), so (rank, item id) orders
items exactly as ``ORDER BY <keys>, item.id`` does, in the database's own collation.

Ranking costs a sort of the printings (100–150 ms for 100,000 on this machine: n log n, ~1.5 s
for a million), paid once per process and catalogue version by the first large collection
placed; a small collection (fewer items than
:data:`RANKED_FROM`) is sorted in SQL as before, which is cheaper for it than the ranking.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.collection.tables import CARD, GAME, PRINTING, SET
from catalog.models import Card, CardSet, Game, Printing
from catalog.pauses import collector_paused

# A collection of at least this many matching items is sorted by ranks (below it, SQL's sort of
# the few items is cheaper than ranking the catalogue once).
RANKED_FROM = 2_000

# key = rank << ID_BITS | item id: one 64-bit integer per item (array "q").
ID_BITS = 39
ID_MASK = (1 << ID_BITS) - 1
MAX_RANK = (1 << (63 - ID_BITS)) - 1

ORDER_KEYS: dict[str, tuple[Any, ...]] = {
    "set": (GAME.slug, SET.position, PRINTING.number),
    "name": (CARD.pinyin, CARD.name, GAME.slug, SET.position, PRINTING.number),
}

_ranks: dict[tuple[str, str], tuple[Any, array[int]]] = {}  # (database, order) → (catalogue key, ranks)
_lock = threading.Lock()


def cache_clear() -> None:
    with _lock:
        _ranks.clear()


def ranks(session: Session, database: str, order: str, catalogue: Any) -> array[int] | None:
    """Printing id → its dense rank in ``order`` (array index), for the catalogue named by
    ``catalogue`` (every game's catalogue_version, read in this transaction); None when the
    catalogue has more printings than a key can rank."""
    with _lock:
        found = _ranks.get((database, order))
    if found is not None and found[0] == catalogue:
        return found[1]
    statement = (
        select(PRINTING.id, func.dense_rank().over(order_by=ORDER_KEYS[order]))
        .select_from(Printing)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
    )
    with collector_paused():
        rows = session.connection().execute(statement).all()  # Core rows: no ORM loading
    if not rows:
        return None
    table = array("q", [-1]) * (max(row[0] for row in rows) + 1)  # -1: not a printing ranked
    for printing_id, rank in rows:
        table[printing_id] = rank
    if max(table) > MAX_RANK:
        return None
    with _lock:
        _ranks[database, order] = (catalogue, table)
    return table


def key_of(table: array[int], printing_id: int, item_id: int) -> int | None:
    """The sort key of an item, or None when the ranks do not know its printing (or its id is
    beyond a key's bits)."""
    if printing_id >= len(table) or table[printing_id] < 0 or item_id > ID_MASK:
        return None
    return (table[printing_id] << ID_BITS) | item_id


def sorted_keys(table: array[int], rows: Sequence[Any], largest_id: int) -> array[int] | None:
    """The sort keys of the (item id, printing id) ``rows``, in order; None when a row is beyond
    the ranks (a printing they do not know; ``largest_id``, the largest item id there is, beyond
    a key's bits): the caller sorts in SQL."""
    if largest_id > ID_MASK:
        return None
    try:
        keys = [(table[pid] << ID_BITS) | item_id for item_id, pid in rows]
    except IndexError:
        return None
    keys.sort()
    if keys and keys[0] < 0:  # a printing the ranks do not know (a rank of -1 sorts first)
        return None
    return array("q", keys)
