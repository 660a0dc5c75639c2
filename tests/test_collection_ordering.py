"""The collection page's orders of the printings, stored after an import: a process
reads them instead of sorting the catalogue, only while the catalogue is the one they were made
of. (That pages sorted by them are exactly SQL's order: tests/test_collection_listing.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import listing, ordering
from catalog.models import Game
from catalog.models.columns import GAME


def test_stored_ranks_are_the_ranks_while_the_catalogue_is_the_same(sample_catalogue: Engine) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        assert min(ordering.store_ranks(session=session).values()) > 700

    def kept(session: Session, order: str) -> Any:
        listing.cache_clear()  # not from this process's memory
        catalogue = tuple(sorted(session.execute(select(GAME.slug, GAME.catalogue_version)).all()))
        return ordering.ranks(session, "the database", order, catalogue, make=False)

    with Session(sample_catalogue) as session:
        for order in ordering.ORDER_KEYS:
            stored = kept(session, order)
            assert stored is not None and stored == ordering.made_ranks(session, order)
            assert sorted(set(stored) - {-1}) == list(range(1, max(stored) + 1))  # dense, from 1
    with catalog_db.transaction(sample_catalogue) as session:  # an import: the game's new version
        session.execute(update(Game).where(GAME.slug == "longzhiyi").values(catalogue_version="next"))
    with Session(sample_catalogue) as session:
        assert kept(session, "name") is None and kept(session, "set") is None


def test_a_ranked_placing_takes_items_out_and_in_where_they_stand() -> None:
    from array import array

    from catalog.collection.placing import Placing as _Placing

    def key(rank: int, item: int) -> int:
        return (rank << ordering.ID_BITS) | item

    placing = _Placing(4, keys=array("q", [key(1, 7), key(2, 3), key(2, 9), key(5, 1)]))
    less = placing.without({3: 0, 1: 0})
    assert list(less.keys or []) == [key(1, 7), key(2, 9)] and less.total == 2
    more = less.moved({}, {4: (0, key(2, 4)), 8: (0, key(9, 8))})
    assert more is not None and list(more.keys or []) == [key(1, 7), key(2, 4), key(2, 9), key(9, 8)]
    assert more.page_ids(1, 2, lambda _sets: array("q")) == [4, 9]
    with pytest.raises(ValueError):
        placing.without({11: 0})  # not in it: the caller places anew


def test_orders_are_stored_again_only_for_a_new_catalogue(sample_catalogue: Engine) -> None:
    with catalog_db.transaction(sample_catalogue) as session:
        assert ordering.store_ranks(session=session, unless_current=True)  # none stored yet
    with catalog_db.transaction(sample_catalogue) as session:
        assert ordering.store_ranks(session=session, unless_current=True) == {}  # current: nothing done
        session.execute(update(Game).where(GAME.slug == "zhutian").values(catalogue_version="next"))
    with catalog_db.transaction(sample_catalogue) as session:
        assert ordering.store_ranks(session=session, unless_current=True)  # stale: made again


@pytest.mark.parametrize("ids", ["packed", "too large to pack (forced)", "at the top of the ids' range"])
def test_id_pairs_are_every_item_with_its_printing(
    sample_catalogue: Engine, make_user: Any, monkeypatch: pytest.MonkeyPatch, ids: str
) -> None:
    """The (item, printing) pairs and the sums read in one pass are those of the rows, whether
    each pair travels packed in one integer or, ids too large for that, as two numbers. At the
    top of the ids' range: SQLite's rowids go past 2**33 (read as two numbers), PostgreSQL's
    integer ids up to just below 2**31 (the largest that still packs)."""
    from catalog.collection.grades import ItemGrade
    from catalog.collection.ledger import adjust
    from catalog.models import CollectionItem, Printing
    from catalog.models.columns import ITEM, PRINTING
    from tests.kits.collection import NOW, committed_user

    if ids.endswith("(forced)"):
        monkeypatch.setattr(ordering, "PAIR_FIRST_MAX", 0)
    user_id = committed_user(sample_catalogue, make_user)
    with catalog_db.transaction(sample_catalogue) as session:
        postgresql = session.get_bind().dialect.name == "postgresql"
        top = 2**31 - 1_000 if postgresql else 2**33
        if ids == "at the top of the ids' range":
            # An empty item with such an id: the items made next take ids after it (SQLite's
            # rowid; PostgreSQL's sequence, moved past it here and reset after each test).
            session.add(CollectionItem(id=top, user_id=user_id, printing_id=1, quantity=0, updated_at=NOW))
            session.flush()
            if postgresql:
                session.execute(text(f"SELECT setval(pg_get_serial_sequence('collection_item', 'id'), {top})"))
        printings = list(session.scalars(select(Printing.id).order_by(Printing.id)))[::7]
        for index, pid in enumerate(printings):
            adjust(session=session, user_id=user_id, printing_id=pid, delta=1 + index % 4, reason="manual", now=NOW)
            if index % 3 == 0:
                grade = ItemGrade("LP", "EN", "闪")
                adjust(
                    session=session, user_id=user_id, printing_id=pid, grade=grade, delta=2, reason="manual", now=NOW
                )
    with Session(sample_catalogue) as session:
        selected = select(ITEM.id, ITEM.printing_id).where(ITEM.user_id == user_id, ITEM.quantity > 0)
        pairs, sums = ordering.id_pairs(session, selected, ITEM.quantity, ITEM.for_trade, within=(ITEM.id, PRINTING.id))
        rows = session.execute(select(ITEM.id, ITEM.printing_id, ITEM.quantity).where(*selected.whereclause)).all()
    assert sorted(map(tuple, pairs.tolist())) == sorted((item, pid) for item, pid, _q in rows)
    assert len(rows) > 100 and sums == (sum(q for _i, _p, q in rows), 0)
    if ids == "at the top of the ids' range":
        assert min(item for item, _p, _q in rows) >= top
