"""Builders and probes for the collection tests (they flush, never commit)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from io import BytesIO
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.models import CardSet, CollectionItem, Printing, User
from webapp.db import get_engine

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
NM = ItemGrade()


def printing_id(session: Session, set_code: str, number: str) -> int:
    """The id of a sample printing, e.g. ``printing_id(session, "M4", "M4-001")``."""
    found = session.scalar(
        select(Printing.id)
        .join(CardSet, CardSet.id == Printing.set_id)
        .where(CardSet.code == set_code, Printing.number == number)
    )
    assert found is not None, (set_code, number)
    return found


def owned(session: Session, user_id: int, pid: int, grade: ItemGrade = NM) -> tuple[int, int]:
    """(quantity, for trade) of one item; (0, 0) when there is no row."""
    row = session.execute(
        select(CollectionItem.quantity, CollectionItem.for_trade).where(
            CollectionItem.user_id == user_id,
            CollectionItem.printing_id == pid,
            CollectionItem.condition == grade.condition,
            CollectionItem.language == grade.language,
            CollectionItem.finish == grade.finish,
        )
    ).first()
    return (row[0], row[1]) if row else (0, 0)


def snapshot(session: Session, user_id: int) -> dict[tuple[int, str, str, str], tuple[int, int]]:
    """Every non-empty item of a user: the "collection unchanged" check."""
    rows = session.execute(
        select(CollectionItem).where(CollectionItem.user_id == user_id, CollectionItem.quantity > 0)
    ).scalars()
    return {(i.printing_id, i.condition, i.language, i.finish): (i.quantity, i.for_trade) for i in rows}


def committed_user(engine: Engine, make_user, name: str = "alice") -> int:
    """A user committed in ``engine``'s database; returns the id."""
    with Session(engine) as session, session.begin():
        user: User = make_user(session, name)
        assert user.id is not None
        return user.id


def db(app: Any) -> Session:
    return Session(get_engine(app))


def pid(app: Any, set_code: str = "M4", number: str = "M4-001") -> int:
    with db(app) as session:
        return printing_id(session, set_code, number)


def owned_now(app: Any, user_id: int, printing: int, grade: ItemGrade = NM) -> tuple[int, int]:
    with db(app) as session:
        return owned(session, user_id, printing, grade)


def collection_of(app: Any, user_id: int) -> dict[Any, Any]:
    with db(app) as session:
        return snapshot(session, user_id)


def upload(client: Any, data: bytes, mode: str = "add", name: str = "cards.csv") -> Any:
    return client.post(
        "/collection/import",
        data={"file": (BytesIO(data), name), "mode": mode},
        content_type="multipart/form-data",
    )


def confirm(client: Any, preview: str) -> Any:
    form = re.search(r'<form class="confirm-import".*?</form>', preview, re.S).group(0)
    fields = dict(re.findall(r'name="(mode|filename|payload|confirm)" value="([^"]*)"', form))
    return client.post("/collection/import", data=fields)
