"""Offers and their state machine: propose, counter, decline, cancel, dispute, expire.

States: proposed → countered (a new version of the same trade, written by the party who
counters; the other side's agreement is gone: only the non-author may accept) → accepted →
(mail: sent by each side → received by each side) → completed; or declined / cancelled /
expired / disputed. After acceptance a cancel needs both parties (Deckbox). Every transition
writes a :class:`TradeEvent` (who, what, when, version).

Locking: every transition locks both parties' user rows in id order (``ledger.lock_user`` on
PostgreSQL; SQLite's writer transaction, ``BEGIN IMMEDIATE``, serialises every write already),
then the trade row. Every writer of quantities locks the user row first, so no two
transactions ever wait for each other in opposite orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlmodel import Session

from catalog.collection.ledger import lock_user
from catalog.errors import Message
from catalog.models import Trade, TradeEvent, TradeLine, User
from catalog.models.trade_columns import LINE, OFFERED, SHIPPING, TRADE, TRADE_T
from catalog.models.trading import TRADE_MODES
from catalog.trading.errors import OfferLimit, StaleVersion, TradeConflict, TradeError, TradeNotFound
from catalog.trading.lines import check_printings, merge_lines
from catalog.trading.reservation import LineSpec, aware, check_available

MAX_MESSAGE = 1000


@dataclass(frozen=True)
class TradeSettings:
    """What the site configures (app config ``TRADE_*``): expiry and the new-account limit."""

    expiry_days: int = 14
    # Deckbox's trader levels: fewer than ``new_account_trades`` completed trades → at most
    # ``new_account_open_offers`` open offers of one's own at a time. 0 turns the limit off.
    new_account_trades: int = 3
    new_account_open_offers: int = 5


DEFAULT_SETTINGS = TradeSettings()


def not_found() -> TradeNotFound:
    return TradeNotFound(Message("没有这笔交易", "no such trade"))


def conflict(zh: str, en: str) -> TradeConflict:
    return TradeConflict(Message(zh, en))


def is_expired(trade: Trade, now: datetime) -> bool:
    return trade.status in OFFERED and aware(trade.expires_at) <= now


def effective_status(trade: Trade, now: datetime) -> str:
    """The status as the parties see it: an offer past its expiry is expired (GET never writes)."""
    return "expired" if is_expired(trade, now) else trade.status


def record(session: Session, trade: Trade, *, actor_id: int | None, action: str, now: datetime, note: str = "") -> None:
    assert trade.id is not None
    session.add(
        TradeEvent(
            trade_id=trade.id,
            version=trade.version,
            actor_id=actor_id,
            action=action,
            status=trade.status,
            note=note[:MAX_MESSAGE],
            at=now,
        )
    )


def lock_parties(session: Session, *user_ids: int) -> None:
    """Lock the users' rows in id order (no deadlock between two trades of the same people)."""
    for user_id in sorted(set(user_ids)):
        lock_user(session, user_id)


def locked_trade(session: Session, *, trade_id: int, user_id: int) -> Trade:
    """The trade, with both parties and then its row locked; :class:`TradeNotFound` unless
    ``user_id`` is one of its two parties (a third user learns nothing, not even that it exists)."""
    parties = session.execute(select(TRADE.proposer_id, TRADE.recipient_id).where(TRADE.id == trade_id)).first()
    if parties is None or user_id not in parties:
        raise not_found()
    lock_parties(session, *parties)
    query = select(Trade).where(TRADE.id == trade_id).execution_options(populate_existing=True)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    trade = session.scalars(query).one()
    return trade


def other_party(trade: Trade, user_id: int) -> int:
    return trade.recipient_id if user_id == trade.proposer_id else trade.proposer_id


def lines_of(session: Session, trade: Trade, giver_id: int, version: int | None = None) -> list[LineSpec]:
    from catalog.collection.grades import ItemGrade

    rows = session.execute(
        select(LINE.printing_id, LINE.condition, LINE.language, LINE.finish, LINE.quantity)
        .where(LINE.trade_id == trade.id, LINE.version == (version or trade.version), LINE.giver_id == giver_id)
        .order_by(LINE.printing_id, LINE.condition, LINE.language, LINE.finish)
    )
    return [LineSpec(pid, ItemGrade(c, lang, f), q) for pid, c, lang, f, q in rows]


def _usernames(session: Session, *user_ids: int) -> dict[int, str]:
    from catalog.models.columns import USER

    return dict(session.execute(select(USER.id, USER.username).where(USER.id.in_(list(user_ids)))).all())


def _check_message(message: str | None) -> str:
    text = (message or "").strip()
    if len(text) > MAX_MESSAGE:
        raise TradeError(Message(f"留言最多 {MAX_MESSAGE} 个字", f"the message is limited to {MAX_MESSAGE} characters"))
    return text


def _write_lines(session: Session, trade: Trade, giver_id: int, lines: Sequence[LineSpec]) -> None:
    assert trade.id is not None
    for line in lines:
        session.add(
            TradeLine(
                trade_id=trade.id,
                version=trade.version,
                giver_id=giver_id,
                printing_id=line.printing_id,
                condition=line.grade.condition,
                language=line.grade.language,
                finish=line.grade.finish,
                quantity=line.quantity,
            )
        )


def _write_decks(session: Session, trade: Trade, sides: dict[int, Sequence[int]]) -> None:
    """The whole decks each side gives in this version (catalog.collection.owned_decks)."""
    if any(sides.values()):
        from catalog.collection.owned_decks import write_deck_lines

        for giver_id, owned_ids in sides.items():
            write_deck_lines(session, trade, giver_id, owned_ids)


def completed_count(session: Session, user_id: int) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(TRADE_T)
            .where(TRADE.status == "completed", or_(TRADE.proposer_id == user_id, TRADE.recipient_id == user_id))
        )
        or 0
    )


def _check_offer_limit(session: Session, user_id: int, settings: TradeSettings, now: datetime) -> None:
    if settings.new_account_trades <= 0 or completed_count(session, user_id) >= settings.new_account_trades:
        return
    open_offers = int(
        session.scalar(
            select(func.count())
            .select_from(TRADE_T)
            .where(TRADE.proposer_id == user_id, TRADE.status.in_(OFFERED), TRADE.expires_at > now)
        )
        or 0
    )
    if open_offers >= settings.new_account_open_offers:
        n, limit = settings.new_account_trades, settings.new_account_open_offers
        raise OfferLimit(
            Message(
                f"完成 {n} 笔交易之前，最多同时发出 {limit} 个未结报价；请等对方回应或撤回一个",
                f"until you have completed {n} trades you may have at most {limit} open offers; "
                "wait for an answer or withdraw one",
            )
        )


def expire_due(session: Session, *, user_ids: Sequence[int] | None, now: datetime) -> int:
    """Mark offers past their expiry as expired (logged, actor: the system): those of
    ``user_ids``, or every one (``None``: ``lunzang trades expire``, e.g. from cron)."""
    query = select(Trade).where(TRADE.status.in_(OFFERED), TRADE.expires_at <= now)
    if user_ids is not None:
        query = query.where(or_(TRADE.proposer_id.in_(list(user_ids)), TRADE.recipient_id.in_(list(user_ids))))
    due = session.scalars(query.order_by(TRADE.id)).all()
    for trade in due:
        trade.status, trade.updated_at = "expired", now
        session.add(trade)
        record(session, trade, actor_id=None, action="expire", now=now)
    session.flush()
    return len(due)


def propose(
    *,
    session: Session,
    proposer_id: int,
    recipient_id: int,
    give: Sequence[LineSpec],
    get: Sequence[LineSpec],
    mode: str = "local",
    message: str | None = "",
    now: datetime,
    settings: TradeSettings = DEFAULT_SETTINGS,
    give_decks: Sequence[int] = (),
    get_decks: Sequence[int] = (),
) -> Trade:
    """Offer ``give`` (the proposer's copies) for ``get`` (the recipient's): a new trade, version 1.
    ``give_decks`` / ``get_decks``: whole decks each side owns (a deck is one unit).

    The proposer's copies are held from now on. Refused, with nothing written: trading with
    oneself, an unknown recipient, a bad mode or line, more than the open-offer limit of a new
    account, or lines beyond either side's availability (:class:`Unavailable`, 409, naming them).
    """
    if proposer_id == recipient_id:
        raise TradeError(Message("不能和自己交易", "you cannot trade with yourself"))
    if session.get(User, recipient_id) is None:
        raise TradeNotFound(Message("没有这个用户", "no such user"))
    if mode not in TRADE_MODES:
        raise TradeError(Message(f"未知的交易方式「{mode}」，可用：local、mail", "mode must be local or mail"))
    text = _check_message(message)
    give_lines, get_lines = merge_lines(give, side="give"), merge_lines(get, side="get")
    if not give_lines and not get_lines and not give_decks and not get_decks:
        raise TradeError(Message("报价至少要有一张卡", "an offer needs at least one card"))
    check_printings(session, [*give_lines, *get_lines])
    lock_parties(session, proposer_id, recipient_id)
    if give_decks or get_decks:
        from catalog.collection.owned_decks import check_decks_available

        check_decks_available(session, sides={proposer_id: list(give_decks), recipient_id: list(get_decks)}, now=now)
    expire_due(session, user_ids=[proposer_id, recipient_id], now=now)
    _check_offer_limit(session, proposer_id, settings, now)
    check_available(
        session,
        sides={proposer_id: give_lines, recipient_id: get_lines},
        usernames=_usernames(session, proposer_id, recipient_id),
        now=now,
    )
    trade = Trade(
        proposer_id=proposer_id,
        recipient_id=recipient_id,
        author_id=proposer_id,
        mode=mode,
        status="proposed",
        version=1,
        message=text,
        expires_at=now + timedelta(days=settings.expiry_days),
        created_at=now,
        updated_at=now,
    )
    session.add(trade)
    session.flush()
    _write_lines(session, trade, proposer_id, give_lines)
    _write_lines(session, trade, recipient_id, get_lines)
    _write_decks(session, trade, {proposer_id: give_decks, recipient_id: get_decks})
    record(session, trade, actor_id=proposer_id, action="propose", now=now, note=text)
    session.flush()
    return trade


def check_open_offer(
    trade: Trade, version: int, now: datetime, *, action: tuple[str, str] = ("不能再修改", "it cannot change")
) -> None:
    """Refuse (409) unless the trade is an open offer at ``version``; ``action`` ends the
    message about a closed trade ("不能接受" for an accept, "不能再修改" for an edit)."""
    if is_expired(trade, now):
        raise conflict("这个报价已过期", "this offer has expired")
    if trade.status not in OFFERED:
        raise conflict(f"这笔交易已是「{trade.status}」状态，{action[0]}", f"the trade is {trade.status}: {action[1]}")
    if version != trade.version:
        raise StaleVersion(
            Message(
                f"报价已被修改（现在是第 {trade.version} 版，你看到的是第 {version} 版）：请刷新后再试",
                f"the offer changed (now version {trade.version}, you saw {version}): reload and try again",
            )
        )


def counter(
    *,
    session: Session,
    trade_id: int,
    user_id: int,
    version: int,
    give: Sequence[LineSpec],
    get: Sequence[LineSpec],
    message: str | None = "",
    now: datetime,
    settings: TradeSettings = DEFAULT_SETTINGS,
    give_decks: Sequence[int] = (),
    get_decks: Sequence[int] = (),
) -> Trade:
    """A new version of an open offer, written by either party (``give`` = the caller's copies).

    Any edit resets both confirmations (OpenMTG): the caller now agrees to this version and
    only the other party may accept it. Clears "needs attention" (availability is checked
    again). :class:`StaleVersion` when ``version`` is not the current one.
    """
    text = _check_message(message)
    give_lines, get_lines = merge_lines(give, side="give"), merge_lines(get, side="get")
    if not give_lines and not get_lines and not give_decks and not get_decks:
        raise TradeError(Message("报价至少要有一张卡", "an offer needs at least one card"))
    check_printings(session, [*give_lines, *get_lines])
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    check_open_offer(trade, version, now)
    other = other_party(trade, user_id)
    if give_decks or get_decks:
        from catalog.collection.owned_decks import check_decks_available

        sides = {user_id: list(give_decks), other: list(get_decks)}
        check_decks_available(session, sides=sides, now=now, exclude_trade_id=trade_id)
    check_available(
        session,
        sides={user_id: give_lines, other: get_lines},
        usernames=_usernames(session, user_id, other),
        now=now,
        exclude_trade_id=trade_id,
    )
    trade.version += 1
    trade.status, trade.author_id, trade.message = "countered", user_id, text
    trade.needs_attention, trade.updated_at = False, now
    trade.expires_at = now + timedelta(days=settings.expiry_days)
    session.add(trade)
    session.flush()
    _write_lines(session, trade, user_id, give_lines)
    _write_lines(session, trade, other, get_lines)
    _write_decks(session, trade, {user_id: give_decks, other: get_decks})
    record(session, trade, actor_id=user_id, action="counter", now=now, note=text)
    session.flush()
    return trade


def decline(*, session: Session, trade_id: int, user_id: int, now: datetime, message: str | None = "") -> Trade:
    """The party who did not write the current version says no (final)."""
    text = _check_message(message)
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    if trade.status == "declined":
        return trade  # a retried request
    check_open_offer(trade, trade.version, now)
    if user_id == trade.author_id:
        raise conflict(
            "这是你提出的报价：请用“撤回”而不是“拒绝”", "this is your own offer: cancel it instead of declining"
        )
    trade.status, trade.updated_at = "declined", now
    session.add(trade)
    record(session, trade, actor_id=user_id, action="decline", now=now, note=text)
    session.flush()
    return trade


def cancel(*, session: Session, trade_id: int, user_id: int, now: datetime, message: str | None = "") -> Trade:
    """Withdraw an open offer (either party); after acceptance both parties must cancel.

    The first cancel of an accepted trade is recorded as a request; the other party's cancel
    ends it. Once cards have moved (a side received) it can no longer be cancelled: dispute it.
    """
    text = _check_message(message)
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    if trade.status == "cancelled":
        return trade  # a retried request
    if trade.status in OFFERED and not is_expired(trade, now):
        trade.status, trade.updated_at = "cancelled", now
        session.add(trade)
        record(session, trade, actor_id=user_id, action="cancel", now=now, note=text)
        session.flush()
        return trade
    if trade.status in SHIPPING:
        if trade.proposer_received_at is not None or trade.recipient_received_at is not None:
            raise conflict(
                "已有一方确认收到卡牌，交易不能再取消；如有问题请提出争议",
                "cards have already been received: the trade can no longer be cancelled; open a dispute instead",
            )
        if trade.cancel_requested_by in (None, user_id):
            trade.cancel_requested_by, trade.updated_at = user_id, now
            session.add(trade)
            record(session, trade, actor_id=user_id, action="cancel_request", now=now, note=text)
            session.flush()
            return trade
        trade.status, trade.updated_at = "cancelled", now
        session.add(trade)
        record(session, trade, actor_id=user_id, action="cancel", now=now, note=text)
        session.flush()
        return trade
    raise conflict(
        f"这笔交易已是「{effective_status(trade, now)}」状态，不能取消",
        f"the trade is {effective_status(trade, now)}: it cannot be cancelled",
    )


def dispute(*, session: Session, trade_id: int, user_id: int, now: datetime, message: str | None = "") -> Trade:
    """Open a dispute on an accepted or completed trade (a lost parcel, wrong cards …).

    A dispute stays visible as a dispute (SteamKey.Trade showed disputed trades as completed:
    a bug); cards still in the mail can be confirmed received meanwhile.
    """
    text = _check_message(message)
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    if trade.status == "disputed":
        return trade
    if trade.status not in ("accepted", "completed"):
        raise conflict("只有已接受或已完成的交易可以提出争议", "only an accepted or completed trade can be disputed")
    trade.status, trade.updated_at = "disputed", now
    session.add(trade)
    record(session, trade, actor_id=user_id, action="dispute", now=now, note=text)
    session.flush()
    return trade
