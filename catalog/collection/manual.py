"""Manual changes from the collection pages: one item by printing id, and the set checklist.

The pages name printings by id (a hidden field of the +1/−1 forms) where the API names them by
set and number (:mod:`catalog.collection.items`); both end in :func:`catalog.collection.ledger.adjust`.

The checklist sends, per printing, the quantity the page showed (``was``) and the one typed.
Only fields the user changed count, as a delta ``typed − was`` (reason ``manual``), all in
one bulk write. A field whose stored quantity is no longer the one the page showed (another
tab, a +1 meanwhile, or the same form submitted twice) is a conflict: nothing is written and
the page shows the current quantities again. Submitting a form twice thus never doubles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.items import MAX_DELTA, BadDelta, ItemResult
from catalog.collection.ledger import (
    DEFAULT_GRADE,
    ItemChange,
    ItemState,
    Key,
    adjust,
    lock_user,
    plan_targets,
    set_for_trade,
    write_changes,
)
from catalog.errors import Message
from catalog.lookup import PrintingInfo, SetInfo, UnknownPrinting
from catalog.models import Card, CardSet, Game, Printing
from catalog.models.columns import CARD, GAME, ITEM, PRINTING, SET

MAX_CHECKLIST_QUANTITY = 9999


def printing_info(*, session: Session, printing_id: int) -> PrintingInfo:
    """The printing with this id (set, number, name), or :class:`UnknownPrinting`."""
    row = session.execute(
        select(PRINTING.id, PRINTING.card_id, PRINTING.number, PRINTING.rarity, CARD.name, SET.id, SET.code, SET.name)
        .add_columns(GAME.slug)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(PRINTING.id == printing_id)
    ).first()
    if row is None:
        raise UnknownPrinting(Message(f"没有编号为 {printing_id} 的印刷", f"no printing #{printing_id}"), "printing_id")
    pid, card_id, number, rarity, name, set_id, code, set_name, slug = row
    return PrintingInfo(pid, card_id, SetInfo(set_id, slug, code, set_name), number, name, rarity)


def change_printing(
    *,
    session: Session,
    user_id: int,
    printing_id: int,
    delta: int,
    grade: ItemGrade = DEFAULT_GRADE,
    now: datetime,
) -> ItemResult:
    """Add ``delta`` (may be negative) copies of a printing named by id (reason manual).

    :class:`UnknownPrinting`, :class:`BadDelta`, :class:`NegativeQuantity`: nothing changed.
    """
    if isinstance(delta, bool) or not isinstance(delta, int) or not -MAX_DELTA <= delta <= MAX_DELTA:
        raise BadDelta(
            Message(
                f"数量变化必须是 -{MAX_DELTA} 到 {MAX_DELTA} 之间的整数",
                f"delta must be a whole number within ±{MAX_DELTA}",
            )
        )
    printing = printing_info(session=session, printing_id=printing_id)
    change = adjust(
        session=session, user_id=user_id, printing_id=printing.id, grade=grade, delta=delta, reason="manual", now=now
    )
    return ItemResult(printing, change)


def trade_printing(
    *, session: Session, user_id: int, printing_id: int, for_trade: int, grade: ItemGrade = DEFAULT_GRADE, now: datetime
) -> ItemResult:
    """Set the quantity for trade of one item named by printing id (:class:`BadTradeQuantity`)."""
    printing = printing_info(session=session, printing_id=printing_id)
    change = set_for_trade(
        session=session, user_id=user_id, printing_id=printing.id, grade=grade, for_trade=for_trade, now=now
    )
    return ItemResult(printing, change)


def set_quantities(*, session: Session, user_id: int, set_id: int, grade: ItemGrade) -> dict[int, int]:
    """printing id → quantity owned in ``grade``, for the printings of one set (absent = 0)."""
    rows = session.execute(
        select(ITEM.printing_id, ITEM.quantity)
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .where(
            ITEM.user_id == user_id,
            PRINTING.set_id == set_id,
            ITEM.condition == grade.condition,
            ITEM.language == grade.language,
            ITEM.finish == grade.finish,
            ITEM.quantity > 0,
        )
    )
    return {pid: int(quantity) for pid, quantity in rows}


@dataclass
class ChecklistResult:
    """What a checklist submit did: the changes written, or the conflicts (nothing written)."""

    changes: list[ItemChange] = field(default_factory=list)
    conflicts: dict[int, int] = field(default_factory=dict)  # printing id → quantity stored now


def apply_checklist(
    *,
    session: Session,
    user_id: int,
    grade: ItemGrade,
    entries: Mapping[int, tuple[int, int]],
    now: datetime,
) -> ChecklistResult:
    """Apply a checklist: printing id → (quantity the page showed, quantity typed), one grade.

    The caller has checked the numbers (0 … 9999) and that the printings exist. Fields typed
    unchanged are ignored; a changed field whose stored quantity differs from the one shown is
    a conflict (nothing written). Else every change is written at once, ledgered (manual).
    """
    changed = {pid: pair for pid, pair in entries.items() if pair[0] != pair[1]}
    if not changed:
        return ChecklistResult()
    current = _lock_printings(session, user_id, sorted(changed))
    result = ChecklistResult()
    targets: dict[Key, tuple[int, int]] = {}
    for pid, (was, typed) in changed.items():
        state = current.get((pid, grade))
        have, trade = (state.quantity, state.for_trade) if state else (0, 0)
        if have == typed:
            continue  # already so (the same form sent twice): nothing to do
        if have != was:
            result.conflicts[pid] = have
            continue
        targets[(pid, grade)] = (typed, min(trade, typed))
    if result.conflicts:
        return result
    result.changes = plan_targets(current, targets)
    write_changes(session=session, user_id=user_id, current=current, changes=result.changes, reason="manual", now=now)
    return result


def _lock_printings(session: Session, user_id: int, printing_ids: list[int]) -> dict[Key, ItemState]:
    """The user's items of these printings (every grade), locked on PostgreSQL (FOR UPDATE, id order).

    Narrower than :func:`catalog.collection.ledger.lock_items` (every item of the user): a
    checklist touches one set, and a large collection should not lock 50,000 rows for it.
    The user's row is locked first (:func:`~catalog.collection.ledger.lock_user`), so items
    this checklist is about to create cannot appear meanwhile.
    """
    lock_user(session, user_id)
    query = (
        select(ITEM.id, ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.quantity, ITEM.for_trade)
        .where(ITEM.user_id == user_id, ITEM.printing_id.in_(printing_ids))
        .order_by(ITEM.id)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    return {
        (pid, ItemGrade(cond, lang, fin)): ItemState(item_id, q, ft)
        for item_id, pid, cond, lang, fin, q, ft in session.execute(query)
    }
