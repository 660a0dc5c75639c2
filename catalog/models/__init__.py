"""Every table of the product, one module per area (DESIGN §2).

- ``catalogue``: Game, CardSet, PackTemplate, Card (+ search rows, traits, keywords), Printing,
  Format, BanEntry;
- ``users``: accounts, API tokens, collections, the ledger, want lists, saved decks, scans;
- ``events``: tournaments, registrations, rounds, matches, chests and their ledger, seasons.
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
from catalog.models.events import (
    EVENT_KINDS,
    EVENT_STATES,
    ChestBalance,
    ChestLedger,
    Event,
    ExchangeItem,
    Match,
    PairingChange,
    PrizeTable,
    Redemption,
    Registration,
    ResultReport,
    Round,
    Season,
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
    "EVENT_KINDS",
    "EVENT_STATES",
    "ROLES",
    "ApiToken",
    "BanEntry",
    "Card",
    "CardKeyword",
    "CardSearch",
    "CardSet",
    "CardText",
    "CardTrait",
    "ChestBalance",
    "ChestLedger",
    "CollectionImport",
    "CollectionItem",
    "Event",
    "ExchangeItem",
    "Format",
    "Game",
    "LedgerEntry",
    "Match",
    "PackTemplate",
    "PairingChange",
    "Printing",
    "PrintingScan",
    "PrizeTable",
    "Redemption",
    "Registration",
    "ResultReport",
    "Round",
    "SavedDeck",
    "Season",
    "Trade",
    "TradeEvent",
    "TradeFeedback",
    "TradeLine",
    "TradePrice",
    "User",
    "WantItem",
    "table_of",
]
