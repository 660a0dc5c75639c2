"""Core column collections of the event tables, for typed queries (as catalog.models.columns)."""

from __future__ import annotations

from catalog.models import (
    ChestBalance,
    ChestLedger,
    Event,
    ExchangeItem,
    Match,
    PrizeTable,
    Registration,
    ResultReport,
    Round,
    Season,
    table_of,
)

EVENT = table_of(Event).c
REG = table_of(Registration).c
ROUND = table_of(Round).c
MATCH = table_of(Match).c
REPORT = table_of(ResultReport).c
PRIZE = table_of(PrizeTable).c
BALANCE = table_of(ChestBalance).c
CHEST_LEDGER = table_of(ChestLedger).c
ITEM = table_of(ExchangeItem).c
SEASON = table_of(Season).c
