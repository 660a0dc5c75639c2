"""The collection page's items (issue 6 §6): one page of a user's items, in set or name order.

Speed (issue 17: any page ≤ 50 ms for 50,000 items over 100,000 printings, SQLite and
PostgreSQL). The page's 50 rows are cheap; placing them is not: a page in set order needs every
matching item counted per set, a page in name order every matching item sorted by its card's
pinyin (30–250 ms measured), for numbers that change only when the collection, the catalogue or
the filter does. Every change of a quantity or of a quantity for trade writes a ledger row in
the same transaction (:mod:`catalog.collection.ledger`), so the id of the user's newest ledger
row (:func:`collection_version`, one index probe) names the state those counts come from. They
are kept per (database, user, that version, every game's ``catalogue_version``, filters, order):
the counts per set in set order, the ordered item ids in name order. A page then reads only its
own rows. Everything in the key is read in the request's transaction, so a page never uses
counts older than what its transaction sees, and several servers need agree on nothing held in
memory (DESIGN §9), as with the search tiles and the deck pools.

A change makes a new version, yet most changes leave every placing as it was: +1 on an item
owned moves no item into or out of any page. So a miss first looks at the newest placing kept
of the same page and the ledger rows since (:func:`changes_between`, one index range): if no
item changed entered or left the page's selection, that placing serves as it is; items that
left it (fallen to 0; no longer for trade, on a trade-only page) are taken out; only an item
entering it (a new card, 0 → 1) places the items anew. The totals move by the same rows.

Placing from nothing (the first open since such a change, a new process) reads the matching
items once as (id, printing) pairs and sorts them by the catalogue's ranks, stored after each
import (:mod:`catalog.collection.ordering`); reading every item, it sums the totals in the same
pass. A filter that reads only the catalogue is evaluated once per catalogue version: its
printings are kept, the items read unfiltered and filtered by them.

A search-language filter (``printing_ids``) is kept only when the caller names it with
``filter_key``: the caller knows whether it reads anything the ledger does not version
(``want>0`` reads the wants: :func:`filter_key_of` gives None); one reading quantities
(``own>2``) is kept, but never carried past a change.
"""

from __future__ import annotations

import bisect
import json
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, any_, bindparam, distinct, func, or_, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session

from catalog.collection import ordering as order_ranks
from catalog.collection.grades import ItemGrade
from catalog.collection.tables import CARD, GAME, ITEM, LEDGER, PRINTING, SET
from catalog.models import Card, CardSet, CollectionItem, Game, Printing
from catalog.text import fold

MAX_PER_PAGE = 500

# What is kept per process: at most this many entries, and at most this many item ids in all
# (name order keeps every matching id: 8 bytes each, so ~16 MB at the bound).
CACHE_ENTRIES = 512
CACHE_IDS = 2_000_000
# A kept placing serves a newer version when no item changed in between entered or left it;
# looking costs two small queries, worth it up to this many changed items.
MAX_CHANGES = 200


@dataclass(frozen=True)
class ItemRow:
    printing_id: int
    card_id: int
    game: str
    set: str
    number: str
    name: str
    rarity: str
    grade: ItemGrade
    quantity: int
    for_trade: int
    note: str


@dataclass(frozen=True)
class Totals:
    printings: int  # distinct printings owned
    cards: int  # copies in all
    for_trade: int  # copies offered for trade


def totals_key(database: str, user_id: int) -> Hashable:
    """What a user's :class:`Totals` are kept as (per collection version, with the placings)."""
    return ("totals", database, user_id)


def totals(*, session: Session, user_id: int, version: int | None = None) -> Totals:
    """The user's totals; kept per collection version (see :mod:`catalog.collection.listing`):
    ``version`` when the caller has read it in this transaction already."""
    what = totals_key(database_of(session), user_id)
    version = collection_version(session, user_id) if version is None else version
    found = kept(what, version)
    if found is None:
        found = _totals_since(session, user_id, what, version)
    if found is not None:
        keep(what, version, found)
        return found
    c = ITEM
    row = session.execute(
        select(
            func.count(distinct(c.printing_id)),
            func.coalesce(func.sum(c.quantity), 0),
            func.coalesce(func.sum(c.for_trade), 0),
        ).where(c.user_id == user_id, c.quantity > 0)
    ).one()
    result = Totals(int(row[0]), int(row[1]), int(row[2]))
    keep(what, version, result)
    return result


def _totals_since(session: Session, user_id: int, what: Any, version: int) -> Totals | None:
    """The totals of an older collection version moved on by the changes since (cheaper than
    summing every item again), if such totals are kept."""
    older = kept_before(what, version)
    changes = changes_between(session, user_id, older[0], version) if older is not None else None
    if older is None or changes is None:
        return None
    then: Totals = older[1]
    owned_now = {ch.printing_id for ch in changes if ch.quantity > 0}
    owned_then = {ch.printing_id for ch in changes if ch.quantity_then > 0}
    return Totals(
        then.printings + len(owned_now) - len(owned_then),
        then.cards + sum(ch.quantity - ch.quantity_then for ch in changes),
        then.for_trade + sum(ch.for_trade - ch.for_trade_then for ch in changes),
    )


@dataclass(frozen=True)
class Page:
    items: list[ItemRow]
    total: int
    page: int
    per_page: int
    collection_version: int = 0  # read in the page's transaction: keys of what is kept for it
    catalogue_versions: dict[str, str] = field(default_factory=dict)  # game → its catalogue_version


@dataclass(frozen=True)
class _Placing:
    """Where every matching item stands in the page order: either every item id in that order
    (``ids``, sorted in SQL; or ``keys``, sorted by the catalogue's ranks: see
    :mod:`catalog.collection.ordering`), or (set order, no search filter) the item count of
    each group of sets — sets sharing a game and a position interleave by number — with each
    group's ordered ids read when a page first falls in it."""

    total: int
    ids: array[int] | None = None
    keys: array[int] | None = None  # rank << ID_BITS | item id, in order
    groups: tuple[tuple[tuple[int, ...], int], ...] = ()  # ((set ids), matching items), in page order
    group_ids: dict[int, array[int]] = field(default_factory=dict)  # group index → its ordered item ids

    @property
    def weight(self) -> int:
        """The item ids it holds, or may come to hold."""
        return self.total

    def moved(self, gone: dict[int, int], entered: dict[int, tuple[int, int | None]]) -> _Placing | None:
        """This placing less the items ``gone`` (item id → its printing's set id), which it
        holds, and with the items ``entered`` (item id → (set id, sort key or None)), which it
        does not; None when it cannot take them in (placed in SQL: place anew)."""
        placing = self.without(gone) if gone else self
        if not entered:
            return placing
        if placing.keys is not None:
            keys = array("q", placing.keys)
            for _set_id, key in entered.values():
                if key is None:
                    return None
                bisect.insort(keys, key)
            return _Placing(len(keys), keys=keys)
        if placing.ids is not None:
            return None
        group_of = {set_id: index for index, (members, _count) in enumerate(placing.groups) for set_id in members}
        counts = [count for _members, count in placing.groups]
        group_ids = dict(placing.group_ids)
        for set_id, _key in entered.values():
            index = group_of[set_id]  # KeyError: the first item of a set: place anew
            counts[index] += 1
            group_ids.pop(index, None)  # read again when a page falls in it
        groups = tuple((members, count) for (members, _old), count in zip(placing.groups, counts, strict=True))
        return _Placing(placing.total + len(entered), groups=groups, group_ids=group_ids)

    def without(self, gone: dict[int, int]) -> _Placing:
        """This placing less the items ``gone`` (item id → its printing's set id), which it holds."""
        if self.keys is not None:
            import numpy as np

            every = np.frombuffer(self.keys, dtype=np.int64)
            left = every[~np.isin(every & order_ranks.ID_MASK, np.fromiter(gone, dtype=np.int64, count=len(gone)))]
            if len(left) != len(every) - len(gone):
                raise ValueError("an item gone was not in the placing")
            keys = array("q")
            keys.frombytes(left.tobytes())
            return _Placing(len(keys), keys=keys)
        if self.ids is not None:
            ids = array("q", self.ids)
            for item_id in gone:
                del ids[ids.index(item_id)]
            return _Placing(len(ids), ids=ids)
        group_of = {set_id: index for index, (members, _count) in enumerate(self.groups) for set_id in members}
        counts = [count for _members, count in self.groups]
        group_ids = dict(self.group_ids)
        for item_id, set_id in gone.items():
            index = group_of[set_id]
            counts[index] -= 1
            if index in group_ids:
                group_ids[index] = kept_ids = array("q", group_ids[index])
                del kept_ids[kept_ids.index(item_id)]
        groups = tuple((members, count) for (members, _old), count in zip(self.groups, counts, strict=True))
        return _Placing(self.total - len(gone), groups=groups, group_ids=group_ids)

    def page_ids(self, offset: int, per_page: int, read_group: Callable[[tuple[int, ...]], array[int]]) -> list[int]:
        """The ids of items ``offset`` to ``offset + per_page``; ``read_group`` reads the ordered
        ids of a group of sets not read before."""
        if self.keys is not None:
            return [key & order_ranks.ID_MASK for key in self.keys[offset : offset + per_page]]
        if self.ids is not None:
            return list(self.ids[offset : offset + per_page])
        out: list[int] = []
        before = 0
        for index, (members, count) in enumerate(self.groups):
            if before + count > offset and len(out) < per_page:
                ids = self.group_ids.get(index)
                if ids is None:
                    ids = self.group_ids.setdefault(index, read_group(members))
                start = max(0, offset - before)
                out.extend(ids[start : start + per_page - len(out)])
            before += count
        return out


_kept: OrderedDict[tuple[Hashable, int], tuple[Any, int]] = OrderedDict()  # (what, version) → (value, weight)
_newest: dict[Hashable, int] = {}  # what → the newest version kept of it
_kept_weight = 0
_kept_lock = threading.Lock()


def cache_clear(*, ranks: bool = True, placings_only: bool = False) -> None:
    """Forget every kept placing and total (tests that empty a database under a running process),
    and the catalogue's ranks unless ``ranks`` is False. ``placings_only``: forget the placings
    alone, keeping the totals and search filters' printings (benchmarks: a page whose placing
    the cache let go, in a process that has shown the collection before)."""
    global _kept_weight
    if ranks and not placings_only:
        order_ranks.cache_clear()
    with _kept_lock:
        if placings_only:
            for what, version in [(w, v) for w, v in _kept if isinstance(w, tuple) and w[0] == "placing"]:
                _kept_weight -= _kept.pop((what, version))[1]
                if _newest.get(what) == version:
                    del _newest[what]
            return
        _kept.clear()
        _newest.clear()
        _kept_weight = 0


def kept(what: Hashable, version: int) -> Any:
    """What :func:`keep` kept of ``what`` at ``version``, else None."""
    with _kept_lock:
        entry = _kept.get((what, version))
        if entry is None:
            return None
        _kept.move_to_end((what, version))
        return entry[0]


def kept_before(what: Hashable, version: int) -> tuple[int, Any] | None:
    """The newest version of ``what`` kept before ``version`` and its value, if any."""
    with _kept_lock:
        older = _newest.get(what)
        entry = _kept.get((what, older)) if older is not None and older < version else None
        return (older, entry[0]) if older is not None and entry is not None else None


def keep(what: Hashable, version: int, value: Any, weight: int = 1) -> None:
    """Keep ``value`` (``weight``: the item ids it holds) of ``what`` at ``version``, in place of
    an older version's (versions only grow: pages ask for the newest), the least recently used
    going first."""
    global _kept_weight
    with _kept_lock:
        newest = _newest.get(what)
        if newest is not None and newest >= version:
            return
        if newest is not None:
            _value, old_weight = _kept.pop((what, newest), (None, 0))
            _kept_weight -= old_weight
        _kept[what, version] = (value, weight)
        _newest[what] = version
        _kept_weight += weight
        while len(_kept) > CACHE_ENTRIES or (_kept_weight > CACHE_IDS and len(_kept) > 1):
            (old, old_version), (_value, old_weight) = _kept.popitem(last=False)
            _kept_weight -= old_weight
            if _newest.get(old) == old_version:
                del _newest[old]


@dataclass(frozen=True)
class ItemChange:
    """One item of a printing changed between two collection versions, then and now."""

    item_id: int
    printing_id: int
    quantity: int
    for_trade: int
    quantity_then: int
    for_trade_then: int


ITEM_GRADE = (ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish)


def changes_between(session: Session, user_id: int, then: int, now: int) -> list[ItemChange] | None:
    """Every item of the printings whose quantities changed between collection versions ``then``
    and ``now`` (by the ledger rows in between: they sum to each change), the unchanged grades of
    those printings too; None when more than MAX_CHANGES items changed (placing anew is then
    as cheap)."""
    grades = (LEDGER.printing_id, LEDGER.condition, LEDGER.language, LEDGER.finish)
    changed = session.execute(
        select(*grades, func.sum(LEDGER.delta), func.sum(LEDGER.trade_delta))
        .where(LEDGER.user_id == user_id, LEDGER.id > then, LEDGER.id <= now)
        .group_by(*grades)
        .limit(MAX_CHANGES + 1)
    ).all()
    if len(changed) > MAX_CHANGES:
        return None
    deltas = {(p, c, lang, f): (dq, dt) for p, c, lang, f, dq, dt in changed}
    items = session.execute(
        select(*ITEM_GRADE, ITEM.id, ITEM.quantity, ITEM.for_trade).where(
            ITEM.user_id == user_id, ITEM.printing_id.in_(sorted({key[0] for key in deltas}))
        )
    ).all()
    out = []
    for p, c, lang, f, item_id, quantity, for_trade in items:
        dq, dt = deltas.get((p, c, lang, f), (0, 0))
        out.append(ItemChange(item_id, p, quantity, for_trade, quantity - int(dq), for_trade - int(dt)))
    return out


@dataclass(frozen=True)
class SearchFilter:
    """The ``filter_key`` of a search-language filter (see :func:`filter_key_of`)."""

    text: str
    game: str
    reads_quantities: bool  # own / trade terms: whether an item matches depends on quantities


def filter_key_of(text: str, game: str | None) -> SearchFilter | None:
    """The ``filter_key`` of a search-language filter over the collection (what
    :func:`catalog.search.printing_ids_matching` selects for ``text`` in ``game``), or None
    when the query reads the wants (``want>0``), which change without a ledger row."""
    from catalog.search.keys import lookup
    from catalog.search.parser import And, Not, Or, parse

    def keys(node: Any) -> set[str]:
        if isinstance(node, And | Or):
            return set().union(*(keys(item) for item in node.items))
        if isinstance(node, Not):
            return keys(node.item)
        found = lookup(node.key) if node.key else None
        return {found.name} if found is not None else set()

    query = parse(text)
    used = keys(query.root) if query.root is not None else set()
    if "want" in used:
        return None
    return SearchFilter(text, game or "", bool(used & {"own", "trade"}))


def collection_version(session: Session, user_id: int) -> int:
    """The id of the user's newest ledger row (0 before the first): changes with every change of
    a quantity or of a quantity for trade."""
    return session.scalar(select(func.max(LEDGER.id)).where(LEDGER.user_id == user_id)) or 0


def database_of(session: Session) -> str:
    return session.get_bind().engine.url.render_as_string(hide_password=False)


def collection_page(
    *,
    session: Session,
    user_id: int,
    query: str | None = None,
    set_code: str | None = None,
    game: str | None = None,
    for_trade_only: bool = False,
    page: int = 1,
    per_page: int = 50,
    printing_ids: Any = None,
    filter_key: Hashable | None = None,
    order: str = "set",
) -> Page:
    """The user's items (quantity > 0), by game, set and number; ``query`` matches card names
    (folded, pinyin too) or a set code; ``set_code`` / ``game`` narrow further.

    ``printing_ids`` (a ``SELECT`` of printing ids, e.g. from
    :func:`catalog.search.printing_ids_matching`) keeps only the items of those printings: the
    search language (``a:火 r>=UR``) over a collection. ``filter_key`` names what it selects
    (e.g. the query text and game) when the selection depends on nothing but the catalogue and
    the user's quantities: the placing of the items is then kept (module docstring); without it
    such a filtered page is placed anew each time.

    ``order``: ``"set"`` (game, set, collector number) or ``"name"`` (pinyin of the card name)."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    selection: list[Any] = [ITEM.user_id == user_id]  # every filter but the quantities
    needs: set[str] = set()  # the tables the filters read, besides the items
    if query and query.strip():
        key = fold(query)
        selection.append(
            or_(
                CARD.name_key.contains(key),
                CARD.pinyin.contains(key),
                CARD.initials == key,
                SET.code_key == key,
            )
        )
        needs |= {"card", "set"}
    if set_code:
        selection.append(SET.code_key == fold(set_code))
        needs.add("set")
    if game:
        selection.append(GAME.slug == game)
        needs |= {"set", "game"}
    searched = ITEM.printing_id.in_(printing_ids) if printing_ids is not None else None
    if searched is not None:
        selection.append(searched)
    conditions = [*selection, ITEM.quantity > 0, *([ITEM.for_trade > 0] if for_trade_only else [])]
    if order == "name":
        ordering: tuple[Any, ...] = (CARD.pinyin, CARD.name, GAME.slug, SET.position, PRINTING.number, ITEM.id)
        order_needs = {"card", "set", "game"}
    else:
        ordering = (GAME.slug, SET.position, PRINTING.number, ITEM.id)
        order_needs = {"set", "game"}
    placing: _Placing | None = None
    what: Hashable = None
    catalogue = dict(session.execute(select(GAME.slug, GAME.catalogue_version)).all())
    catalogue_key = tuple(sorted(catalogue.items()))
    database = database_of(session)
    version = collection_version(session, user_id)
    if printing_ids is None or filter_key is not None:
        filters = (fold(query or ""), fold(set_code or ""), game or "", for_trade_only, filter_key)
        what = ("placing", database, user_id, catalogue_key, filters, order)
        placing = kept(what, version)
        unread = printing_ids is None or (isinstance(filter_key, SearchFilter) and not filter_key.reads_quantities)
        if placing is None and unread:  # the selection reads no quantities beyond quantity > 0
            selected = _joined(select(ITEM.id, PRINTING.set_id, ITEM.printing_id), needs | {"printing"})
            placing = _moved_on(
                session,
                user_id,
                (what, version),
                for_trade_only,
                selected.where(*selection),
                lambda: order_ranks.ranks(session, database, order, catalogue_key),
            )
    ordered_ids = _joined(select(ITEM.id), needs | order_needs).where(*conditions).order_by(*ordering)
    if placing is None:
        # A search filter is evaluated once here, never again per page; one that reads only the
        # catalogue, once per catalogue version (its matching printings kept: the items are
        # then read unfiltered and filtered by them). Every item read: the collection's totals
        # come with it (the page shows them next).
        matching = None
        if isinstance(filter_key, SearchFilter) and not filter_key.reads_quantities:
            matching = _matching_printings(session, (database, catalogue_key, filter_key), printing_ids)
        read = conditions if matching is None else [c for c in conditions if c is not searched]
        if matching is not None and _few(matching, database, user_id, version):
            # Few printings against the collection: only their items are read (by the unique
            # index on user and printing) instead of every item filtered here.
            read, matching = [*read, id_in(session, ITEM.printing_id, matching)], None
        whole = not needs and len(read) == 2 and not for_trade_only  # needs: query, set, game
        placing, sums = _place(
            session,
            _joined(select(ITEM.id, ITEM.printing_id), needs).where(*read),
            (ITEM.quantity, ITEM.for_trade) if whole else (),
            matching,
            lambda: order_ranks.ranks(session, database, order, catalogue_key, make=False),
            lambda: order_ranks.ranks(session, database, order, catalogue_key),
            lambda ids: _joined(select(ITEM.id), order_needs).where(ITEM.id.in_(ids)).order_by(*ordering),
            ordered_ids,
            None if order == "name" or printing_ids is not None else lambda: _place_by_set(session, conditions, needs),
        )
        if sums is not None and kept(totals_key(database, user_id), version) is None:
            keep(totals_key(database, user_id), version, sums)
    if what is not None:
        keep(what, version, placing, placing.weight)
    offset = (page - 1) * per_page
    columns = (
        ITEM.printing_id,
        PRINTING.card_id,
        GAME.slug,
        SET.code,
        PRINTING.number,
        CARD.name,
        PRINTING.rarity,
        ITEM.condition,
        ITEM.language,
        ITEM.finish,
        ITEM.quantity,
        ITEM.for_trade,
        ITEM.note,
    )
    rows: Sequence[Any] = []
    if placing.total > offset:
        # Only the sets the page falls in are sorted, once a version (a deep page costs what
        # page 1 does); the page's rows are then read by id.
        page_ids = placing.page_ids(
            offset,
            per_page,
            lambda set_ids: array("q", session.scalars(ordered_ids.where(PRINTING.set_id.in_(set_ids)))),
        )
        shown = _joined(select(*columns), {"card", "set", "game"})
        if page_ids:
            rows = session.execute(shown.where(ITEM.id.in_(page_ids)).order_by(*ordering)).all()
    items = [
        ItemRow(pid, card_id, slug, code, number, name, rarity, ItemGrade(cond, lang, finish), qty, trade, note)
        for pid, card_id, slug, code, number, name, rarity, cond, lang, finish, qty, trade, note in rows
    ]
    return Page(items, placing.total, page, per_page, version, catalogue)


def _moved_on(
    session: Session,
    user_id: int,
    kept_as: tuple[Hashable, int],
    for_trade_only: bool,
    selected: Any,
    rank_table: Callable[[], array[int] | None],
) -> _Placing | None:
    """An older version's placing moved on to ``version``: as it was when no item changed since
    entered or left the page's selection (+1 on an item owned), less the items that left it (a
    quantity fallen to 0; a quantity for trade, when the page shows only those), with the items
    that entered it (a new card) where they go when the placing can say (:meth:`_Placing.moved`);
    None when it cannot or when no older placing is kept. ``selected``: the items' (id, set id,
    printing id) under the page's filters other than the quantities; ``rank_table``: the
    catalogue's ranks in the page's order (sort keys of the items entering)."""
    what, version = kept_as
    older = kept_before(what, version)
    changes = changes_between(session, user_id, older[0], version) if older is not None else None
    if older is None or changes is None:
        return None
    placing: _Placing = older[1]

    def shown(quantity: int, for_trade: int) -> bool:
        return quantity > 0 and (for_trade > 0 or not for_trade_only)

    moved = [ch for ch in changes if shown(ch.quantity, ch.for_trade) != shown(ch.quantity_then, ch.for_trade_then)]
    if not moved:
        return placing
    rows = session.execute(selected.where(ITEM.id.in_([ch.item_id for ch in moved])))
    matching = {item_id: (set_id, printing_id) for item_id, set_id, printing_id in rows}
    gone: dict[int, int] = {}
    entered: dict[int, tuple[int, int | None]] = {}
    for change in moved:
        if change.item_id not in matching:
            continue  # not on these pages, then or now
        set_id, printing_id = matching[change.item_id]
        if not shown(change.quantity, change.for_trade):
            gone[change.item_id] = set_id
        elif placing.keys is not None:
            table = rank_table()
            key = None if table is None else order_ranks.key_of(table, printing_id, change.item_id)
            entered[change.item_id] = (set_id, key)
        else:
            entered[change.item_id] = (set_id, None)
    try:
        return placing.moved(gone, entered)
    except (ValueError, KeyError):  # not where it was said to be: place anew
        return None


# A search filter's printings are looked up item by item when they are at most PROBE_MAX and
# at most 1/PROBE_RATIO of the collection's distinct printings; else every item is read and
# filtered by them. Measured on 50,000 items of 100,000 printings (session 8, load ~3): 2,498
# printings (a:火 r>=UR) SQLite 9.5 ms looked up against 68 read and filtered, PostgreSQL 18
# against 71; 49,848 (r>=R) SQLite 139 against 46, PostgreSQL 216 against 97. A lookup costs
# ~3–8 µs a printing, reading ~1 µs an item.
PROBE_MAX = 10_000
PROBE_RATIO = 6


def _few(matching: Any, database: str, user_id: int, version: int) -> bool:
    """Whether a search filter's ``matching`` printings are few enough to look up item by item
    (:data:`PROBE_MAX`, :data:`PROBE_RATIO`) against the collection's size, known when its
    totals are kept. When they are not, every item is read, and the totals summed in the same
    pass: summing them apart first costs SQLite as much as reading every item (count distinct)."""
    if len(matching) > PROBE_MAX:
        return False
    known = kept(totals_key(database, user_id), version)
    return known is not None and len(matching) * PROBE_RATIO <= known.printings


def id_in(session: Session, column: Any, ids: Any) -> Any:
    """``column`` is one of ``ids`` (a numpy array of ints), the ids bound as one value: a
    PostgreSQL array (``= ANY``), a JSON array SQLite reads with ``json_each``. Not an ``IN``
    list of thousands of parameters, which SQLAlchemy compiles anew each time."""
    values = ids.tolist()
    if session.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam("ids", values, type_=ARRAY(BigInteger)))
    listed = func.json_each(bindparam("ids", json.dumps(values))).table_valued("value")
    return column.in_(select(listed.c.value))


def _matching_printings(session: Session, what: Hashable, printing_ids: Any) -> Any:
    """The printing ids ``printing_ids`` selects, sorted (a numpy array), kept as ``what`` (the
    database, the catalogue versions and the filter: it reads nothing else)."""
    import numpy as np

    found = kept(("matches", what), 0)
    if found is None:
        found = np.unique(np.fromiter(session.scalars(printing_ids), dtype=np.int64))
        keep(("matches", what), 0, found, len(found))
    return found


def _place(
    session: Session,
    selected: Any,
    sums: tuple[Any, Any] | tuple[()],
    matching: Any,
    ranks_kept: Callable[[], array[int] | None],
    ranks_made: Callable[[], array[int] | None],
    sorted_in_sql: Callable[[list[int]], Any],
    ordered: Any,
    by_set: Callable[[], _Placing] | None,
) -> tuple[_Placing, Totals | None]:
    """Every matching item in the page order. ``selected``: the matching items' (id, printing
    id), read once. Sorted by the catalogue's ranks (:mod:`catalog.collection.ordering`) when
    they are at hand (``ranks_kept``: in memory or stored) or worth making (``ranks_made``: a
    collection of RANKED_FROM items or more); else a small collection is counted by set
    (``by_set``, set order without a search filter) or its items sorted in SQL by id
    (``sorted_in_sql``), the filter not evaluated again; ``ordered`` selects every matching
    id in order (a large collection the ranks cannot key). ``sums``: the quantity and
    quantity-for-trade columns when ``selected`` reads every item of the collection, whose
    :class:`Totals` are then returned too (else None); ``matching``: the printings (sorted ids)
    a search filter ``selected`` does not apply keeps, else None."""
    import numpy as np

    pairs, summed = order_ranks.id_pairs(session, selected, *sums, within=(ITEM.id, PRINTING.id))
    totals = None
    if sums:
        # Distinct printings by a sort (0.7 ms for 50,000; numpy's unique hashes: 13 ms).
        printings = np.sort(pairs[:, 1])
        totals = Totals(int(np.count_nonzero(printings[1:] != printings[:-1])) + min(1, len(printings)), *summed)
    if matching is not None:
        pairs = pairs[np.isin(pairs[:, 1], matching, assume_unique=False)]
    table = ranks_kept() if len(pairs) < order_ranks.RANKED_FROM else ranks_made()
    keys = order_ranks.sorted_keys(table, pairs) if table is not None else None
    if keys is not None:
        return _Placing(len(keys), keys=keys), totals
    if by_set is not None:
        return by_set(), totals
    ids = pairs[:, 0].tolist()
    if len(ids) > order_ranks.RANKED_FROM:  # a catalogue the ranks cannot key (rare): the query again
        return _Placing(len(ids), ids=array("q", session.scalars(ordered))), totals
    return _Placing(len(ids), ids=array("q", session.scalars(sorted_in_sql(ids)))), totals


def _place_by_set(session: Session, conditions: list[Any], tables: set[str]) -> _Placing:
    """The matching items counted per group of sets, the groups in set order."""
    # Counted by the printing's set alone (joining the sets and games for every item cost a
    # third more); where each set stands comes from the few set rows.
    counts = session.execute(
        _joined(select(PRINTING.set_id, func.count(ITEM.id)), tables or {"printing"})
        .where(*conditions)
        .group_by(PRINTING.set_id)
    ).all()
    places = {
        set_id: (slug, position)
        for set_id, slug, position in session.execute(
            select(SET.id, GAME.slug, SET.position).join(Game, GAME.id == SET.game_id)
        )
    }
    groups: dict[tuple[str, int], tuple[list[int], int]] = {}
    for set_id, count in counts:
        members, total = groups.get(places[set_id], ([], 0))
        groups[places[set_id]] = ([*members, set_id], total + int(count))
    ordered = tuple((tuple(members), count) for _key, (members, count) in sorted(groups.items()))
    return _Placing(sum(count for _members, count in ordered), groups=ordered)


def _joined(statement: Any, tables: set[str]) -> Any:
    """``statement`` over the items joined with the printing and ``tables`` (card, set, game)."""
    statement = statement.select_from(CollectionItem)
    if not tables:
        return statement
    statement = statement.join(Printing, PRINTING.id == ITEM.printing_id)
    if "card" in tables:
        statement = statement.join(Card, CARD.id == PRINTING.card_id)
    if "set" in tables or "game" in tables:
        statement = statement.join(CardSet, SET.id == PRINTING.set_id)
    if "game" in tables:
        statement = statement.join(Game, GAME.id == SET.game_id)
    return statement
