"""Trades between two users (DESIGN §2/§11): offers, their lines per version, the
transition log, feedback after completion, and the price lists users import for the balance.

A trade has one row; every counter-offer is a new ``version`` of it (the lines carry their
version, so every earlier version stays readable and linked to the same trade). Quantities never
change here: settlement moves cards through ``catalog.collection.ledger`` (reason ``trade``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from catalog.models import catalogue, users  # noqa: F401  (foreign keys here point to their tables: defined first)

TRADE_STATUSES = ("proposed", "countered", "accepted", "completed", "declined", "cancelled", "expired", "disputed")
TRADE_MODES = ("local", "mail")
FEEDBACK_RATINGS = ("positive", "neutral", "negative")


class Trade(SQLModel, table=True):
    """One trade between a proposer and a recipient, at its current version."""

    __tablename__ = "trade"
    __table_args__ = (
        Index("ix_trade_proposer_status", "proposer_id", "status"),
        Index("ix_trade_recipient_status", "recipient_id", "status"),
        CheckConstraint("proposer_id <> recipient_id", name="ck_trade_two_parties"),
        CheckConstraint("version >= 1", name="ck_trade_version"),
    )

    id: int | None = Field(default=None, primary_key=True)
    proposer_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    recipient_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    mode: str = Field(default="local", max_length=8)  # local | mail
    status: str = Field(default="proposed", max_length=16)
    version: int = 1
    author_id: int = Field(foreign_key="app_user.id")  # who wrote the current version (agrees to it)
    message: str = Field(default="", max_length=1000)  # the current version's message
    needs_attention: bool = False  # a held copy left the giver's collection: fix (counter) first
    cancel_requested_by: int | None = Field(default=None, foreign_key="app_user.id")
    # mail: each side's parcel. "proposer_sent" = the proposer sent their cards; "proposer_received"
    # = the recipient confirmed receiving them, which is when those cards move in the ledger.
    proposer_sent_at: datetime | None = None
    proposer_received_at: datetime | None = None
    recipient_sent_at: datetime | None = None
    recipient_received_at: datetime | None = None
    accepted_at: datetime | None = None
    completed_at: datetime | None = None
    expires_at: datetime
    created_at: datetime
    updated_at: datetime


class TradeLine(SQLModel, table=True):
    """Copies of one printing in one grade that one party gives, in one version of a trade."""

    __tablename__ = "trade_line"
    __table_args__ = (
        Index("ix_trade_line_trade_version", "trade_id", "version"),
        Index("ix_trade_line_giver_printing", "giver_id", "printing_id"),
        CheckConstraint("quantity > 0", name="ck_trade_line_quantity"),
    )

    id: int | None = Field(default=None, primary_key=True)
    trade_id: int = Field(foreign_key="trade.id", ondelete="CASCADE")
    version: int
    giver_id: int = Field(foreign_key="app_user.id")
    printing_id: int = Field(foreign_key="printing.id")
    condition: str = Field(max_length=8)
    language: str = Field(max_length=8)
    finish: str = Field(max_length=8)
    quantity: int


class TradeEvent(SQLModel, table=True):
    """One transition of a trade: who (None = the system, e.g. expiry), what, when, at which version."""

    __tablename__ = "trade_event"

    id: int | None = Field(default=None, primary_key=True)
    trade_id: int = Field(foreign_key="trade.id", index=True, ondelete="CASCADE")
    version: int
    actor_id: int | None = Field(default=None, foreign_key="app_user.id")
    action: str = Field(max_length=24)
    status: str = Field(max_length=16)  # the trade's status after the transition
    note: str = Field(default="", max_length=1000)
    at: datetime


class TradeFeedback(SQLModel, table=True):
    """What one party says about the other after a completed (or disputed) trade."""

    __tablename__ = "trade_feedback"
    __table_args__ = (UniqueConstraint("trade_id", "author_id"),)

    id: int | None = Field(default=None, primary_key=True)
    trade_id: int = Field(foreign_key="trade.id", ondelete="CASCADE")
    author_id: int = Field(foreign_key="app_user.id")
    subject_id: int = Field(foreign_key="app_user.id", index=True)
    rating: str = Field(max_length=8)  # positive | neutral | negative
    comment: str = Field(default="", max_length=500)
    at: datetime


class TradePrice(SQLModel, table=True):
    """One price of a user's imported price list (CSV set,number,price), for the balance."""

    __tablename__ = "trade_price"
    __table_args__ = (UniqueConstraint("user_id", "printing_id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    printing_id: int = Field(foreign_key="printing.id")
    cents: int  # the price × 100, whatever the currency: only ratios matter for a balance
