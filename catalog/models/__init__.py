"""Every table of the product, one module per area (DESIGN §2).

- ``catalogue``: Game, CardSet, PackTemplate, Card (+ search rows, traits, keywords), Printing,
  Format, BanEntry;
- ``users``: accounts, API tokens, collections, the ledger, want lists, saved decks, scans;
- ``events``: tournaments, registrations, rounds, matches, chests and their ledger, seasons.
- ``curation``: revisions of the catalogue made on the web (who, when, why, the cells changed);
- ``trading``: trades, their lines per version, the transition log, feedback, price lists;
- ``decks``: decks players own as objects (KeyForge), their owners' ledger, decks in trades.

Every name is imported from here (``from catalog.models import Card``), but an area's module is
imported the first time one of its names is asked for: ``lunzang search`` and
``lunzang deck check`` read the catalogue only, and defining the other areas' 24 tables was a
third of their start. An area imports the areas its foreign keys point to, so the tables
loaded always resolve theirs. :func:`load_all` imports every area and returns
``SQLModel.metadata`` with every table: what Alembic and the migration test compare with the
database, and what anything going over all the tables must use. A new area adds its module to
:data:`AREAS`, its names to ``__all__`` and to the ``TYPE_CHECKING`` imports (which mypy reads);
a test (tests/test_startup.py) fails when they and the modules differ.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from sqlalchemy import MetaData
from sqlmodel import SQLModel

# Pydantic builds a validator and a serializer for every model class as it is defined; table
# models never use them here (SQLModel constructs table rows without validating, and no code
# dumps one), and the 36 of them cost ~10% of importing the models, in every command (issue
# 17). Deferred, a model's are built the first time something validates or dumps that model.
SQLModel.model_config["defer_build"] = True

if TYPE_CHECKING:
    from catalog.models.catalogue import (
        BanEntry,
        Card,
        CardKeyword,
        CardSearch,
        CardSet,
        CardText,
        CardTrait,
        Format,
        Game,
        PackTemplate,
        Printing,
        PrintingOrder,
        table_of,
    )
    from catalog.models.curation import (
        PROPOSAL_KINDS,
        PROPOSAL_STATES,
        REVISION_KINDS,
        BackgroundJob,
        CatalogueProposal,
        CatalogueRevision,
        RoleGrant,
    )
    from catalog.models.decks import DeckLedger, DeckRecord, OwnedDeck, TradeDeckLine
    from catalog.models.events import (
        EVENT_KINDS,
        EVENT_STATES,
        ChestBalance,
        ChestLedger,
        Event,
        EventAudit,
        ExchangeItem,
        Match,
        PairingChange,
        PrizeTable,
        Redemption,
        Registration,
        ResultReport,
        Round,
        Season,
        Store,
        StoreStaff,
    )
    from catalog.models.trading import Trade, TradeEvent, TradeFeedback, TradeLine, TradePrice
    from catalog.models.users import (
        ROLES,
        ApiToken,
        CollectionImport,
        CollectionItem,
        ImportMapping,
        LedgerEntry,
        PasswordReset,
        PrintingScan,
        SavedDeck,
        User,
        WantItem,
    )

# area module → the names it gives this package
AREAS: dict[str, tuple[str, ...]] = {
    "catalogue": (
        "BanEntry",
        "Card",
        "CardKeyword",
        "CardSearch",
        "CardSet",
        "CardText",
        "CardTrait",
        "Format",
        "Game",
        "PackTemplate",
        "Printing",
        "PrintingOrder",
        "table_of",
    ),
    "curation": (
        "PROPOSAL_KINDS",
        "PROPOSAL_STATES",
        "REVISION_KINDS",
        "BackgroundJob",
        "CatalogueProposal",
        "CatalogueRevision",
        "RoleGrant",
    ),
    "decks": ("DeckLedger", "DeckRecord", "OwnedDeck", "TradeDeckLine"),
    "events": (
        "EVENT_KINDS",
        "EVENT_STATES",
        "ChestBalance",
        "ChestLedger",
        "Event",
        "EventAudit",
        "ExchangeItem",
        "Match",
        "PairingChange",
        "PrizeTable",
        "Redemption",
        "Registration",
        "ResultReport",
        "Round",
        "Season",
        "Store",
        "StoreStaff",
    ),
    "trading": ("Trade", "TradeEvent", "TradeFeedback", "TradeLine", "TradePrice"),
    "users": (
        "ROLES",
        "ApiToken",
        "CollectionImport",
        "ImportMapping",
        "CollectionItem",
        "LedgerEntry",
        "PasswordReset",
        "PrintingScan",
        "SavedDeck",
        "User",
        "WantItem",
    ),
}
_AREA_OF = {name: area for area, names in AREAS.items() for name in names}

__all__ = [
    "EVENT_KINDS",
    "EVENT_STATES",
    "PROPOSAL_KINDS",
    "PROPOSAL_STATES",
    "REVISION_KINDS",
    "ROLES",
    "ApiToken",
    "BackgroundJob",
    "BanEntry",
    "Card",
    "CardKeyword",
    "CardSearch",
    "CardSet",
    "CardText",
    "CardTrait",
    "CatalogueProposal",
    "CatalogueRevision",
    "ChestBalance",
    "ChestLedger",
    "CollectionImport",
    "CollectionItem",
    "DeckLedger",
    "DeckRecord",
    "Event",
    "EventAudit",
    "ExchangeItem",
    "Format",
    "Game",
    "ImportMapping",
    "LedgerEntry",
    "Match",
    "OwnedDeck",
    "PackTemplate",
    "PairingChange",
    "PasswordReset",
    "Printing",
    "PrintingOrder",
    "PrintingScan",
    "PrizeTable",
    "Redemption",
    "Registration",
    "ResultReport",
    "RoleGrant",
    "Round",
    "SavedDeck",
    "Season",
    "Store",
    "StoreStaff",
    "Trade",
    "TradeDeckLine",
    "TradeEvent",
    "TradeFeedback",
    "TradeLine",
    "TradePrice",
    "User",
    "WantItem",
    "table_of",
]


def __getattr__(name: str) -> Any:
    """A name of an area, its module imported now (PEP 562: asked only for names not yet here)."""
    area = _AREA_OF.get(name)
    if area is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{area}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def load_all() -> MetaData:
    """``SQLModel.metadata`` with the tables of every area."""
    for area in AREAS:
        import_module(f"{__name__}.{area}")
    return SQLModel.metadata
