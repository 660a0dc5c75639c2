"""Builders for event tests: an event over the sample catalogue, players with legal lists."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.events import registration as reg
from catalog.events.standings import Result
from catalog.models import Event
from tests.kits.deck import legal_samsara_list

NOW = datetime(2026, 11, 28, 13, 0, tzinfo=UTC)
DAY = date(2026, 11, 28)


def later(minutes: int) -> datetime:
    return NOW + timedelta(minutes=minutes)


def make_event(session: Session, **fields: Any) -> Event:
    """A monthly 永恒之轮 event at 卡牌竞技场 (flushed only)."""
    values: dict[str, Any] = {
        "name": "十一月月赛",
        "game": "samsara",
        "format_code": "standard",
        "date": DAY,
        "now": NOW,
        "store": "卡牌竞技场",
        "city": "上海",
        # most event tests are about pairing and results, with walk-ins without lists: they
        # play with a flag; the deck gate ("required", the default) has its own tests
        "deck_policy": "flag",
    }
    values.update(fields)
    return reg.create_event(session=session, **values)


def seat_players(session: Session, event: Event, names: list[str], engine: Engine | None = None) -> list[Any]:
    deck = legal_samsara_list(engine) if engine is not None else None
    return [reg.register_player(session=session, event=event, player_name=n, now=NOW, deck_text=deck) for n in names]


def staff_store(session: Session, store: str, username: str) -> None:
    """Make ``username`` staff of ``store`` (created if missing; flushed only). an
    organiser acts only for the stores they staff."""
    from catalog.accounts import get_user_by_name
    from catalog.events import stores
    from catalog.models import StoreStaff

    row = stores.find_store(session=session, name=store) or stores.create_store(session=session, name=store, now=NOW)
    user = get_user_by_name(session=session, username=username)
    assert user is not None and user.id is not None and row.id is not None
    if user.id not in {u.id for u in stores.staff(session=session, store=row)}:
        session.add(StoreStaff(store_id=row.id, user_id=user.id, added_at=NOW))
        session.flush()


# 8 players, 3 rounds, where P1 and P6 are level on points and their OMWs are the same
# fraction, but summed in floats in a different order they differ in the last bit, so the float
# comparison never consulted GW and named P6 champion over P1, who has the better GW (MTR 3.1).
FLOAT_TIE = [
    Result(1, 5, 6, 1, 2, 0),
    Result(1, 8, 3, 2, 0, 0),
    Result(1, 4, 2, 1, 0, 0),
    Result(1, 7, 1, 0, 1, 0),
    Result(2, 6, 4, 2, 1, 0),
    Result(2, 8, 2, 0, 2, 0),
    Result(2, 5, 7, 2, 0, 0),
    Result(2, 3, 1, 1, 1, 1),
    Result(3, 3, 5, 2, 1, 0),
    Result(3, 7, 8, 0, 1, 0),
    Result(3, 4, 1, 0, 2, 0),
    Result(3, 6, 2, 1, 1, 1),
]
