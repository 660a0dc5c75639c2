"""Read-only views of a collection (issue 6 §6): totals, set completion, the item list, history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import distinct, func, select
from sqlmodel import Session

from catalog.collection.listing import (
    MAX_PER_PAGE,
    ItemRow,
    Page,
    Totals,
    changes_between,
    collection_page,
    collection_version,
    database_of,
    keep,
    kept,
    kept_before,
    totals_key,
)
from catalog.collection.tables import CARD, GAME, IMPORT, ITEM, LEDGER, PRINTING, SET
from catalog.games import GAMES
from catalog.models import Card, CardSet, CollectionImport, Game, Printing

__all__ = ["MAX_PER_PAGE", "ItemRow", "Page", "Totals", "collection_page"]  # the page itself lives in listing.py


def totals(*, session: Session, user_id: int, version: int | None = None) -> Totals:
    """The user's totals; kept per collection version (see :mod:`catalog.collection.listing`):
    ``version`` when the caller has read it in this transaction already."""
    what = totals_key(database_of(session), user_id)
    version = collection_version(session, user_id) if version is None else version
    found = kept(what, version)
    if found is None:
        found = _totals_since(session, user_id, what, version)
    if found is not None:
        keep(what, version, found)
        return found
    c = ITEM
    row = session.execute(
        select(
            func.count(distinct(c.printing_id)),
            func.coalesce(func.sum(c.quantity), 0),
            func.coalesce(func.sum(c.for_trade), 0),
        ).where(c.user_id == user_id, c.quantity > 0)
    ).one()
    result = Totals(int(row[0]), int(row[1]), int(row[2]))
    keep(what, version, result)
    return result


def _totals_since(session: Session, user_id: int, what: Any, version: int) -> Totals | None:
    """The totals of an older collection version moved on by the changes since (cheaper than
    summing every item again), if such totals are kept."""
    older = kept_before(what, version)
    changes = changes_between(session, user_id, older[0], version) if older is not None else None
    if older is None or changes is None:
        return None
    then: Totals = older[1]
    owned_now = {ch.printing_id for ch in changes if ch.quantity > 0}
    owned_then = {ch.printing_id for ch in changes if ch.quantity_then > 0}
    return Totals(
        then.printings + len(owned_now) - len(owned_then),
        then.cards + sum(ch.quantity - ch.quantity_then for ch in changes),
        then.for_trade + sum(ch.for_trade - ch.for_trade_then for ch in changes),
    )


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
    # Games in registry order (the main game first), as every other page lists them.
    order = {slug: index for index, slug in enumerate(GAMES)}
    out = sorted(sets.values(), key=lambda s: order.get(s.game, len(order)))
    return [s for s in out if s.owned] if only_started else out


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
