"""What belongs to users (DESIGN §2): accounts, API tokens, collections, the ledger, want lists,
saved decks, and uploaded card scans.

Quantities live in ``CollectionItem`` and change only through ``catalog.collection`` together
with a ``LedgerEntry`` in the same transaction, so the ledger always sums to the quantities
(both ``quantity`` and ``for_trade``). Times are aware UTC datetimes (SQLModel's UTCDateTime),
passed in by the caller.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from catalog.models import catalogue  # noqa: F401  (foreign keys here point to its tables: defined first)

# curator: edits the catalogue on the web and reviews proposals (catalog.curation); an admin may
# do all a curator does, and alone grants roles
ROLES = ("user", "organizer", "curator", "admin")


class User(SQLModel, table=True):
    # "user" is a reserved word in PostgreSQL.
    __tablename__ = "app_user"

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=32)
    username_key: str = Field(max_length=32, unique=True)  # case-folded, so 'Wukong' and 'wukong' clash
    password_hash: str = Field(max_length=256)
    role: str = Field(default="user", max_length=16)
    # Bumped on password change: sessions carry it, so every other session is signed out.
    auth_version: int = 0
    lists_public: bool = False  # have/want lists shown on the public profile page
    # An IANA zone name (Asia/Shanghai) pages show times in; None = the site's default
    # (catalog.accounts.DEFAULT_TIME_ZONE). Times are stored in UTC whatever it says.
    time_zone: str | None = Field(default=None, max_length=64)
    # Where a password-reset link is sent (catalog.password_reset); optional, never shown to others.
    email: str | None = Field(default=None, max_length=254)
    # {"samsara": {"C": 4, "R": 3, …}}: how many of each rarity to keep before the rest is for trade
    keep_rules: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime

    # What Flask-Login asks of a user object, as plain Python (catalog/ stays Flask-free). The id
    # carries ``auth_version``, so a password change makes every older session cookie stale.
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return True

    @property
    def is_anonymous(self) -> bool:
        return False

    def get_id(self) -> str:
        return f"{self.id}:{self.auth_version}"


class ApiToken(SQLModel, table=True):
    """A bearer token for the API. Only its SHA-256 is stored; the user sees it once."""

    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    name: str = Field(default="", max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    prefix: str = Field(max_length=12)  # the first characters, to tell tokens apart on the account page
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class PasswordReset(SQLModel, table=True):
    """A one-time password-reset link (e-mailed, or handed over by an admin): only its SHA-256
    is stored; it works once, before ``expires_at``, and a password change ends every open one."""

    __tablename__ = "password_reset"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None
    # The admin who issued the link (None: asked for by e-mail).
    issued_by: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")


class CollectionItem(SQLModel, table=True):
    """How many copies of one printing, in one grade, a user owns (and offers for trade)."""

    __tablename__ = "collection_item"
    __table_args__ = (
        UniqueConstraint("user_id", "printing_id", "condition", "language", "finish"),
        CheckConstraint("quantity >= 0", name="ck_collection_item_quantity"),
        CheckConstraint("for_trade >= 0 AND for_trade <= quantity", name="ck_collection_item_for_trade"),
        # Matching's upper bound (catalog/trading/matching.py) sums the for-trade copies of my
        # wanted cards per partner from this index alone; partial, so only copies offered for
        # trade are in it.
        Index(
            "ix_collection_item_tradable",
            "printing_id",
            "user_id",
            "for_trade",
            sqlite_where=text("for_trade > 0"),
            postgresql_where=text("for_trade > 0"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")  # first in the unique index
    printing_id: int = Field(foreign_key="printing.id", index=True)
    condition: str = Field(default="NM", max_length=8)  # NM LP MP HP DMG
    language: str = Field(default="简中", max_length=8)  # 简中 繁中 EN 日
    finish: str = Field(default="普通", max_length=8)  # 普通 闪
    quantity: int = 0
    for_trade: int = 0
    note: str = Field(default="", max_length=500)
    updated_at: datetime


class CollectionImport(SQLModel, table=True):
    """One CSV import into a collection: its ledger rows point here, so it can be undone whole."""

    __tablename__ = "collection_import"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    mode: str = Field(max_length=16)  # add | replace
    filename: str = Field(default="", max_length=255)
    rows: int = 0
    cards_added: int = 0
    cards_removed: int = 0
    created_at: datetime
    undone_at: datetime | None = None


class ImportMapping(SQLModel, table=True):
    """A user's column mapping for a header no preset knows: remembered when an
    import with it is confirmed, offered for the next file with the same header."""

    __tablename__ = "import_mapping"
    __table_args__ = (UniqueConstraint("user_id", "header_key"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    # the folded header cells joined by U+001F, hashed: the same header whatever its case or spacing
    header_key: str = Field(max_length=64)
    header: list[str] = Field(sa_column=Column(JSON, nullable=False))
    mapping: dict[str, str] = Field(sa_column=Column(JSON, nullable=False))  # header key → field or "ignore"
    updated_at: datetime


class LedgerEntry(SQLModel, table=True):
    """One change of one user's quantities: who, which printing and grade, by how much, why."""

    __tablename__ = "ledger_entry"
    __table_args__ = (
        Index("ix_ledger_entry_user_printing", "user_id", "printing_id"),
        # max(id) per user: the version of a collection (catalog.collection.listing)
        Index("ix_ledger_entry_user_id", "user_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    printing_id: int = Field(foreign_key="printing.id")
    condition: str = Field(max_length=8)
    language: str = Field(max_length=8)
    finish: str = Field(max_length=8)
    delta: int = 0  # change of quantity
    trade_delta: int = 0  # change of quantity for trade
    reason: str = Field(max_length=16)  # manual | import | undo | pack | trade
    ref: str = Field(default="", max_length=64)  # the import id, pack seed, trade id …
    import_id: int | None = Field(default=None, foreign_key="collection_import.id", index=True)
    at: datetime


class WantItem(SQLModel, table=True):
    """A card (any printing) or one printing a user wants, with the worst condition they accept."""

    __tablename__ = "want_item"
    __table_args__ = (
        Index("ix_want_item_user_card", "user_id", "card_id"),
        # By card, with who and how many: matching's upper bound reads the wants of my trade
        # cards per partner from this index alone (it replaced the plain card_id index, 0012).
        Index("ix_want_item_card_user_quantity", "card_id", "user_id", "quantity"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    card_id: int = Field(foreign_key="card.id")
    printing_id: int | None = Field(default=None, foreign_key="printing.id")  # None: any printing
    quantity: int = 1
    min_condition: str = Field(default="MP", max_length=8)  # worst acceptable
    # the language / finish the want insists on (grades.py vocabularies); None = any.
    language: str | None = Field(default=None, max_length=8)
    finish: str | None = Field(default=None, max_length=8)
    # a printing want refines the card want (its copies count towards it) unless
    # the user wants this printing on top of it. Meaningless on a card want (always False).
    in_addition: bool = False
    updated_at: datetime


class SavedDeck(SQLModel, table=True):
    """A user's deck, kept as decklist text (DESIGN §4) so it survives catalogue re-imports."""

    __tablename__ = "saved_deck"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="app_user.id", index=True, ondelete="CASCADE")
    game_id: int = Field(foreign_key="game.id")
    name: str = Field(max_length=100)
    format_code: str = Field(default="", max_length=32)
    text: str = ""
    created_at: datetime
    updated_at: datetime


class PrintingScan(SQLModel, table=True):
    """An uploaded scan that replaces a printing's rendered face (files stored by content hash)."""

    __tablename__ = "printing_scan"

    printing_id: int = Field(foreign_key="printing.id", primary_key=True, ondelete="CASCADE")
    sha256: str = Field(max_length=64)
    width: int
    height: int
    uploaded_by: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    uploaded_at: datetime
