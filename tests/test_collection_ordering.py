"""The collection page's orders of the printings, stored after an import (issue 17): a process
reads them instead of sorting the catalogue, only while the catalogue is the one they were made
of. (That pages sorted by them are exactly SQL's order: tests/test_collection_listing.py.)"""

from __future__ import annotations

from typing import Any

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
