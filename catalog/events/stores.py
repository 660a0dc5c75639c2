"""Stores as accounts: a store has staff; an organiser manages only the events,
exchange list, chests and balances of the stores they staff; admins create stores, set their
prize cap and assign staff (granting the organiser role, recorded like every role grant).

Chest rows, exchange items and events keep carrying the store's folded name (``store_key``);
the ``store`` row is the account those keys belong to. Chests enter a store only when one of
its events is finished (:func:`catalog.events.prizes.award_chests`), and no place of an event's
prize table may exceed the store's ``prize_cap``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import object_session
from sqlmodel import Session

from catalog import accounts
from catalog.errors import LunzangError, Message
from catalog.models import Store, StoreStaff, User, table_of
from catalog.text import fold

STORE = table_of(Store).c
STAFF = table_of(StoreStaff).c
MAX_PRIZE_CAP = 1000


class StoreError(LunzangError):
    code = "bad_request"


class StoreForbidden(LunzangError):
    code = "forbidden"
    status = 403


def _signed_in(user: User | None) -> bool:
    return user is not None and bool(getattr(user, "is_authenticated", False))


def find_store(*, session: Session, name: str) -> Store | None:
    """The store called ``name`` (folded: spacing and width do not matter), if there is one."""
    key = fold(name or "")
    return session.scalars(select(Store).where(STORE.key == key)).first() if key else None


def all_stores(*, session: Session) -> list[Store]:
    return list(session.scalars(select(Store).order_by(STORE.name, STORE.id)))


def create_store(*, session: Session, name: str, now: datetime, city: str = "", prize_cap: int = 20) -> Store:
    """A new store (admins). Its key is the folded name the events and chests use."""
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise StoreError(Message("店铺名称应为 1 到 100 个字", "a store name is 1 to 100 characters"))
    if find_store(session=session, name=name) is not None:
        raise StoreError(Message(f"店铺「{name}」已经存在", f"store '{name}' exists"))
    store = Store(key=fold(name), name=name, city=(city or "").strip()[:50], created_at=now)
    set_prize_cap(store=store, cap=prize_cap)
    session.add(store)
    session.flush()
    return store


def set_prize_cap(*, store: Store, cap: int) -> None:
    if not 0 <= cap <= MAX_PRIZE_CAP:
        raise StoreError(
            Message(f"每个名次的宝箱上限应在 0 到 {MAX_PRIZE_CAP} 之间", f"the cap per place is 0 to {MAX_PRIZE_CAP}")
        )
    store.prize_cap = cap


def staff(*, session: Session, store: Store) -> list[User]:
    users = table_of(User).c
    query = select(User).join(StoreStaff, STAFF.user_id == users.id).where(STAFF.store_id == store.id)
    return list(session.scalars(query.order_by(users.username)))


def add_staff(*, session: Session, by: User, store: Store, username: str, now: datetime) -> User:
    """An admin makes ``username`` staff of ``store``; a plain user is granted the organiser role."""
    if by.role != "admin":
        raise StoreForbidden(Message("只有管理员可以指派店员", "only admins assign store staff"))
    user = accounts.find_user(session=session, username=username)
    if user.role == "user":
        assert user.id is not None
        accounts.grant_role(session=session, by=by, user_id=user.id, role="organizer", now=now)
    if not session.scalars(select(StoreStaff).where(STAFF.store_id == store.id, STAFF.user_id == user.id)).first():
        session.add(StoreStaff(store_id=store.id, user_id=user.id, added_by=by.id, added_at=now))  # type: ignore[arg-type]  # both rows are flushed: ids set
        session.flush()
    return user


def remove_staff(*, session: Session, by: User, store: Store, user_id: int) -> None:
    if by.role != "admin":
        raise StoreForbidden(Message("只有管理员可以指派店员", "only admins assign store staff"))
    for row in session.scalars(select(StoreStaff).where(STAFF.store_id == store.id, STAFF.user_id == user_id)):
        session.delete(row)
    session.flush()


def is_staff(*, session: Session, user: User | None, store_key: str) -> bool:
    """Whether ``user`` may act for the store with this key: an admin, or an organiser on its staff."""
    if not _signed_in(user) or not store_key:
        return False
    assert user is not None
    if user.role == "admin":
        return True
    if user.role != "organizer":
        return False
    query = (
        select(STAFF.id)
        .select_from(StoreStaff)
        .join(Store, STORE.id == STAFF.store_id)
        .where(STORE.key == store_key, STAFF.user_id == user.id)
    )
    return session.scalars(query).first() is not None


def require_staff(*, session: Session, user: User | None, store: str) -> None:
    """Refuse (403) anyone but the store's staff and admins; a store must exist to be acted for."""
    if not is_staff(session=session, user=user, store_key=fold(store or "")):
        raise StoreForbidden(
            Message(f"只有「{store}」的店员或管理员可以这样做", f"only the staff of '{store}' or an admin may do this")
        )


def stores_of(*, session: Session, user: User | None) -> list[Store]:
    """The stores ``user`` acts for (every store for an admin)."""
    if not _signed_in(user):
        return []
    assert user is not None
    if user.role == "admin":
        return all_stores(session=session)
    query = select(Store).join(StoreStaff, STAFF.store_id == STORE.id).where(STAFF.user_id == user.id)
    return list(session.scalars(query.order_by(STORE.name)))


def staffs_event_store(user: User | None, store_key: str, any_row: object) -> bool:
    """:func:`is_staff` through the session of a loaded row (for checks given only a row)."""
    session = object_session(any_row)
    return session is not None and is_staff(session=session, user=user, store_key=store_key)  # type: ignore[arg-type]  # a sqlmodel Session is what our rows are loaded with


def prize_cap(*, session: Session, store_key: str) -> int | None:
    """The store's cap per place (None when the event has no store account)."""
    store = session.scalars(select(Store).where(STORE.key == store_key)).first() if store_key else None
    return store.prize_cap if store is not None else None


def check_prizes(*, session: Session, store_key: str, prizes: dict[int, int]) -> None:
    """Refuse a prize table above the store's cap per place."""
    cap = prize_cap(session=session, store_key=store_key)
    over = sorted(place for place, chests in prizes.items() if cap is not None and chests > cap)
    if over:
        raise StoreError(
            Message(
                f"每个名次最多 {cap} 个白银宝箱（本店上限，由管理员设定）",
                f"at most {cap} silver chests per place (this store's cap, set by an admin)",
            )
        )
