"""Read-only views of a collection: totals, set completion, the item list, history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from catalog.collection.listing import (
    MAX_PER_PAGE,
    ItemRow,
    Page,
    Totals,
    collection_page,
    totals,
)
from catalog.games import GAMES
from catalog.models import Card, CardSet, CollectionImport, Game, Printing
from catalog.models.columns import CARD, GAME, IMPORT, ITEM, LEDGER, PRINTING, SET

# The page and the totals live in listing.py.
__all__ = ["MAX_PER_PAGE", "ItemRow", "Page", "Totals", "collection_page", "totals"]


@dataclass
class SetCompletion:
    game: str
    code: str
    name: str
    owned: int = 0  # distinct printings owned
    total: int = 0
    by_rarity: dict[str, tuple[int, int]] = field(default_factory=dict)  # rarity → (owned, total), low → high


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
    # Games in registry order (the main game first), as every other page lists them.
    order = {slug: index for index, slug in enumerate(GAMES)}
    out = sorted(sets.values(), key=lambda s: order.get(s.game, len(order)))
    return [s for s in out if s.owned] if only_started else out


@dataclass(frozen=True)
class HistoryRow:
    """A ledger entry with its printing's names."""

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


def history(
    *,
    session: Session,
    user_id: int,
    printing_id: int | None = None,
    card_id: int | None = None,
    import_id: int | None = None,
    limit: int = 500,
    offset: int = 0,
) -> list[HistoryRow]:
    """The user's ledger, newest first; for one printing, one card (all printings) or one import.
    ``offset`` skips the newest entries (paging)."""
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
        .offset(max(0, offset))
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


def owned_counts(*, session: Session, user_id: int, printing_ids: list[int]) -> dict[int, int]:
    """Copies owned per printing (every grade), for a page of printings: one query.

    Printings the user has none of are absent from the result.
    """
    if not printing_ids:
        return {}
    rows = session.execute(
        select(ITEM.printing_id, func.sum(ITEM.quantity))
        .where(ITEM.user_id == user_id, ITEM.quantity > 0, ITEM.printing_id.in_(set(printing_ids)))
        .group_by(ITEM.printing_id)
    )
    return {pid: int(total) for pid, total in rows}
