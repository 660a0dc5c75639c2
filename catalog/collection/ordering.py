"""Where each printing stands in a collection page's order, once per catalogue.

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

Both orders use them: set order too, where counting a large collection's items per set took
a join of every item with its printing (PostgreSQL 50–70 ms for 50,000 items; read as pairs and
sorted by ranks: 20–25 ms). The items' (id, printing id) pairs are read as one text the
database joins and numpy parses and sorts (:func:`id_pairs`, :func:`sorted_keys`).

Ranking costs a sort of the printings in the database (300–450 ms for 100,000 on this machine:
n log n), so it is paid after each import: :func:`store_ranks` keeps them in ``printing_order``
(``lunzang import`` calls it once the import has committed), and a process reads them from there
(a few ms). When the stored ranks are not of the catalogue as it is, the first large collection
placed makes them in memory (a GET never writes them); a small collection (fewer items than
:data:`RANKED_FROM`) is not worth that: it is counted by set, or its items (read once) sorted
by id in SQL.
"""

from __future__ import annotations

import threading
from array import array
from typing import Any

from sqlalchemy import BigInteger, String, delete, func, literal, literal_column, select
from sqlmodel import Session

from catalog.models import Card, CardSet, Game, Printing, PrintingOrder, table_of
from catalog.models.columns import CARD, GAME, PRINTING, SET

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

ORDERED = table_of(PrintingOrder).c

_ranks: dict[tuple[str, str], tuple[Any, array[int]]] = {}  # (database, order) → (catalogue key, ranks)
_lock = threading.Lock()


def cache_clear() -> None:
    with _lock:
        _ranks.clear()


def ranks(session: Session, database: str, order: str, catalogue: Any, *, make: bool = True) -> array[int] | None:
    """Printing id → its dense rank in ``order`` (array index), for the catalogue named by
    ``catalogue`` (every game's catalogue_version, read in this transaction); None when the
    catalogue has more printings than a key can rank, or (``make`` False) when they are not
    made yet."""
    with _lock:
        found = _ranks.get((database, order))
    if found is not None and found[0] == catalogue:
        return found[1]
    table = _stored(session, order, catalogue)
    if table is None and not make:
        return None
    if table is None:
        table = made_ranks(session, order)
    if table is not None:
        with _lock:
            _ranks[database, order] = (catalogue, table)
    return table


def catalogue_text(catalogue: Any) -> str:
    """``catalogue`` (the sorted (game, catalogue_version) pairs) as stored with the ranks."""
    return ";".join(f"{slug}={version}" for slug, version in catalogue)


def _stored(session: Session, order: str, catalogue: Any) -> array[int] | None:
    """The ranks :func:`store_ranks` stored for ``catalogue``, if they are of it."""
    import numpy as np

    found = session.execute(
        select(ORDERED.ranks).where(ORDERED.sort == order, ORDERED.catalogue == catalogue_text(catalogue))
    ).first()
    if found is None:
        return None
    table = array("q")
    table.frombytes(np.frombuffer(found[0], dtype="<i4").astype(np.int64).tobytes())
    return table


def store_ranks(*, session: Session, unless_current: bool = False) -> dict[str, int]:
    """Make the ranks of every printing in each order and store them (:class:`PrintingOrder`),
    so that no process has to sort the catalogue before it can place a large collection: run
    after each import of the catalogue, in a transaction of its own (the caller's). Returns the
    printings ranked per order (0: none, or more than a key can rank; nothing stored then);
    ``unless_current``: nothing done (and nothing returned) when every order stored is of the
    catalogue as it is (an import that changed nothing)."""
    import numpy as np

    # The versions first, then the ranks: should another import commit in between, the ranks
    # are newer than the versions they are stored for and are never used (no page asks for
    # those versions again); the other way round, old ranks would be taken for the new ones.
    catalogue = tuple(sorted(session.execute(select(GAME.slug, GAME.catalogue_version)).all()))
    if unless_current:
        stored = set(session.scalars(select(ORDERED.sort).where(ORDERED.catalogue == catalogue_text(catalogue))))
        if stored == set(ORDER_KEYS):
            return {}
    counts: dict[str, int] = {}
    for order in ORDER_KEYS:
        table = made_ranks(session, order)
        session.execute(delete(PrintingOrder).where(ORDERED.sort == order))
        counts[order] = 0
        if table is not None:
            data = np.frombuffer(table, dtype=np.int64).astype("<i4").tobytes()
            session.add(PrintingOrder(sort=order, catalogue=catalogue_text(catalogue), ranks=data))
            counts[order] = sum(1 for rank in table if rank >= 0)
    session.flush()
    return counts


def made_ranks(session: Session, order: str) -> array[int] | None:
    """The ranks of every printing in ``order``, read from the catalogue now (one sort of the
    printings in the database); None when there are none, or more than a key can rank."""
    import numpy as np

    ranked = (
        select(PRINTING.id, func.dense_rank().over(order_by=ORDER_KEYS[order]).label("rank"))
        .select_from(Printing)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .subquery()
    )
    # A rank is at least 1 and at most the number of printings: within their ids' range.
    pairs, _sums = id_pairs(session, select(ranked.c.id, ranked.c.rank), within=(PRINTING.id, PRINTING.id))
    if not len(pairs) or pairs[:, 1].max() > MAX_RANK:
        return None
    ranks = np.full(int(pairs[:, 0].max()) + 1, -1, dtype=np.int64)  # -1: not a printing ranked
    ranks[pairs[:, 0]] = pairs[:, 1]
    table = array("q")
    table.frombytes(ranks.tobytes())
    return table


def key_of(table: array[int], printing_id: int, item_id: int) -> int | None:
    """The sort key of an item, or None when the ranks do not know its printing (or its id is
    beyond a key's bits)."""
    if printing_id >= len(table) or table[printing_id] < 0 or item_id > ID_MASK:
        return None
    return (table[printing_id] << ID_BITS) | item_id


# id_pairs packs each pair into one integer, first << PAIR_BITS | second, while both fit.
PAIR_BITS = 32
PAIR_MASK = (1 << PAIR_BITS) - 1
PAIR_FIRST_MAX = (1 << (63 - PAIR_BITS)) - 1


def id_pairs(session: Session, statement: Any, *sums: Any, within: tuple[Any, Any]) -> tuple[Any, tuple[int, ...]]:
    """The (item id, printing id) rows ``statement`` selects (its two columns), as a numpy array
    of shape (n, 2). Tens of thousands of rows are read as one text the database joins
    (``group_concat`` / ``string_agg``) and numpy parses: on 50,000 items a third of fetching
    them row by row (a Python tuple per row is the cost).

    Each pair travels as one integer, ``first << 32 | second``: half the numbers to write and
    parse, and no text casts, which SQLite makes slowly (50,000 items, medians of the query
    alone taking turns, session 9: SQLite 35.6 → 21.1 ms, PostgreSQL 28.7 → 20.0, against
    ``CAST(a AS TEXT) || ',' || CAST(b AS TEXT)``). ``within``: for each column, a primary key
    whose smallest and largest values bound it (the item's id, the printing's id); both ends
    are read in the same statement from the keys' indexes, not from every row (min and max over
    the rows cost SQLite half as much again). Should a value not fit — ids past 2**31, which
    PostgreSQL's integer keys never reach — the pairs are read again as two numbers each.
    ``sums``: columns summed over the same rows in the same pass, returned beside the pairs."""
    import numpy as np  # here, not at the top: the command line and app start without numpy

    first, second = statement.selected_columns
    postgresql = session.get_bind().dialect.name == "postgresql"
    packed = (func.cast(first, BigInteger) if postgresql else first).op("<<")(literal_column(str(PAIR_BITS)))
    packed = packed.op("|")(second)
    # PostgreSQL sends each integer's 8 bytes as they are (int8send: big-endian), no text at all.
    joined = func.string_agg(func.int8send(packed), literal(b"")) if postgresql else func.group_concat(packed)
    ends = [select(bound(key)).correlate(None).scalar_subquery() for key in within for bound in (func.min, func.max)]
    text, *rest = session.execute(
        statement.with_only_columns(joined, *ends, *(func.coalesce(func.sum(column), 0) for column in sums))
    ).one()
    totals = tuple(int(value) for value in rest[4:])
    if not text:
        return np.zeros((0, 2), dtype=np.int64), totals
    low_first, high_first, low_second, high_second = (int(value) for value in rest[:4])
    if low_first < -PAIR_FIRST_MAX or high_first > PAIR_FIRST_MAX or low_second < 0 or high_second > PAIR_MASK:
        return _pairs_unpacked(session, statement, first, second, postgresql), totals
    if postgresql:
        if len(text) % 8:
            raise ValueError("the (item, printing) pairs did not parse")
        numbers = np.frombuffer(text, dtype=">i8").astype(np.int64)
    else:
        numbers = np.fromstring(text, dtype=np.int64, sep=",")  # text mode: not the deprecated binary one
        if len(numbers) != text.count(",") + 1:
            raise ValueError("the (item, printing) pairs did not parse")
    return np.stack((numbers >> PAIR_BITS, numbers & PAIR_MASK), axis=1), totals


def _pairs_unpacked(session: Session, statement: Any, first: Any, second: Any, postgresql: bool) -> Any:
    """:func:`id_pairs` for ids too large to pack: each pair as two numbers of the text."""
    import numpy as np

    pair = func.cast(first, String) + "," + func.cast(second, String)
    joined = func.string_agg(pair, ",") if postgresql else func.group_concat(pair)
    text = session.execute(statement.with_only_columns(joined)).scalar_one()
    numbers = np.fromstring(text, dtype=np.int64, sep=",")
    if len(numbers) != text.count(",") + 1 or len(numbers) % 2:
        raise ValueError("the (item, printing) pairs did not parse")
    return numbers.reshape(-1, 2)


def sorted_keys(table: array[int], pairs: Any) -> array[int] | None:
    """The sort keys of the (item id, printing id) ``pairs`` (:func:`id_pairs`), in order; None
    when a pair is beyond the ranks (a printing they do not know, an item id beyond a key's
    bits): the caller sorts in SQL."""
    import numpy as np

    if not len(pairs):
        return array("q")
    item_ids, printing_ids = pairs[:, 0], pairs[:, 1]
    if item_ids.max() > ID_MASK or printing_ids.min() < 0 or printing_ids.max() >= len(table):
        return None
    item_ranks = np.frombuffer(table, dtype=np.int64)[printing_ids]
    if item_ranks.min() < 0:  # a printing the ranks do not know
        return None
    keys = np.sort((item_ranks << ID_BITS) | item_ids)
    out = array("q")
    out.frombytes(keys.astype(np.int64, copy=False).tobytes())
    return out
