"""Core column collections of the trading tables (typed for mypy), as catalog.models.columns; the trade states."""

from __future__ import annotations

from catalog.models import Trade, TradeEvent, TradeFeedback, TradeLine, TradePrice, table_of

TRADE_T = table_of(Trade)
LINE_T = table_of(TradeLine)
TRADE = TRADE_T.c
LINE = LINE_T.c
EVENT = table_of(TradeEvent).c
FEEDBACK = table_of(TradeFeedback).c
PRICE = table_of(TradePrice).c

# Before acceptance a trade holds only the copies its current author gives (see reservation).
OFFERED = ("proposed", "countered")
# After acceptance (mail) each side's copies stay held until the receiver confirms receipt.
SHIPPING = ("accepted", "disputed")
OPEN = (*OFFERED, "accepted")
FINAL = ("completed", "declined", "cancelled", "expired")
