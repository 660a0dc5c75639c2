"""The catalogue data model (DESIGN §2): Game, CardSet, Card, Printing, Format, BanEntry.

``Card`` is the rules object, one per game and name (Scryfall's "oracle card"); ``Printing``
is that card in one set with its collector number and rarity. Copy limits count by Card.
Search keys (folded name, pinyin, initials, folded text) are computed at import time.
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from sqlalchemy import JSON, Column, Index, LargeBinary, Table, Text, UniqueConstraint, func, null
from sqlmodel import Field, SQLModel


def trigram_index(name: str, column: str) -> Index:
    """A PostgreSQL GIN trigram index (pg_trgm) for substring tests on ``column``; SQLite has no
    such index and gets none. Search compiles a term of 3 characters or more to ``LIKE
    '%…%'`` there, which the index serves; shorter terms have no trigram and stay a scan."""
    index = Index(name, column, postgresql_using="gin", postgresql_ops={column: "gin_trgm_ops"})
    return index.ddl_if(dialect="postgresql")


def character_index(name: str, column: Any) -> Index:
    """A PostgreSQL GIN index over the set of characters of ``column``
    (``string_to_array(column, NULL)``, one element per character), for the 1- and 2-character
    substring terms no trigram index serves: ``@>`` finds the rows holding every character of
    the term, a substring test then keeps those holding them side by side. SQLite gets none."""
    index = Index(name, func.string_to_array(column, null()), postgresql_using="gin")
    return index.ddl_if(dialect="postgresql")


def new_catalogue_version() -> str:
    return uuid.uuid4().hex


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=64)
    # A new random value on every import of the game (catalog.ingest), so caches of its cards
    # (catalog.decks.load_pool) are keyed by what the database holds, not by one server's
    # memory: several app servers, or a test database rebuilt under the same URL, never
    # disagree about whether a cached pool is current.
    catalogue_version: str = Field(default_factory=new_catalogue_version, max_length=32)
    # the catalogue's own words (manifest ``[vocabulary]``, DESIGN §3): ``{"rarities": [...],
    # "houses": {"蛮族": ["manzu"]}}``; empty = the game module's defaults
    vocabulary: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class PackTemplate(SQLModel, table=True):
    """How a booster of a set is filled (DESIGN §3 ``[packs.NAME]``)."""

    __tablename__ = "pack_template"
    __table_args__ = (UniqueConstraint("game_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    name: str = Field(max_length=64)
    packs_per_box: int = 1
    # [{"count": 7, "rarity": {"C": 1}, "box_collation": {"SR": 1, …} | None}, …]
    slots: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class CardSet(SQLModel, table=True):
    __tablename__ = "card_set"
    __table_args__ = (UniqueConstraint("game_id", "code"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str = Field(max_length=32)
    code_key: str = Field(max_length=32, index=True)  # folded code, for set: searches
    name: str = Field(max_length=200)
    series: str = Field(default="", max_length=64, index=True)
    kind: str = Field(default="booster", max_length=16)
    release: str = Field(default="", max_length=16)
    description: str = ""
    position: int = 0  # order within the manifest
    sample: bool = False  # our own sample data, not official texts
    # where the data comes from (manifest ``source``, or the community file imported)
    # (a server default: a plain ADD COLUMN, since rebuilding card_set under its printings is refused)
    source: str = Field(default="", max_length=500, sa_column_kwargs={"server_default": ""})
    pack_template_id: int | None = Field(default=None, foreign_key="pack_template.id")


class Card(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("game_id", "name"),
        Index("ix_card_game_type", "game_id", "type"),
        Index("ix_card_game_cost", "game_id", "cost_total"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # indexed first in (game_id, name) and (game_id, type)
    name: str = Field(max_length=200)
    name_en: str = Field(default="", max_length=200)
    name_key: str = Field(max_length=200, index=True)
    pinyin: str = Field(default="", max_length=800, index=True)
    initials: str = Field(default="", max_length=200, index=True)
    type: str = Field(max_length=32)
    subtype: str = Field(default="", max_length=64)
    attributes: str = Field(default="", max_length=16)  # canonical characters, e.g. "光暗"
    # bit i = the game's i-th attribute; searched with bit operations, which no index serves
    attr_mask: int = 0
    # 誅天 faction, KeyForge house (a multi-house card: its houses joined by |)
    faction: str = Field(default="", max_length=64)
    cost_text: str = Field(default="", max_length=32)
    cost: dict[str, int] | None = Field(default=None, sa_column=Column(JSON))
    cost_total: int | None = None
    attack: int | None = None
    defense: int | None = None
    level: int | None = None
    life: int | None = None
    traits: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    keywords: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    text: str = ""
    text_key: str = ""
    rules_hash: str = Field(default="", max_length=40)  # sha1 of the rules fields: cheap re-import
    extra: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class CardSearch(SQLModel, table=True):
    """A narrow copy of each card's searchable fields, kept by the importer.

    Search scans many cards for substring matches (names, pinyin) that no B-tree index
    serves; scanning these short rows instead of the wide ``card`` rows (rules text, JSON)
    halved the time of such scans on 100,000 cards. ``keys`` joins the folded name, its
    pinyin, its initials and the lower-cased English name with U+001F, so one substring
    test covers all four without matching across them.
    """

    __tablename__ = "card_search"
    # No B-tree index on purpose: every filter here is non-selective or a substring test,
    # and a (game_id, type) index made SQLite look up 90,000 rows one by one (measured 51 ms
    # against a 7 ms scan of this narrow table). PostgreSQL alone gets a trigram index on
    # ``keys`` (pg_trgm, migration 0011), which serves name terms of 3 characters or more,
    # and a character index on it (migration 0015, below the class) for shorter ones.
    # Migration 0015 also puts PostgreSQL's columns in another order than these: the integers
    # first, since a row there is read column by column up to the one a filter tests.
    __table_args__ = (trigram_index("ix_card_search_keys_trgm", "keys"),)

    card_id: int = Field(foreign_key="card.id", primary_key=True, ondelete="CASCADE")
    game_id: int = Field(foreign_key="game.id")
    name: str = Field(max_length=200)
    sort_key: str = Field(max_length=800)  # pinyin, so order:name follows 拼音 order, not code points
    keys: str = Field(max_length=1200)
    type: str = Field(max_length=32)
    subtype_key: str = Field(default="", max_length=64)
    attr_mask: int = 0
    faction_key: str = Field(default="", max_length=64)
    cost_total: int | None = None
    attack: int | None = None
    defense: int | None = None
    level: int | None = None
    # Summaries of the card's printings, kept by the importer, so card-mode rarity and
    # reprint terms test a column instead of joining every printing (measured: r<=R scanned
    # 100,000 printings per query; is:reprint grouped them, 40 ms).
    rarity_mask: int = 0  # bit r set when some printing has rarity rank r
    set_count: int = 0  # distinct sets the card is printed in


class CardText(SQLModel, table=True):
    """Each card's folded rules text alone, for ``o:`` substring scans (kept by the importer).

    Scanning these narrow rows instead of ``card`` (JSON, raw text, every field) halved the
    time of a 1-character ``o:`` term over 100,000 cards (22 → 12 ms, SQLite).
    """

    __tablename__ = "card_text"
    __table_args__ = (trigram_index("ix_card_text_text_key_trgm", "text_key"),)

    card_id: int = Field(foreign_key="card.id", primary_key=True, ondelete="CASCADE")
    text_key: str = ""


class CardTrait(SQLModel, table=True):
    """One trait (特征) of a card, folded for matching: feeds ``trait:`` search and 『A』限定."""

    __tablename__ = "card_trait"

    card_id: int = Field(foreign_key="card.id", primary_key=True, ondelete="CASCADE")
    trait: str = Field(max_length=64, primary_key=True)
    trait_key: str = Field(max_length=64, index=True)


class CardKeyword(SQLModel, table=True):
    """One parsed keyword of a card (kind + optional value and subject): ``kw:`` search."""

    __tablename__ = "card_keyword"

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True, ondelete="CASCADE")
    kind: str = Field(max_length=32, index=True)
    value: int | None = None
    subject: str | None = Field(default=None, max_length=64)
    label: str = Field(max_length=80)


class Printing(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("set_id", "number"),
        # A card's printings, with their rarity: a printing-level rarity term (r>=UR in a
        # collection filter) reads the index alone, not each printing's row (migration 0017).
        Index("ix_printing_card_id_rarity", "card_id", "rarity_rank"),
    )

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id")  # indexed first in (card_id, rarity_rank)
    set_id: int = Field(foreign_key="card_set.id")  # indexed first in (set_id, number)
    number: str = Field(max_length=32)
    number_key: str = Field(max_length=32, index=True)  # folded number, for lookups
    rarity: str = Field(max_length=16)
    rarity_rank: int = 0
    flavor: str = ""
    illustrator: str = Field(default="", max_length=120)
    image: str = Field(default="", max_length=500)
    # the words of this printing where a later set changed the card's (KeyForge errata): the card
    # page shows an older wording beside the card's text; empty for games without errata
    printed_text: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class PrintingOrder(SQLModel, table=True):
    """Where every printing stands in one order of the collection page (``sort``: "set" or
    "name"), made after an import so that no page has to sort the catalogue
    (catalog.collection.ordering): the dense rank of each printing id, as little-endian 32-bit
    integers indexed by printing id (-1: no such printing), valid for the ``catalogue`` named
    (every game's catalogue_version). Derived data: losing it costs time, never a result."""

    __tablename__ = "printing_order"

    sort: str = Field(primary_key=True, max_length=8)
    catalogue: str = Field(sa_column=Column(Text, nullable=False))
    ranks: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Format(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "code"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str = Field(max_length=32)
    name: str = Field(max_length=100)
    rules: str = Field(max_length=32)  # one of the game's rule kinds
    legal_sets: list[str] = Field(default_factory=lambda: ["*"], sa_column=Column(JSON, nullable=False))
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class BanEntry(SQLModel, table=True):
    """A ban-list line: 0 banned (禁止), 1 限制, 2 准限制 copies allowed."""

    __tablename__ = "ban_entry"

    format_id: int = Field(foreign_key="format.id", primary_key=True, ondelete="CASCADE")
    card_id: int = Field(foreign_key="card.id", primary_key=True)
    limit: int = 0


def table_of(model: type[SQLModel]) -> Table:
    """The Core table behind a model, for bulk statements (typed for mypy)."""
    # why the type: ignore below: SQLModel sets __table__ on table models at class creation
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


# Name terms of 1–2 characters (龙王, 龍): measured on 100,000 printings, PostgreSQL scanned
# every card_search row with strpos() for 龙王 (15–20 ms) where the index finds its 586
# candidates and 184 matches in under 2 ms. An expression index: declared on the table.
character_index("ix_card_search_keys_chars", table_of(CardSearch).c["keys"])
