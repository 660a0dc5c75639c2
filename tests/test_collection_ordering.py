"""The collection page's orders of the printings, stored after an import (issue 17): a process
reads them instead of sorting the catalogue, only while the catalogue is the one they were made
of. (That pages sorted by them are exactly SQL's order: tests/test_collection_listing.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import listing, ordering
from catalog.collection.tables import GAME
from catalog.models import Game


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

    from catalog.collection.listing import _Placing

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
