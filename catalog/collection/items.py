"""One-item changes as the API and the pages call them: by set code and collector number."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.ledger import ItemChange, adjust, set_for_trade
from catalog.errors import LunzangError, Message
from catalog.lookup import PrintingInfo, find_printing

MAX_DELTA = 10_000


class BadDelta(LunzangError):
    code = "bad_request"


@dataclass(frozen=True)
class ItemResult:
    """An item after a change: the printing and what changed."""

    printing: PrintingInfo
    change: ItemChange


def change_item(
    *,
    session: Session,
    user_id: int,
    set_code: str,
    number: str,
    delta: int,
    condition: str | None = None,
    language: str | None = None,
    finish: str | None = None,
    game: str | None = None,
    reason: str = "manual",
    now: datetime,
) -> ItemResult:
    """``POST /api/v1/collection/items``: add ``delta`` (may be negative) copies of a printing.

    Grades take any alias (defaults NM / 简中 / 普通). Errors, all with nothing changed:
    :class:`UnknownPrinting` (404), :class:`BadGrade` / :class:`BadDelta` (400),
    :class:`NegativeQuantity` (409).
    """
    if isinstance(delta, bool) or not isinstance(delta, int) or not -MAX_DELTA <= delta <= MAX_DELTA:
        raise BadDelta(
            Message(
                f"delta 必须是 -{MAX_DELTA} 到 {MAX_DELTA} 之间的整数",
                f"delta must be a whole number within ±{MAX_DELTA}",
            )
        )
    grade = ItemGrade.parse(condition, language, finish)
    printing = find_printing(session=session, set_code=set_code, number=number, game=game)
    change = adjust(
        session=session, user_id=user_id, printing_id=printing.id, grade=grade, delta=delta, reason=reason, now=now
    )
    return ItemResult(printing, change)


def change_for_trade(
    *,
    session: Session,
    user_id: int,
    set_code: str,
    number: str,
    for_trade: int,
    condition: str | None = None,
    language: str | None = None,
    finish: str | None = None,
    game: str | None = None,
    now: datetime,
) -> ItemResult:
    """Set the quantity for trade of one item named by set and number (:class:`BadTradeQuantity` if impossible)."""
    grade = ItemGrade.parse(condition, language, finish)
    printing = find_printing(session=session, set_code=set_code, number=number, game=game)
    change = set_for_trade(
        session=session, user_id=user_id, printing_id=printing.id, grade=grade, for_trade=for_trade, now=now
    )
    return ItemResult(printing, change)
