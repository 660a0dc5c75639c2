"""Decks as things players own: KeyForge decks are unique objects that never
change; a player owns copies of them, trades them whole, registers for an event with one.

- ``DeckRecord``: one deck's identity and contents, fixed (a deck never changes): its public id
  when known (keyteki's uuid, Master Vault's id), name, set, houses and its canonical list
  (our decklist text) with that text's SHA-256; ``known`` for the catalogue of known decks;
- ``OwnedDeck``: one physical copy a user owns (a unit in a trade, never loose cards);
- ``DeckLedger``: every change of a copy's owner (who from, who to, why: add, trade, remove);
- ``TradeDeckLine``: a copy one party gives in one version of a trade (beside ``trade_line``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import JSON, Field, SQLModel

from catalog.models import catalogue, trading, users  # noqa: F401  (foreign keys here point to their tables)


class DeckRecord(SQLModel, table=True):
    __tablename__ = "deck_record"
    __table_args__ = (
        UniqueConstraint("game_id", "digest"),
        Index("ix_deck_record_public_id", "game_id", "public_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    public_id: str = Field(default="", max_length=64)  # keyteki uuid / Master Vault id, when known
    name: str = Field(max_length=200)
    set_code: str = Field(default="", max_length=32)
    houses: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))  # the canonical decklist
    digest: str = Field(max_length=64)  # SHA-256 of ``text``: the deck's identity
    known: bool = False  # in the catalogue of known decks (players pick it from there)
    created_at: datetime


class OwnedDeck(SQLModel, table=True):
    __tablename__ = "owned_deck"
    __table_args__ = (Index("ix_owned_deck_user", "user_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    deck_id: int = Field(foreign_key="deck_record.id", index=True)
    user_id: int = Field(foreign_key="app_user.id", ondelete="CASCADE")
    for_trade: bool = False
    acquired_at: datetime


class DeckLedger(SQLModel, table=True):
    __tablename__ = "deck_ledger"

    id: int | None = Field(default=None, primary_key=True)
    owned_deck_id: int = Field(foreign_key="owned_deck.id", index=True, ondelete="CASCADE")
    from_user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    to_user_id: int | None = Field(default=None, foreign_key="app_user.id", ondelete="SET NULL")
    reason: str = Field(max_length=16)  # add | trade | remove
    ref: str = Field(default="", max_length=64)  # the trade id …
    at: datetime


class TradeDeckLine(SQLModel, table=True):
    __tablename__ = "trade_deck_line"
    __table_args__ = (Index("ix_trade_deck_line_trade_version", "trade_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    trade_id: int = Field(foreign_key="trade.id", ondelete="CASCADE")
    version: int
    giver_id: int = Field(foreign_key="app_user.id")
    owned_deck_id: int = Field(foreign_key="owned_deck.id", index=True)
