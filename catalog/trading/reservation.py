"""Reservation: which copies open offers hold, what is still available, and the
"needs attention" mark when a held copy leaves the collection.

available for trade = ``for_trade`` − copies held by the giver's open offers.

Which offers hold a giver's copies (our reading of "held by the giver's open offers"): an offer
holds what its giver has *agreed to give* — before acceptance, the lines of the current
version's author (the proposer of an offer, the author of a counter); after acceptance (mail),
both sides until the receiver confirms receipt. A request for my cards that I have not agreed
to holds nothing of mine, so nobody can lock someone else's have list by sending offers
(pokecollector's "only unallocated copies are tradable", without the griefing); it is checked
against my availability when proposed and again when I accept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlmodel import Session

from catalog.collection.grades import ItemGrade
from catalog.errors import Message
from catalog.models import Card, CardSet, TradeEvent
from catalog.models.columns import CARD, ITEM, PRINTING, SET
from catalog.models.trade_columns import LINE, LINE_T, OFFERED, SHIPPING, TRADE, TRADE_T
from catalog.trading.errors import Unavailable

Key = tuple[int, ItemGrade]


def aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their (UTC) offset."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class LineSpec:
    """Copies one party gives: a printing, a grade, a quantity (already validated)."""

    printing_id: int
    grade: ItemGrade
    quantity: int

    @property
    def key(self) -> Key:
        return (self.printing_id, self.grade)


def commits(giver_id: Any, now: datetime) -> Any:
    """SQL condition: the trade (joined as TRADE) holds the copies ``giver_id`` gives in it."""
    # An offer marked "needs attention" holds nothing: it cannot be accepted until a counter
    # re-checks it, and meanwhile held ≤ for trade stays true for every item.
    return and_(TRADE.needs_attention.is_(False), _commits(giver_id, now))


def _commits(giver_id: Any, now: datetime) -> Any:
    return or_(
        and_(TRADE.status.in_(OFFERED), TRADE.author_id == giver_id, TRADE.expires_at > now),
        and_(
            TRADE.status.in_(SHIPPING),
            or_(
                and_(TRADE.proposer_id == giver_id, TRADE.proposer_received_at.is_(None)),
                and_(TRADE.recipient_id == giver_id, TRADE.recipient_received_at.is_(None)),
            ),
        ),
    )


def _current_lines() -> Any:
    return LINE_T.join(TRADE_T, and_(TRADE.id == LINE.trade_id, TRADE.version == LINE.version))


def held(session: Session, *, giver_id: int, now: datetime, exclude_trade_id: int | None = None) -> dict[Key, int]:
    """Copies of ``giver_id`` held by their open offers, per (printing, grade)."""
    query = (
        select(LINE.printing_id, LINE.condition, LINE.language, LINE.finish, func.sum(LINE.quantity))
        .select_from(_current_lines())
        .where(LINE.giver_id == giver_id, commits(giver_id, now))
        .group_by(LINE.printing_id, LINE.condition, LINE.language, LINE.finish)
    )
    if exclude_trade_id is not None:
        query = query.where(TRADE.id != exclude_trade_id)
    return {(pid, ItemGrade(c, lang, f)): int(q) for pid, c, lang, f, q in session.execute(query)}


def for_trade_of(session: Session, user_id: int, printing_ids: Iterable[int]) -> dict[Key, int]:
    """The user's quantity for trade per (printing, grade), for these printings."""
    ids = sorted(set(printing_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.for_trade).where(
            ITEM.user_id == user_id, ITEM.printing_id.in_(ids)
        )
    )
    return {(pid, ItemGrade(c, lang, f)): int(ft) for pid, c, lang, f, ft in rows}


def available(session: Session, *, user_id: int, now: datetime, exclude_trade_id: int | None = None) -> dict[Key, int]:
    """Every (printing, grade) the user can still offer: for trade − held (only positive ones).

    ``exclude_trade_id``: what a new version of that trade may take, its own holds left out —
    exactly what :func:`check_available` allows a counter (the counter form added
    the trade's lines to the availability, though only its author's lines are held by it).
    """
    holds = held(session, giver_id=user_id, now=now, exclude_trade_id=exclude_trade_id)
    rows = session.execute(
        select(ITEM.printing_id, ITEM.condition, ITEM.language, ITEM.finish, ITEM.for_trade).where(
            ITEM.user_id == user_id, ITEM.for_trade > 0
        )
    )
    out = {}
    for pid, c, lang, f, ft in rows:
        key = (pid, ItemGrade(c, lang, f))
        left = int(ft) - holds.get(key, 0)
        if left > 0:
            out[key] = left
    return out


def describe_printings(session: Session, printing_ids: Iterable[int]) -> dict[int, tuple[str, str, str]]:
    """printing id → (set code, number, card name), for messages."""
    ids = sorted(set(printing_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(PRINTING.id, SET.code, PRINTING.number, CARD.name)
        .join(CardSet, SET.id == PRINTING.set_id)
        .join(Card, CARD.id == PRINTING.card_id)
        .where(PRINTING.id.in_(ids))
    )
    return {pid: (code, number, name) for pid, code, number, name in rows}


def check_available(
    session: Session,
    *,
    sides: Mapping[int, list[LineSpec]],
    usernames: Mapping[int, str],
    now: datetime,
    exclude_trade_id: int | None = None,
) -> None:
    """Refuse (:class:`Unavailable`, naming every short line) unless each giver has every line available.

    ``sides``: giver id → their lines. The trade being accepted or countered is excluded from
    the holds (its own copies count as available to it).
    """
    short: list[dict[str, Any]] = []
    for giver_id, lines in sides.items():
        if not lines:
            continue
        have = for_trade_of(session, giver_id, (line.printing_id for line in lines))
        holds = held(session, giver_id=giver_id, now=now, exclude_trade_id=exclude_trade_id)
        for line in lines:
            left = have.get(line.key, 0) - holds.get(line.key, 0)
            if line.quantity > left:
                short.append({"giver": giver_id, "line": line, "available": max(0, left)})
    if not short:
        return
    names = describe_printings(session, (s["line"].printing_id for s in short))
    details, zh, en = [], [], []
    for s in short:
        spec: LineSpec = s["line"]
        code, number, name = names.get(spec.printing_id, ("?", "?", "?"))
        grade = spec.grade
        who = usernames.get(s["giver"], str(s["giver"]))
        details.append(
            {
                "giver": who,
                "set": code,
                "number": number,
                "name": name,
                "condition": grade.condition,
                "language": grade.language,
                "finish": grade.finish,
                "quantity": spec.quantity,
                "available": s["available"],
            }
        )
        label = f"{name}（{number} {grade.condition}/{grade.language}/{grade.finish}）"
        zh.append(f"{who} 的{label}：要 {spec.quantity} 张，可交换的只有 {s['available']} 张")
        en.append(
            f"{who}'s {name} ({number} {grade.condition}/{grade.language}/{grade.finish}): "
            f"{spec.quantity} asked, {s['available']} available for trade"
        )
    raise Unavailable(
        Message("可交换数量不足：" + "；".join(zh), "not enough copies for trade: " + "; ".join(en)), details
    )


def flag_shortfalls(session: Session, *, user_id: int, for_trade_after: Mapping[Key, int], now: datetime) -> list[int]:
    """After the user's quantity for trade fell (a −1, a replace import, another trade …), mark
    every open offer that can no longer have the copies it relies on "needs attention".

    Inside :func:`deferred_flags` (a settlement moving many lines) the reductions are only
    collected, and marked once at the end: one pass over the trades in id order per
    transaction, so two transactions flagging overlapping trades cannot deadlock on PostgreSQL.
    """
    pending = session.info.get(DEFER)
    if pending is not None:
        pending.setdefault(user_id, {}).update(for_trade_after)
        return []
    ids = sorted(shortfalls(session, user_id=user_id, for_trade_after=for_trade_after, now=now))
    mark_needs_attention(session, trade_ids=ids, actor_id=user_id, now=now)
    return ids


DEFER = "lunzang.trading.deferred_flags"


@contextmanager
def deferred_flags(session: Session, *, now: datetime) -> Iterator[None]:
    """Collect the needs-attention checks of several ledger changes; run them once at the end."""
    session.info[DEFER] = {}
    try:
        yield
    finally:
        pending: dict[int, dict[Key, int]] = session.info.pop(DEFER, {})
    ids: set[int] = set()
    for user_id, after in pending.items():
        ids |= shortfalls(session, user_id=user_id, for_trade_after=after, now=now)
    mark_needs_attention(session, trade_ids=sorted(ids), actor_id=None, now=now)


def shortfalls(session: Session, *, user_id: int, for_trade_after: Mapping[Key, int], now: datetime) -> set[int]:
    """The open offers that rely on more of the user's copies than the new for-trade leaves.

    An offer relies on the user's copies of a key when one of its current lines gives them; it
    is short when its quantity exceeds the new for-trade minus what the user's *other*
    committed offers hold.
    """
    if not for_trade_after:
        return set()
    commit_flag = _commits(user_id, now)
    rows = session.execute(
        select(TRADE.id, LINE.printing_id, LINE.condition, LINE.language, LINE.finish, LINE.quantity, commit_flag)
        .select_from(_current_lines())
        .where(
            LINE.giver_id == user_id,
            TRADE.needs_attention.is_(False),
            or_(and_(TRADE.status.in_(OFFERED), TRADE.expires_at > now), commit_flag),
        )
    ).all()
    relevant = [r for r in rows if (r[1], ItemGrade(r[2], r[3], r[4])) in for_trade_after]
    if not relevant:
        return set()
    holds = held(session, giver_id=user_id, now=now)
    flagged: set[int] = set()
    for trade_id, pid, c, lang, f, quantity, committed in relevant:
        key = (pid, ItemGrade(c, lang, f))
        others = holds.get(key, 0) - (quantity if committed else 0)
        if quantity > for_trade_after[key] - others:
            flagged.add(trade_id)
    return flagged


def mark_needs_attention(session: Session, *, trade_ids: list[int], actor_id: int | None, now: datetime) -> None:
    """Mark the trades (locked in id order first), with an event each."""
    if not trade_ids:
        return
    locking = select(TRADE.id, TRADE.version, TRADE.status).where(TRADE.id.in_(trade_ids)).order_by(TRADE.id)
    if session.get_bind().dialect.name == "postgresql":
        locking = locking.with_for_update()
    versions = session.execute(locking).all()
    session.execute(update(TRADE_T).where(TRADE.id.in_(trade_ids)).values(needs_attention=True, updated_at=now))
    for trade_id, version, status in versions:
        session.add(
            TradeEvent(
                trade_id=trade_id, version=version, actor_id=actor_id, action="needs_attention", status=status, at=now
            )
        )
    session.flush()


def held_by(session: Session, *, giver_ids: Iterable[int], now: datetime) -> dict[int, dict[Key, int]]:
    """:func:`held` for many givers in one query (matching)."""
    ids = sorted(set(giver_ids))
    if not ids:
        return {}
    query = (
        select(LINE.giver_id, LINE.printing_id, LINE.condition, LINE.language, LINE.finish, func.sum(LINE.quantity))
        .select_from(_current_lines())
        .where(LINE.giver_id.in_(ids), commits(LINE.giver_id, now))
        .group_by(LINE.giver_id, LINE.printing_id, LINE.condition, LINE.language, LINE.finish)
    )
    out: dict[int, dict[Key, int]] = {}
    for giver, pid, c, lang, f, q in session.execute(query):
        out.setdefault(giver, {})[(pid, ItemGrade(c, lang, f))] = int(q)
    return out
