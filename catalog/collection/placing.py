"""Where every item of a collection page's selection stands in the page's order (a placing),
and how a placing kept for an older collection version is moved on to a newer one.

A page in set order needs every matching item counted per set, a page in name order every
matching item sorted by its card's pinyin: far more than the page's own rows, for numbers that
change only when the collection, the catalogue or the filter does. So a placing is kept
(:mod:`catalog.collection.kept`) and, after a change, moved on rather than made anew when it can:
most changes (+1 on an item owned) move no item into or out of any page. :func:`moved_on` looks
at the ledger rows since the kept version (:func:`changes_between`, one index range): items that
left the selection are taken out, and only an item entering it that the placing cannot take in
places the items anew (:func:`place`, by the catalogue's ranks: :mod:`catalog.collection.ordering`).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.collection import ordering as order_ranks
from catalog.collection.kept import kept_before
from catalog.models import Card, CardSet, CollectionItem, Game, Printing
from catalog.models.columns import CARD, GAME, ITEM, LEDGER, PRINTING, SET

# A kept placing serves a newer version when no item changed in between entered or left it;
# looking costs two small queries, worth it up to this many changed items.
MAX_CHANGES = 200


@dataclass(frozen=True)
class Placing:
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

    def moved(self, gone: dict[int, int], entered: dict[int, tuple[int, int | None]]) -> Placing | None:
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
            return Placing(len(keys), keys=keys)
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
        return Placing(placing.total + len(entered), groups=groups, group_ids=group_ids)

    def without(self, gone: dict[int, int]) -> Placing:
        """This placing less the items ``gone`` (item id → its printing's set id), which it holds."""
        if self.keys is not None:
            import numpy as np

            every = np.frombuffer(self.keys, dtype=np.int64)
            left = every[~np.isin(every & order_ranks.ID_MASK, np.fromiter(gone, dtype=np.int64, count=len(gone)))]
            if len(left) != len(every) - len(gone):
                raise ValueError("an item gone was not in the placing")
            keys = array("q")
            keys.frombytes(left.tobytes())
            return Placing(len(keys), keys=keys)
        if self.ids is not None:
            ids = array("q", self.ids)
            for item_id in gone:
                del ids[ids.index(item_id)]
            return Placing(len(ids), ids=ids)
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
        return Placing(self.total - len(gone), groups=groups, group_ids=group_ids)

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


def moved_on(
    session: Session,
    user_id: int,
    kept_as: tuple[Hashable, int],
    for_trade_only: bool,
    selected: Any,
    rank_table: Callable[[], array[int] | None],
) -> Placing | None:
    """An older version's placing moved on to ``version``: as it was when no item changed since
    entered or left the page's selection (+1 on an item owned), less the items that left it (a
    quantity fallen to 0; a quantity for trade, when the page shows only those), with the items
    that entered it (a new card) where they go when the placing can say (:meth:`Placing.moved`);
    None when it cannot or when no older placing is kept. ``selected``: the items' (id, set id,
    printing id) under the page's filters other than the quantities; ``rank_table``: the
    catalogue's ranks in the page's order (sort keys of the items entering)."""
    what, version = kept_as
    older = kept_before(what, version)
    changes = changes_between(session, user_id, older[0], version) if older is not None else None
    if older is None or changes is None:
        return None
    placing: Placing = older[1]

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


def place(
    session: Session,
    selected: Any,
    sums: tuple[Any, Any] | tuple[()],
    matching: Any,
    ranks_kept: Callable[[], array[int] | None],
    ranks_made: Callable[[], array[int] | None],
    sorted_in_sql: Callable[[list[int]], Any],
    ordered: Any,
    by_set: Callable[[], Placing] | None,
) -> tuple[Placing, tuple[int, int, int] | None]:
    """Every matching item in the page order. ``selected``: the matching items' (id, printing
    id), read once. Sorted by the catalogue's ranks (:mod:`catalog.collection.ordering`) when
    they are at hand (``ranks_kept``: in memory or stored) or worth making (``ranks_made``: a
    collection of RANKED_FROM items or more); else a small collection is counted by set
    (``by_set``, set order without a search filter) or its items sorted in SQL by id
    (``sorted_in_sql``), the filter not evaluated again; ``ordered`` selects every matching
    id in order (a large collection the ranks cannot key). ``sums``: the quantity and
    quantity-for-trade columns when ``selected`` reads every item of the collection, whose
    totals are then returned too (distinct printings, copies, copies for trade; else None);
    ``matching``: the printings (sorted ids) a search filter ``selected`` does not apply keeps,
    else None."""
    import numpy as np

    pairs, summed = order_ranks.id_pairs(session, selected, *sums, within=(ITEM.id, PRINTING.id))
    totals = None
    if sums:
        # Distinct printings by a sort (0.7 ms for 50,000; numpy's unique hashes: 13 ms).
        printings = np.sort(pairs[:, 1])
        distinct = int(np.count_nonzero(printings[1:] != printings[:-1])) + min(1, len(printings))
        totals = (distinct, int(summed[0]), int(summed[1]))
    if matching is not None:
        pairs = pairs[np.isin(pairs[:, 1], matching, assume_unique=False)]
    table = ranks_kept() if len(pairs) < order_ranks.RANKED_FROM else ranks_made()
    keys = order_ranks.sorted_keys(table, pairs) if table is not None else None
    if keys is not None:
        return Placing(len(keys), keys=keys), totals
    if by_set is not None:
        return by_set(), totals
    ids = pairs[:, 0].tolist()
    if len(ids) > order_ranks.RANKED_FROM:  # a catalogue the ranks cannot key (rare): the query again
        return Placing(len(ids), ids=array("q", session.scalars(ordered))), totals
    return Placing(len(ids), ids=array("q", session.scalars(sorted_in_sql(ids)))), totals


def place_by_set(session: Session, conditions: list[Any], tables: set[str]) -> Placing:
    """The matching items counted per group of sets, the groups in set order."""
    # Counted by the printing's set alone (joining the sets and games for every item cost a
    # third more); where each set stands comes from the few set rows.
    counts = session.execute(
        joined(select(PRINTING.set_id, func.count(ITEM.id)), tables or {"printing"})
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
    return Placing(sum(count for _members, count in ordered), groups=ordered)


def joined(statement: Any, tables: set[str]) -> Any:
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
