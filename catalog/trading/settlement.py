"""Settlement: accept, and for mail trades sent / received per side.

One transaction moves the cards: both parties locked in id order (``ledger.lock_user`` on
PostgreSQL; ``BEGIN IMMEDIATE`` through the caller's writer transaction on SQLite), the trade
row locked, availability checked again, then every line moved giver → receiver in the same
grade through :func:`catalog.collection.ledger.adjust` (reason ``trade``, ref = the trade id,
a row on both sides), the giver's quantity for trade going down with the copies.

``local`` trades settle on acceptance; ``mail`` trades move each side's cards when its
receiver confirms receipt, so a lost parcel never creates or destroys a card silently.
Every call is idempotent: a retried accept (same user, same version) or received settles once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from catalog.collection.ledger import adjust
from catalog.collection.owned_decks import check_decks_available, deck_lines_of, move_decks
from catalog.errors import Message
from catalog.models import Trade
from catalog.models.trade_columns import EVENT, SHIPPING
from catalog.trading.errors import NeedsAttention
from catalog.trading.offers import (
    _usernames,
    check_open_offer,
    conflict,
    lines_of,
    locked_trade,
    other_party,
    record,
)
from catalog.trading.reservation import check_available, deferred_flags


@dataclass(frozen=True)
class Outcome:
    """A trade after an action; ``repeated`` when the action had already been done (a retry)."""

    trade: Trade
    repeated: bool = False


def _move_side(session: Session, trade: Trade, giver_id: int, receiver_id: int, now: datetime) -> None:
    """Every line the giver gives, out of their collection (and for trade) into the receiver's."""
    assert trade.id is not None
    ref = str(trade.id)
    with deferred_flags(session, now=now):
        _move_lines(session, trade, giver_id, receiver_id, ref, now)
    move_decks(session, trade, giver_id, receiver_id, now)


def _move_lines(session: Session, trade: Trade, giver_id: int, receiver_id: int, ref: str, now: datetime) -> None:
    for line in lines_of(session, trade, giver_id):
        adjust(
            session=session,
            user_id=giver_id,
            printing_id=line.printing_id,
            grade=line.grade,
            delta=-line.quantity,
            trade_delta=-line.quantity,
            reason="trade",
            ref=ref,
            now=now,
        )
        adjust(
            session=session,
            user_id=receiver_id,
            printing_id=line.printing_id,
            grade=line.grade,
            delta=line.quantity,
            reason="trade",
            ref=ref,
            now=now,
        )


def _accepted_before(session: Session, trade: Trade, user_id: int, version: int) -> bool:
    return (
        session.scalar(
            select(EVENT.id).where(
                EVENT.trade_id == trade.id,
                EVENT.action == "accept",
                EVENT.actor_id == user_id,
                EVENT.version == version,
            )
        )
        is not None
    )


def accept(*, session: Session, trade_id: int, user_id: int, version: int, now: datetime) -> Outcome:
    """The party who did not write ``version`` agrees to it; a local trade settles at once.

    Refused with nothing changed (409): a stale version, an expired or closed offer, one's own
    version, an offer needing attention, or lines no longer available. Accepting again what
    one already accepted answers the current trade without moving anything.
    """
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    settled = trade.status in ("accepted", "completed", "disputed") and trade.version == version
    if settled and _accepted_before(session, trade, user_id, version):
        return Outcome(trade, repeated=True)
    check_open_offer(trade, version, now, action=("不能接受", "it cannot be accepted"))
    if user_id == trade.author_id:
        raise conflict("这是你提出的版本，要等对方接受", "you wrote this version: the other party accepts it")
    if trade.needs_attention:
        raise NeedsAttention(
            Message(
                "这笔交易需要处理：有一方的卡牌已不在可交换的收藏中，请先还价修改",
                "this trade needs attention: some cards are no longer available; counter it first",
            )
        )
    other = other_party(trade, user_id)
    check_available(
        session,
        sides={user_id: lines_of(session, trade, user_id), other: lines_of(session, trade, other)},
        usernames=_usernames(session, user_id, other),
        now=now,
        exclude_trade_id=trade_id,
    )
    decks = {user_id: deck_lines_of(session, trade, user_id), other: deck_lines_of(session, trade, other)}
    if any(decks.values()):  # whole decks: still the givers', for trade, not locked by an event
        check_decks_available(session, sides=decks, now=now, exclude_trade_id=trade_id)
    trade.status, trade.accepted_at, trade.updated_at = "accepted", now, now
    session.add(trade)
    record(session, trade, actor_id=user_id, action="accept", now=now)
    session.flush()
    if trade.mode == "local":
        # Mark both sides received before moving: the trade then holds nothing, and the
        # needs-attention check the ledger runs sees only the other offers.
        trade.proposer_received_at = trade.recipient_received_at = now
        trade.status, trade.completed_at = "completed", now
        session.add(trade)
        session.flush()
        with deferred_flags(session, now=now):  # one ordered needs-attention pass for both sides
            _move_lines(session, trade, trade.proposer_id, trade.recipient_id, str(trade.id), now)
            _move_lines(session, trade, trade.recipient_id, trade.proposer_id, str(trade.id), now)
        move_decks(session, trade, trade.proposer_id, trade.recipient_id, now)
        move_decks(session, trade, trade.recipient_id, trade.proposer_id, now)
        record(session, trade, actor_id=user_id, action="complete", now=now)
        session.flush()
    return Outcome(trade)


def _mail_trade(trade: Trade) -> None:
    if trade.mode != "mail":
        raise conflict(
            "当面交易在接受时已完成，不需要寄出或确认收货", "a local trade settles on acceptance: nothing to send"
        )
    if trade.status not in SHIPPING:
        raise conflict(
            "只有已接受的邮寄交易可以标记寄出或收到", "only an accepted mail trade can be marked sent or received"
        )


def mark_sent(*, session: Session, trade_id: int, user_id: int, now: datetime) -> Outcome:
    """The caller has posted their cards (a mail trade); nothing moves yet."""
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    _mail_trade(trade)
    field = "proposer_sent_at" if user_id == trade.proposer_id else "recipient_sent_at"
    if getattr(trade, field) is not None:
        return Outcome(trade, repeated=True)
    setattr(trade, field, now)
    trade.updated_at = now
    session.add(trade)
    record(session, trade, actor_id=user_id, action="sent", now=now)
    session.flush()
    return Outcome(trade)


def mark_received(*, session: Session, trade_id: int, user_id: int, now: datetime) -> Outcome:
    """The caller received the other party's cards: those cards move now (ledger, reason trade).

    When both sides are received the trade is completed (a disputed trade stays disputed).
    The giver's copies are checked again first: if they left the collection meanwhile, 409
    naming them, and nothing moves until the giver's collection shows them again.
    """
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    _mail_trade(trade)
    giver = other_party(trade, user_id)
    field = "proposer_received_at" if giver == trade.proposer_id else "recipient_received_at"
    if getattr(trade, field) is not None:
        return Outcome(trade, repeated=True)
    check_available(
        session,
        sides={giver: lines_of(session, trade, giver)},
        usernames=_usernames(session, giver),
        now=now,
        exclude_trade_id=trade_id,
    )
    setattr(trade, field, now)
    trade.updated_at = now
    session.add(trade)
    session.flush()
    _move_side(session, trade, giver, user_id, now)
    record(session, trade, actor_id=user_id, action="received", now=now)
    if trade.proposer_received_at is not None and trade.recipient_received_at is not None:
        if trade.status == "accepted":
            trade.status = "completed"
        trade.completed_at = now
        session.add(trade)
        record(session, trade, actor_id=user_id, action="complete", now=now)
    session.flush()
    return Outcome(trade)
