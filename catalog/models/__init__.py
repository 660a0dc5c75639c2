"""Every table of the product, one module per area (DESIGN §2).

- ``catalogue``: Game, CardSet, PackTemplate, Card (+ search rows, traits, keywords), Printing,
  Format, BanEntry;
- ``users``: accounts, API tokens, collections, the ledger, want lists, saved decks, scans;
- ``events``: tournaments, registrations, rounds, matches, chests and their ledger, seasons.
- ``trading``: trades, their lines per version, the transition log, feedback, price lists.

Importing this package registers every table on ``SQLModel.metadata``, which Alembic and the
migration test compare with the database. A new area adds its module here.
"""

from sqlmodel import SQLModel

# Pydantic builds a validator and a serializer for every model class as it is defined; table
# models never use them here (SQLModel constructs table rows without validating, and no code
# dumps one), and the 36 of them cost ~10% of importing the models, in every command (issue
# 17). Deferred, a model's are built the first time something validates or dumps that model.
SQLModel.model_config["defer_build"] = True

from catalog.models.catalogue import (  # noqa: E402  (the models need the line above)
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
from catalog.models.events import (  # noqa: E402
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
from catalog.models.trading import Trade, TradeEvent, TradeFeedback, TradeLine, TradePrice  # noqa: E402
from catalog.models.users import (  # noqa: E402
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
    "PrintingOrder",
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
