"""Trading: offers holding the giver's copies, a versioned state machine, settlement
through the ledger, matching, balance and reputation. Never imports Flask.

- ``reservation``: what open offers hold, availability, the "needs attention" mark;
- ``lines``: validating and resolving trade lines;
- ``offers``: propose / counter / decline / cancel / dispute / expire;
- ``settlement``: accept, sent, received — the only code that moves cards between users;
- ``views``: reading trades for pages and the API;
- ``matching``: partners ranked by two-sided coverage;
- ``balance``: rarity points or an imported price list;
- ``reputation``: feedback, completed counts, disputes.
"""

from catalog.collection.ledger import on_for_trade_fell
from catalog.trading.errors import (
    NeedsAttention,
    OfferLimit,
    StaleVersion,
    TradeConflict,
    TradeError,
    TradeNotFound,
    Unavailable,
)
from catalog.trading.offers import DEFAULT_SETTINGS, TradeSettings, cancel, counter, decline, dispute, propose
from catalog.trading.reservation import LineSpec, flag_shortfalls
from catalog.trading.settlement import Outcome, accept, mark_received, mark_sent

# The ledger does not know trading: when copies for trade go down, it calls what registered here.
on_for_trade_fell(flag_shortfalls)

__all__ = [
    "DEFAULT_SETTINGS",
    "LineSpec",
    "NeedsAttention",
    "OfferLimit",
    "Outcome",
    "StaleVersion",
    "TradeConflict",
    "TradeError",
    "TradeNotFound",
    "TradeSettings",
    "Unavailable",
    "accept",
    "cancel",
    "counter",
    "decline",
    "dispute",
    "mark_received",
    "mark_sent",
    "propose",
]
