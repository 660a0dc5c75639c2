"""Events: the monthly tournament, its players with locked decks, rounds, tables,
reported results, prizes in silver chests (白银宝箱) with their ledger, store exchange lists,
and seasons that lead to the national championship.

Chest balances live in ``ChestBalance`` and change only through ``catalog.events.prizes``
together with a ``ChestLedger`` row in the same transaction (like cards and ``LedgerEntry``).
Times are aware UTC datetimes passed in by the caller.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from catalog.models import users  # noqa: F401  (foreign keys here point to its tables: defined first)

EVENT_STATES = ("open", "closed", "running", "finished")
EVENT_KINDS = ("monthly", "bawang", "qualifier")


class Season(SQLModel, table=True):
    """Events counted together toward national-championship qualification."""

    __tablename__ = "event_season"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=100)
    game: str = Field(max_length=16)  # a game slug (catalog.games)
    region: str = Field(default="", max_length=100)
    # How an event's result becomes season points: "match_points" (the seed: "积分计算方式和月赛一样")
    points_rule: str = Field(default="match_points", max_length=16)
    cut_top: int = 1  # the season's top N by points qualify
    qualifier_top: int = 0  # plus the qualifier event's top K
    created_at: datetime


class Event(SQLModel, table=True):
    __tablename__ = "event"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    organizer_id: int | None = Field(default=None, foreign_key="app_user.id", index=True, ondelete="SET NULL")
    store: str = Field(default="", max_length=100)
    store_key: str = Field(default="", max_length=100, index=True)
    city: str = Field(default="", max_length=50)
    region: str = Field(default="", max_length=50)
    game: str = Field(max_length=16)
    format_code: str = Field(default="", max_length=32)
    date: date
    entry_fee: str = Field(default="", max_length=100)
    rounds: int | None = None  # None: from the player count (MTR Appendix E)
    top_cut: int = 0  # 0, 4 or 8
    third_place: str = Field(default="swiss", max_length=8)  # playoff | swiss
    season_id: int | None = Field(default=None, foreign_key="event_season.id", index=True, ondelete="SET NULL")
    kind: str = Field(default="monthly", max_length=16)  # monthly | bawang | qualifier
    state: str = Field(default="open", max_length=16)
    pairing_system: str = Field(default="swiss", max_length=16)
    tiebreakers: str = Field(default="mtr", max_length=16)
    round_minutes: int = 50
    lists_published: bool = False
    deadline: datetime | None = None  # decks lock then (or when registration is closed)
    chests_awarded: bool = False
    # "required" — only players with a legal list are paired; "flag" — everyone
    # plays and missing or illegal lists are flagged (and need a choice before chests)
    deck_policy: str = Field(default="required", max_length=16)
    created_at: datetime


class PrizeTable(SQLModel, table=True):
    """Chests per final place; ``place`` 0 is every other player (seed: 冠军 9, 亚军 7, 季军 5, 其余 4)."""

    __tablename__ = "event_prize"
    __table_args__ = (UniqueConstraint("event_id", "place"), CheckConstraint("chests >= 0", name="ck_prize_chests"))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE")
    place: int
    chests: int


class Registration(SQLModel, table=True):
    """A player in an event, with the deck snapshot they play (locked at the deadline)."""

    __tablename__ = "event_registration"
    __table_args__ = (UniqueConstraint("event_id", "player_key"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE")
    user_id: int | None = Field(default=None, foreign_key="app_user.id", index=True, ondelete="SET NULL")
    player_name: str = Field(max_length=64)
    player_key: str = Field(max_length=64)  # folded name: one entry per name
    deck_text: str = ""
    deck_hash: str = Field(default="", max_length=64)  # SHA-256 of the canonical list
    # the owned deck (catalog.models.decks) the player registered with: its identity is locked
    # (the deck cannot be traded away) while the event is not finished
    owned_deck_id: int | None = Field(default=None, index=True)
    legal: bool | None = None  # None: no list yet
    verdict: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    first_round: int = 1  # late entry: missed rounds are losses
    dropped_from: int | None = None  # not paired from this round on
    disqualified: bool = False
    dq_reason: str = Field(default="", max_length=200)
    registered_at: datetime
    updated_at: datetime


class Round(SQLModel, table=True):
    __tablename__ = "event_round"
    __table_args__ = (UniqueConstraint("event_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE")
    number: int
    kind: str = Field(default="swiss", max_length=16)  # swiss | top8 | top4 | final | third
    # 0 … 2⁶³−1 (a BIGINT on PostgreSQL); None: imported or hand-made pairings
    seed: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    source: str = Field(default="auto", max_length=16)  # auto | file
    started_at: datetime | None = None  # the round clock starts here
    created_at: datetime


class Match(SQLModel, table=True):
    """One table of one round: two registrations (or one and a bye) and the games won."""

    __tablename__ = "event_match"
    __table_args__ = (
        UniqueConstraint("round_id", "table_number"),
        Index("ix_event_match_event", "event_id", "round_number"),
        CheckConstraint("wins_a >= 0 AND wins_b >= 0 AND draws >= 0", name="ck_event_match_games"),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE")
    round_id: int = Field(foreign_key="event_round.id", ondelete="CASCADE")
    round_number: int
    table_number: int
    player_a_id: int = Field(foreign_key="event_registration.id")
    player_b_id: int | None = Field(default=None, foreign_key="event_registration.id")  # None: bye
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    reported: bool = False  # a result is in (a bye is reported when paired)
    updated_at: datetime


class ResultReport(SQLModel, table=True):
    """A result a player reported for their table, waiting for the organiser (or confirmed)."""

    __tablename__ = "event_result_report"

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="event_match.id", index=True, ondelete="CASCADE")
    reported_by: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    wins_a: int
    wins_b: int
    draws: int = 0
    status: str = Field(default="pending", max_length=16)  # pending | confirmed | rejected | replaced
    at: datetime


class PairingChange(SQLModel, table=True):
    """A hand change of a round's pairings (a swap), kept for the record."""

    __tablename__ = "event_pairing_change"

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE", index=True)
    round_number: int
    by_user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    description: str = Field(max_length=300)
    at: datetime


class ChestBalance(SQLModel, table=True):
    """How many silver chests a player holds at one store."""

    __tablename__ = "chest_balance"
    __table_args__ = (
        UniqueConstraint("store_key", "player_key"),
        CheckConstraint("chests >= 0", name="ck_chest_balance_chests"),
    )

    id: int | None = Field(default=None, primary_key=True)
    store_key: str = Field(max_length=100)
    store: str = Field(max_length=100)
    player_key: str = Field(max_length=80)  # "u:<user id>" or "n:<folded name>" for walk-ins
    player_name: str = Field(max_length=64)
    user_id: int | None = Field(default=None, foreign_key="app_user.id", index=True, ondelete="SET NULL")
    chests: int = 0
    updated_at: datetime


class ChestLedger(SQLModel, table=True):
    """One change of one player's chests at one store: how many, why, from which event/redemption."""

    __tablename__ = "chest_ledger"
    __table_args__ = (Index("ix_chest_ledger_holder", "store_key", "player_key"),)

    id: int | None = Field(default=None, primary_key=True)
    store_key: str = Field(max_length=100)
    player_key: str = Field(max_length=80)
    delta: int
    reason: str = Field(max_length=16)  # prize | redeem | adjust
    event_id: int | None = Field(default=None, foreign_key="event.id", ondelete="SET NULL")
    redemption_id: int | None = Field(default=None, foreign_key="chest_redemption.id")
    note: str = Field(default="", max_length=200)
    at: datetime


class ExchangeItem(SQLModel, table=True):
    """An item of a store's silver-chest exchange list, with its price and dates (it changes often)."""

    __tablename__ = "chest_exchange_item"

    id: int | None = Field(default=None, primary_key=True)
    store_key: str = Field(max_length=100, index=True)
    name: str = Field(max_length=100)
    price: int  # chests
    valid_from: date
    valid_until: date | None = None
    updated_at: datetime


class Redemption(SQLModel, table=True):
    __tablename__ = "chest_redemption"

    id: int | None = Field(default=None, primary_key=True)
    store_key: str = Field(max_length=100, index=True)
    player_key: str = Field(max_length=80)
    item_id: int = Field(foreign_key="chest_exchange_item.id")
    quantity: int = 1
    chests: int
    by_user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    at: datetime


class Store(SQLModel, table=True):
    """A shop as an account: its staff manage its events, exchange list, chests and
    balances. ``key`` is the folded name every chest, item and event row already carries."""

    __tablename__ = "store"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=100, unique=True)
    name: str = Field(max_length=100)
    city: str = Field(default="", max_length=50)
    prize_cap: int = 20  # the most chests one place of one event may win here (an admin sets it)
    created_at: datetime


class StoreStaff(SQLModel, table=True):
    """An organiser working for a store."""

    __tablename__ = "store_staff"
    __table_args__ = (UniqueConstraint("store_id", "user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    store_id: int = Field(foreign_key="store.id", ondelete="CASCADE")
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    added_by: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    added_at: datetime


class EventAudit(SQLModel, table=True):
    """One consequential action on an event (lock, drop, undrop, finish, reopen …): who and when."""

    __tablename__ = "event_audit"

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", ondelete="CASCADE", index=True)
    by_user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    action: str = Field(max_length=32)
    detail: str = Field(default="", max_length=300)
    at: datetime
