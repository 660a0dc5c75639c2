"""Reputation: feedback after a trade, completed counts, disputes kept visible.

Each party may leave one feedback (positive / neutral / negative + comment) on a completed or
disputed trade. A profile shows the completed-trade count, the feedback, and the disputes as
disputes (never folded into "completed": SteamKey.Trade's bug).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlmodel import Session

from catalog.errors import Message
from catalog.models import Trade, TradeFeedback
from catalog.models.columns import USER
from catalog.models.trade_columns import FEEDBACK, TRADE
from catalog.models.trading import FEEDBACK_RATINGS
from catalog.trading.errors import TradeConflict, TradeError
from catalog.trading.offers import locked_trade, other_party, record

MAX_COMMENT = 500


def leave_feedback(
    *, session: Session, trade_id: int, user_id: int, rating: str, comment: str = "", now: datetime
) -> TradeFeedback:
    """One party's feedback on the other, once, after completion (or in a dispute)."""
    if rating not in FEEDBACK_RATINGS:
        raise TradeError(Message("评价应为 好评、中评 或 差评", "rating must be positive, neutral or negative"))
    text = (comment or "").strip()
    if len(text) > MAX_COMMENT:
        raise TradeError(Message(f"评语最多 {MAX_COMMENT} 个字", f"the comment is limited to {MAX_COMMENT} characters"))
    trade = locked_trade(session, trade_id=trade_id, user_id=user_id)
    if trade.status not in ("completed", "disputed"):
        raise TradeConflict(Message("交易完成后才能评价", "feedback can be left once the trade is completed"))
    exists = session.scalar(select(FEEDBACK.id).where(FEEDBACK.trade_id == trade_id, FEEDBACK.author_id == user_id))
    if exists:
        raise TradeConflict(Message("你已经评价过这笔交易", "you already left feedback on this trade"))
    feedback = TradeFeedback(
        trade_id=trade_id,
        author_id=user_id,
        subject_id=other_party(trade, user_id),
        rating=rating,
        comment=text,
        at=now,
    )
    session.add(feedback)
    record(session, trade, actor_id=user_id, action="feedback", now=now, note=rating)
    session.flush()
    return feedback


@dataclass(frozen=True)
class FeedbackRow:
    trade_id: int
    author: str
    rating: str
    comment: str
    at: datetime


@dataclass
class Reputation:
    completed: int = 0
    disputed: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FEEDBACK_RATINGS, 0))
    recent: list[FeedbackRow] = field(default_factory=list)


def reputation_of(*, session: Session, user_id: int, recent: int = 20) -> Reputation:
    """Completed and disputed trades, feedback counts and the latest feedback about the user."""
    mine = or_(TRADE.proposer_id == user_id, TRADE.recipient_id == user_id)
    result = Reputation()
    for status, count in session.execute(
        select(TRADE.status, func.count())
        .select_from(Trade)
        .where(mine, TRADE.status.in_(("completed", "disputed")))
        .group_by(TRADE.status)
    ):
        if status == "completed":
            result.completed = int(count)
        else:
            result.disputed = int(count)
    for rating, count in session.execute(
        select(FEEDBACK.rating, func.count()).where(FEEDBACK.subject_id == user_id).group_by(FEEDBACK.rating)
    ):
        result.counts[rating] = int(count)
    rows = session.execute(
        select(FEEDBACK.trade_id, USER.username, FEEDBACK.rating, FEEDBACK.comment, FEEDBACK.at)
        .join(_user_table(), USER.id == FEEDBACK.author_id)
        .where(FEEDBACK.subject_id == user_id)
        .order_by(FEEDBACK.at.desc(), FEEDBACK.id.desc())
        .limit(recent)
    )
    result.recent = [FeedbackRow(*row) for row in rows]
    return result


def _user_table() -> Any:
    from catalog.models import User, table_of

    return table_of(User)


def feedback_given(*, session: Session, trade_id: int) -> dict[int, str]:
    """author id → rating, for one trade."""
    return dict(session.execute(select(FEEDBACK.author_id, FEEDBACK.rating).where(FEEDBACK.trade_id == trade_id)).all())
