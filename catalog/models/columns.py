"""Core column collections of the tables the collection queries join (typed for mypy)."""

from __future__ import annotations

from catalog.models import (
    Card,
    CardSet,
    CollectionImport,
    CollectionItem,
    Game,
    LedgerEntry,
    Printing,
    SavedDeck,
    User,
    WantItem,
    table_of,
)

ITEM = table_of(CollectionItem).c
LEDGER = table_of(LedgerEntry).c
IMPORT = table_of(CollectionImport).c
WANT = table_of(WantItem).c
DECK = table_of(SavedDeck).c
USER = table_of(User).c
CARD = table_of(Card).c
PRINTING = table_of(Printing).c
SET = table_of(CardSet).c
GAME = table_of(Game).c
