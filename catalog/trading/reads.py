"""Reading trades (for the pages and the API): one trade with both sides, lists, counts.

Reads never write: an offer past its expiry is shown as expired (``effective_status``) until
the next write to it records the expiry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select
from sqlmodel import Session, col

from catalog.models import Card, CardSet, Game, Printing, Trade, TradeEvent
from catalog.models.columns import CARD, GAME, PRINTING, SET, USER
from catalog.models.trade_columns import EVENT, FINAL, LINE, LINE_T, OFFERED, SHIPPING, TRADE
from catalog.trading.offers import effective_status, not_found
from catalog.trading.reservation import Key, aware

STATUS_FILTERS = ("proposed", "countered", "accepted", "completed", "declined", "cancelled", "expired", "disputed")
TABS = ("incoming", "outgoing", "attention", "history")


@dataclass(frozen=True)
class LineView:
    printing_id: int
    game: str
    set: str
    number: str
    name: str
    rarity: str
    rarity_rank: int
    condition: str
    language: str
    finish: str
    quantity: int


@dataclass(frozen=True)
class EventView:
    action: str
    status: str
    version: int
    actor: str | None
    note: str
    at: datetime


@dataclass
class TradeView:
    trade: Trade
    status: str
    proposer: str
    recipient: str
    author: str
    lines: dict[int, list[LineView]]  # giver id → lines of the current version
    events: list[EventView] = field(default_factory=list)
    # giver id → the whole decks they give in the current version: (owned deck id, deck name)
    decks: dict[int, list[tuple[int, str]]] = field(default_factory=dict)

    @property
    def id(self) -> int:
        assert self.trade.id is not None
        return self.trade.id

    def party_name(self, user_id: int) -> str:
        return self.proposer if user_id == self.trade.proposer_id else self.recipient


def _line_views(
    session: Session, trade_ids: Sequence[int], versions: dict[int, int]
) -> dict[int, dict[int, list[LineView]]]:
    if not trade_ids:
        return {}
    L = LINE
    rows = session.execute(
        select(
            L.trade_id,
            L.version,
            L.giver_id,
            L.printing_id,
            GAME.slug,
            SET.code,
            PRINTING.number,
            CARD.name,
            PRINTING.rarity,
            PRINTING.rarity_rank,
            L.condition,
            L.language,
            L.finish,
            L.quantity,
        )
        .select_from(LINE_T)
        .join(Printing, PRINTING.id == L.printing_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(L.trade_id.in_(list(trade_ids)))
        .order_by(L.trade_id, SET.code, PRINTING.number, L.condition, L.language, L.finish)
    )
    out: dict[int, dict[int, list[LineView]]] = {}
    for trade_id, version, giver, *rest in rows:
        if versions.get(trade_id) != version:
            continue
        out.setdefault(trade_id, {}).setdefault(giver, []).append(LineView(*rest))
    return out


def _names(session: Session, ids: set[int]) -> dict[int, str]:
    return dict(session.execute(select(USER.id, USER.username).where(USER.id.in_(sorted(ids)))).all())


def trade_view(*, session: Session, trade_id: int, viewer_id: int, is_admin: bool = False, now: datetime) -> TradeView:
    """One trade as its parties (and admins) see it; :class:`TradeNotFound` for anyone else."""
    trade = session.get(Trade, trade_id)
    if trade is None or (viewer_id not in (trade.proposer_id, trade.recipient_id) and not is_admin):
        raise not_found()
    events = session.scalars(select(TradeEvent).where(EVENT.trade_id == trade_id).order_by(EVENT.id)).all()
    names = _names(session, {trade.proposer_id, trade.recipient_id, *(e.actor_id for e in events if e.actor_id)})
    view = _view(trade, names, _line_views(session, [trade_id], {trade_id: trade.version}).get(trade_id, {}), now)
    view.events = [
        EventView(e.action, e.status, e.version, names.get(e.actor_id) if e.actor_id else None, e.note, aware(e.at))
        for e in events
    ]
    view.decks = _deck_views(session, trade)
    return view


def _deck_views(session: Session, trade: Trade) -> dict[int, list[tuple[int, str]]]:
    from catalog.models import DeckRecord, OwnedDeck, TradeDeckLine

    rows = session.execute(
        select(col(TradeDeckLine.giver_id), col(TradeDeckLine.owned_deck_id), col(DeckRecord.name))
        .join(OwnedDeck, col(OwnedDeck.id) == col(TradeDeckLine.owned_deck_id))
        .join(DeckRecord, col(DeckRecord.id) == col(OwnedDeck.deck_id))
        .where(col(TradeDeckLine.trade_id) == trade.id, col(TradeDeckLine.version) == trade.version)
        .order_by(col(TradeDeckLine.owned_deck_id))
    )
    found: dict[int, list[tuple[int, str]]] = {}
    for giver_id, owned_id, name in rows:
        found.setdefault(giver_id, []).append((owned_id, name))
    return found


def _view(trade: Trade, names: dict[int, str], lines: dict[int, list[LineView]], now: datetime) -> TradeView:
    return TradeView(
        trade,
        effective_status(trade, now),
        names.get(trade.proposer_id, "?"),
        names.get(trade.recipient_id, "?"),
        names.get(trade.author_id, "?"),
        lines,
    )


def _needs_me(user_id: Any, now: datetime) -> Any:
    """SQL: the trade waits for ``user_id`` (an offer they did not write, or a parcel to send/confirm)."""
    as_proposer = and_(
        TRADE.proposer_id == user_id, or_(TRADE.proposer_sent_at.is_(None), TRADE.recipient_received_at.is_(None))
    )
    as_recipient = and_(
        TRADE.recipient_id == user_id, or_(TRADE.recipient_sent_at.is_(None), TRADE.proposer_received_at.is_(None))
    )
    return or_(
        and_(TRADE.status.in_(OFFERED), TRADE.author_id != user_id, TRADE.expires_at > now),
        and_(TRADE.status == "accepted", TRADE.mode == "mail", or_(as_proposer, as_recipient)),
    )


def list_trades(
    *,
    session: Session,
    user_id: int,
    now: datetime,
    tab: str | None = None,
    status: str | None = None,
    limit: int = 200,
) -> list[TradeView]:
    """The user's trades, newest change first: a tab of the inbox, or one (effective) status."""
    mine = or_(TRADE.proposer_id == user_id, TRADE.recipient_id == user_id)
    query = select(Trade).where(mine)
    live = and_(TRADE.status.in_(OFFERED), TRADE.expires_at > now)
    if tab == "incoming":
        query = query.where(or_(and_(live, TRADE.author_id != user_id), TRADE.status == "accepted"))
    elif tab == "outgoing":
        query = query.where(live, TRADE.author_id == user_id)
    elif tab == "attention":
        query = query.where(TRADE.needs_attention.is_(True), or_(live, TRADE.status.in_(SHIPPING)))
    elif tab == "history":
        query = query.where(
            or_(TRADE.status.in_((*FINAL, "disputed")), and_(TRADE.status.in_(OFFERED), TRADE.expires_at <= now))
        )
    if status == "expired":
        query = query.where(or_(TRADE.status == "expired", and_(TRADE.status.in_(OFFERED), TRADE.expires_at <= now)))
    elif status in OFFERED:
        query = query.where(TRADE.status == status, TRADE.expires_at > now)
    elif status:
        query = query.where(TRADE.status == status)
    trades = session.scalars(query.order_by(TRADE.updated_at.desc(), TRADE.id.desc()).limit(limit)).all()
    names = _names(
        session, {t.proposer_id for t in trades} | {t.recipient_id for t in trades} | {t.author_id for t in trades}
    )
    lines = _line_views(session, [t.id for t in trades if t.id], {t.id: t.version for t in trades if t.id})
    return [_view(t, names, lines.get(t.id or 0, {}), now) for t in trades]


def action_count(*, session: Session, user_id: int, now: datetime) -> int:
    """How many trades wait for the user (the header's badge): offers to answer, parcels to
    send or confirm. Not "unread": a GET never writes, so nothing records what was read."""
    return int(session.scalar(_action_count_statement(), {"user_id": user_id, "now": now}) or 0)


@cache
def _action_count_statement() -> Any:
    """:func:`action_count`'s statement, built once (it is on every signed-in page: building
    its clauses cost more than running it;)."""
    user: Any = bindparam("user_id")
    now: Any = bindparam("now")
    mine = or_(TRADE.proposer_id == user, TRADE.recipient_id == user)
    return select(func.count()).select_from(Trade).where(mine, _needs_me(user, now))


def describe_lines(session: Session, lines: Sequence[Any]) -> list[dict[str, Any]]:
    """LineSpecs as API lines (set, number, name, rarity, grade, quantity)."""
    from catalog.trading.reservation import describe_printings

    names = describe_printings(session, (line.printing_id for line in lines))
    return [
        {
            "set": names[line.printing_id][0],
            "number": names[line.printing_id][1],
            "name": names[line.printing_id][2],
            "condition": line.grade.condition,
            "language": line.grade.language,
            "finish": line.grade.finish,
            "quantity": line.quantity,
        }
        for line in lines
        if line.printing_id in names
    ]


@dataclass(frozen=True)
class OfferableRow:
    """A copy a user can put in an offer (available = for trade − held), for the composer."""

    printing_id: int
    game: str
    set: str
    number: str
    name: str
    rarity: str
    condition: str
    language: str
    finish: str
    available: int

    @property
    def field(self) -> str:
        """The composer's form field suffix naming this item."""
        return f"{self.printing_id}:{self.condition}:{self.language}:{self.finish}"


def offerable(
    *,
    session: Session,
    user_id: int,
    now: datetime,
    printing_ids: Any = None,
    limit: int = 300,
    counter_of: int | None = None,
    keep: Iterable[Key] = (),
) -> list[OfferableRow]:
    """What the user can offer now, by game, set and number; ``printing_ids`` (a SELECT of ids,
    from the search language) narrows it. At most ``limit`` rows.

    ``counter_of``: what a new version of that trade may take (its own holds left out, as the
    counter's check counts them); ``keep``: keys shown even when nothing of them is available
    (the trade's current lines, so a counter sees what it can no longer give, at 0).
    """
    from catalog.trading.reservation import available

    left: dict[Key, int] = dict(available(session, user_id=user_id, now=now, exclude_trade_id=counter_of))
    kept = set(keep)
    for key in kept:
        left.setdefault(key, 0)
    if not left:
        return []
    pids = sorted({k[0] for k in left})
    query = (
        select(PRINTING.id, GAME.slug, SET.code, PRINTING.number, CARD.name, PRINTING.rarity)
        .join(Card, CARD.id == PRINTING.card_id)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Game, GAME.id == SET.game_id)
        .where(PRINTING.id.in_(pids))
    )
    info = {row[0]: row for row in session.execute(query)}
    if printing_ids is not None:
        narrowed = set(session.scalars(select(PRINTING.id).where(PRINTING.id.in_(pids), PRINTING.id.in_(printing_ids))))
        left = {key: n for key, n in left.items() if key[0] in narrowed or key in kept}
    rows = [
        OfferableRow(
            pid,
            info[pid][1],
            info[pid][2],
            info[pid][3],
            info[pid][4],
            info[pid][5],
            grade.condition,
            grade.language,
            grade.finish,
            n,
        )
        for (pid, grade), n in left.items()
        if pid in info
    ]
    rows.sort(key=lambda r: (r.game, r.set, r.number, r.condition, r.language, r.finish))
    return rows[:limit]
