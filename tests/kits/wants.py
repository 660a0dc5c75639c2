"""Wants and haves through the web: the app's engine behind a client, a card by name, copies
given to a user, their want list read back, a want added through the form."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import adjust
from catalog.models import Card, WantItem
from tests.kits.collection import NM, NOW, printing_id
from webapp.db import get_engine


def engine_of(client: Any) -> Any:
    return get_engine(client.application)


def card_id(session: Session, name: str) -> int:
    found = session.scalar(select(Card.id).where(Card.name == name))
    assert found is not None, name
    return found


def give(client: Any, user_id: int, set_code: str, number: str, copies: int, grade: ItemGrade = NM) -> int:
    """Commit ``copies`` of a sample printing into the user's collection; returns the printing id."""
    with Session(engine_of(client)) as session, session.begin():
        pid = printing_id(session, set_code, number)
        adjust(session=session, user_id=user_id, printing_id=pid, grade=grade, delta=copies, reason="manual", now=NOW)
    return pid


def wants_of(client: Any, user_id: int) -> list[tuple[int, int | None, int, str]]:
    with Session(engine_of(client)) as session:
        rows = session.scalars(select(WantItem).where(WantItem.user_id == user_id).order_by(WantItem.id))
        return [(w.card_id, w.printing_id, w.quantity, w.min_condition) for w in rows]


def add_want(client: Any, name: str = "小红帽·森林歌者", **form: Any) -> Any:
    with Session(engine_of(client)) as session:
        cid = card_id(session, name)
    return client.post("/wants", data={"card_id": cid, "quantity": 2, "min_condition": "LP", **form})
