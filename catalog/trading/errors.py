"""Errors of the trading use cases: each carries a Chinese message with the English alongside,
and a code the API maps to its status (404 / 400 / 409)."""

from __future__ import annotations

from typing import Any

from catalog.errors import LunzangError, Message


class TradeError(LunzangError):
    """Bad input to a trade (400): nothing was changed."""

    code = "bad_request"


class TradeNotFound(TradeError):
    """No such trade, or not one the caller may see (the same answer: 404, no leak)."""

    code = "not_found"


class TradeConflict(TradeError):
    """The trade is not in a state that allows this, or was changed meanwhile (409)."""

    code = "conflict"


class StaleVersion(TradeConflict):
    code = "stale_version"


class NeedsAttention(TradeConflict):
    code = "needs_attention"


class OfferLimit(TradeConflict):
    code = "offer_limit"


class Unavailable(TradeConflict):
    """Some lines ask for more copies than their giver has available for trade (409, lines named)."""

    code = "unavailable"

    def __init__(self, message: Message, lines: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.lines = lines
