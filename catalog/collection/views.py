"""Read-only views of a collection (issue 6 §6): totals, set completion, the item list, history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import distinct, func, or_, select
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.collection.tables import CARD, GAME, IMPORT, ITEM, LEDGER, PRINTING, SET
from catalog.models import Card, CardSet, Game, Printing
from catalog.text import fold
from catalog.user_models import CollectionImport, CollectionItem

MAX_PER_PAGE = 500


@dataclass(frozen=True)
class Totals:
    printings: int  # distinct printings owned
    cards: int  # copies in all
    for_trade: int  # copies offered for trade

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def totals(*, session: Session, user_id: int) -> Totals:
    c = ITEM
    row = session.execute(
        select(
            func.count(distinct(c.printing_id)),
            func.coalesce(func.sum(c.quantity), 0),
            func.coalesce(func.sum(c.for_trade), 0),
        ).where(c.user_id == user_id, c.quantity > 0)
    ).one()
    return Totals(int(row[0]), int(row[1]), int(row[2]))


@dataclass
class SetCompletion:
    game: str
    code: str
    name: str
    owned: int = 0  # distinct printings owned
    total: int = 0
    by_rarity: dict[str, tuple[int, int]] = field(default_factory=dict)  # rarity → (owned, total), low → high

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "set": self.code,
            "name": self.name,
            "owned": self.owned,
            "total": self.total,
            "by_rarity": {r: {"owned": o, "total": t} for r, (o, t) in self.by_rarity.items()},
        }


def set_completion(
    *, session: Session, user_id: int, game: str | None = None, only_started: bool = False
) -> list[SetCompletion]:
    """Per set and rarity: distinct printings owned / printings in the set (two GROUP BY queries)."""
    owned_sub = (
        select(ITEM.printing_id.label("pid")).where(ITEM.user_id == user_id, ITEM.quantity > 0).distinct().subquery()
    )
    base = (
        select(
            GAME.slug,
            SET.code,
            SET.name,
            SET.id,
            PRINTING.rarity,
            PRINTING.rarity_rank,
            func.count(PRINTING.id),
            func.count(owned_sub.c.pid),
        )
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .outerjoin(owned_sub, owned_sub.c.pid == PRINTING.id)
        .group_by(GAME.slug, SET.code, SET.name, SET.id, SET.position, PRINTING.rarity, PRINTING.rarity_rank)
        .order_by(GAME.slug, SET.position, SET.code, PRINTING.rarity_rank)
    )
    if game:
        base = base.where(GAME.slug == game)
    sets: dict[int, SetCompletion] = {}
    for slug, code, name, set_id, rarity, _rank, total, owned in session.execute(base):
        entry = sets.setdefault(set_id, SetCompletion(slug, code, name))
        entry.by_rarity[rarity] = (int(owned), int(total))
        entry.owned += int(owned)
        entry.total += int(total)
    out = list(sets.values())
    return [s for s in out if s.owned] if only_started else out


@dataclass(frozen=True)
class ItemRow:
    printing_id: int
    card_id: int
    game: str
    set: str
    number: str
    name: str
    rarity: str
    grade: ItemGrade
    quantity: int
    for_trade: int
    note: str

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "grade"}
        return {**data, "condition": self.grade.condition, "language": self.grade.language, "finish": self.grade.finish}


@dataclass(frozen=True)
class Page:
    items: list[ItemRow]
    total: int
    page: int
    per_page: int


def collection_page(
    *,
    session: Session,
    user_id: int,
    query: str | None = None,
    set_code: str | None = None,
    game: str | None = None,
    for_trade_only: bool = False,
    page: int = 1,
    per_page: int = 50,
) -> Page:
    """The user's items (quantity > 0), by game, set and number; ``query`` matches card names
    (folded, pinyin too) or a set code; ``set_code`` / ``game`` narrow further."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    conditions: list[Any] = [ITEM.user_id == user_id, ITEM.quantity > 0]
    if query and query.strip():
        key = fold(query)
        conditions.append(
            or_(
                CARD.name_key.contains(key),
                CARD.pinyin.contains(key),
                CARD.initials == key,
                SET.code_key == key,
            )
        )
    if set_code:
        conditions.append(SET.code_key == fold(set_code))
    if game:
        conditions.append(GAME.slug == game)
    if for_trade_only:
        conditions.append(ITEM.for_trade > 0)
    joined = (
        select(CollectionItem, PRINTING.card_id, GAME.slug, SET.code, PRINTING.number, CARD.name, PRINTING.rarity)
        .join(Printing, PRINTING.id == ITEM.printing_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(*conditions)
    )
    total = session.scalar(select(func.count()).select_from(joined.subquery())) or 0
    rows = session.execute(
        joined.order_by(GAME.slug, SET.position, PRINTING.number, ITEM.id).offset((page - 1) * per_page).limit(per_page)
    )
    items = [
        ItemRow(
            item.printing_id,
            card_id,
            slug,
            code,
            number,
            name,
            rarity,
            ItemGrade(item.condition, item.language, item.finish),
            item.quantity,
            item.for_trade,
            item.note,
        )
        for item, card_id, slug, code, number, name, rarity in rows
    ]
    return Page(items, int(total), page, per_page)


@dataclass(frozen=True)
class HistoryRow:
    """A ledger entry in the API's shape (issue 6 §7)."""

    id: int
    set: str
    number: str
    name: str
    condition: str
    language: str
    finish: str
    delta: int
    trade_delta: int
    reason: str
    ref: str
    import_id: int | None
    at: datetime

    def to_json(self) -> dict[str, Any]:
        at = self.at if self.at.tzinfo else self.at.replace(tzinfo=UTC)
        return {**self.__dict__, "at": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def history(
    *,
    session: Session,
    user_id: int,
    printing_id: int | None = None,
    card_id: int | None = None,
    import_id: int | None = None,
    limit: int = 500,
) -> list[HistoryRow]:
    """The user's ledger, newest first; for one printing, one card (all printings) or one import."""
    L = LEDGER
    query = (
        select(
            L.id,
            SET.code,
            PRINTING.number,
            CARD.name,
            L.condition,
            L.language,
            L.finish,
            L.delta,
            L.trade_delta,
            L.reason,
            L.ref,
            L.import_id,
            L.at,
        )
        .join(Printing, PRINTING.id == L.printing_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .where(L.user_id == user_id)
        .order_by(L.id.desc())
        .limit(limit)
    )
    if printing_id is not None:
        query = query.where(L.printing_id == printing_id)
    if card_id is not None:
        query = query.where(PRINTING.card_id == card_id)
    if import_id is not None:
        query = query.where(L.import_id == import_id)
    return [HistoryRow(*row) for row in session.execute(query)]


def list_imports(*, session: Session, user_id: int) -> list[CollectionImport]:
    """The user's imports, newest first (for the undo buttons)."""
    return list(session.scalars(select(CollectionImport).where(IMPORT.user_id == user_id).order_by(IMPORT.id.desc())))
