"""Every table of the product, one module per area (DESIGN §2).

- ``catalogue``: Game, CardSet, PackTemplate, Card (+ search rows, traits, keywords), Printing,
  Format, BanEntry;
- ``users``: accounts, API tokens, collections, the ledger, want lists, saved decks, scans;
- ``trading``: trades, their lines per version, the transition log, feedback, price lists.

Importing this package registers every table on ``SQLModel.metadata``, which Alembic and the
migration test compare with the database. A new area adds its module here.
"""

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
    table_of,
)
from catalog.models.trading import Trade, TradeEvent, TradeFeedback, TradeLine, TradePrice
from catalog.models.users import (
    ROLES,
    ApiToken,
    CollectionImport,
    CollectionItem,
    LedgerEntry,
    PrintingScan,
    SavedDeck,
    User,
    WantItem,
)

__all__ = [
    "ROLES",
    "ApiToken",
    "BanEntry",
    "Card",
    "CardKeyword",
    "CardSearch",
    "CardSet",
    "CardText",
    "CardTrait",
    "CollectionImport",
    "CollectionItem",
    "Format",
    "Game",
    "LedgerEntry",
    "PackTemplate",
    "Printing",
    "PrintingScan",
    "SavedDeck",
    "Trade",
    "TradeEvent",
    "TradeFeedback",
    "TradeLine",
    "TradePrice",
    "User",
    "WantItem",
    "table_of",
]
