"""Core column collections of the tables the collection queries join (typed for mypy)."""

from __future__ import annotations

from catalog.models import Card, CardSet, Game, Printing, table_of
from catalog.user_models import CollectionImport, CollectionItem, LedgerEntry, SavedDeck, User, WantItem

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
