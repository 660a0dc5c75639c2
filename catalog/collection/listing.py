"""The collection page's items: one page of a user's items, in set or name order, and the totals.

The page's rows are cheap; placing them is not (:mod:`catalog.collection.placing`). Every change
of a quantity or of a quantity for trade writes a ledger row in the same transaction
(:mod:`catalog.collection.ledger`), so the id of the user's newest ledger row
(:func:`collection_version`, one index probe) names the state the placings come from. They are
kept per (database, user, that version, every game's ``catalogue_version``, filters, order):
the counts per set in set order, the ordered item ids in name order
(:mod:`catalog.collection.kept`). A page then reads only its own rows.

Placing from nothing (the first open since a change that moved items in, a new process) reads
the matching items once as (id, printing) pairs and sorts them by the catalogue's ranks;
reading every item, it sums the totals in the same pass. A filter that reads only the catalogue
is evaluated once per catalogue version: its printings are kept, the items read unfiltered and
filtered by them.

A search-language filter (``printing_ids``) is kept only when the caller names it with
``filter_key``: the caller knows whether it reads anything the ledger does not version
(``want>0`` reads the wants: :func:`filter_key_of` gives None); one reading quantities
(``own>2``) is kept, but never carried past a change.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, any_, bindparam, distinct, func, or_, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session

from catalog.collection import ordering as order_ranks
from catalog.collection.grades import ItemGrade
from catalog.collection.kept import cache_clear, keep, kept, kept_before
from catalog.collection.placing import Placing, changes_between, joined, moved_on, place, place_by_set
from catalog.models.columns import CARD, GAME, ITEM, LEDGER, PRINTING, SET
from catalog.text import fold

__all__ = ["MAX_PER_PAGE", "ItemRow", "Page", "Totals", "cache_clear", "collection_page", "filter_key_of", "totals"]


MAX_PER_PAGE = 500


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
    placing: Placing | None = None
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
            selected = joined(select(ITEM.id, PRINTING.set_id, ITEM.printing_id), needs | {"printing"})
            placing = moved_on(
                session,
                user_id,
                (what, version),
                for_trade_only,
                selected.where(*selection),
                lambda: order_ranks.ranks(session, database, order, catalogue_key),
            )
    ordered_ids = joined(select(ITEM.id), needs | order_needs).where(*conditions).order_by(*ordering)
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
        placing, sums = place(
            session,
            joined(select(ITEM.id, ITEM.printing_id), needs).where(*read),
            (ITEM.quantity, ITEM.for_trade) if whole else (),
            matching,
            lambda: order_ranks.ranks(session, database, order, catalogue_key, make=False),
            lambda: order_ranks.ranks(session, database, order, catalogue_key),
            lambda ids: joined(select(ITEM.id), order_needs).where(ITEM.id.in_(ids)).order_by(*ordering),
            ordered_ids,
            None if order == "name" or printing_ids is not None else lambda: place_by_set(session, conditions, needs),
        )
        if sums is not None and kept(totals_key(database, user_id), version) is None:
            keep(totals_key(database, user_id), version, Totals(*sums))
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
        shown = joined(select(*columns), {"card", "set", "game"})
        if page_ids:
            rows = session.execute(shown.where(ITEM.id.in_(page_ids)).order_by(*ordering)).all()
    items = [
        ItemRow(pid, card_id, slug, code, number, name, rarity, ItemGrade(cond, lang, finish), qty, trade, note)
        for pid, card_id, slug, code, number, name, rarity, cond, lang, finish, qty, trade, note in rows
    ]
    return Page(items, placing.total, page, per_page, version, catalogue)


# A search filter's printings are looked up item by item when they are at most PROBE_MAX and
# at most 1/PROBE_RATIO of the collection's distinct printings; else every item is read and
# filtered by them: a lookup costs a few times what reading an item does (figures: CHANGELOG,
# Benchmarks).
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
