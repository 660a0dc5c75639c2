"""What several blueprints share, so that none imports another's routes.

Time as the tables store it, domain errors in the reader's language, the only-local-paths check
for ``next`` redirects, the image folders, condition names, the signed-in user's copies on a
page, the working deck (kept by the decks blueprint, read by the search results), and the
marking of a bad search term (results pages of the cards and collection blueprints).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from flask import current_app
from flask import session as web_session
from flask_babel import get_locale
from flask_login import current_user

from catalog.collection.grades import CONDITION_NAMES, CONDITIONS
from catalog.collection.reads import owned_counts
from catalog.errors import LunzangError
from catalog.search import QueryError
from catalog.trading import DEFAULT_SETTINGS, TradeSettings
from webapp.db import get_session


def utcnow() -> datetime:
    """Now, as the aware UTC the tables store."""
    return datetime.now(UTC)


def localized(error: LunzangError) -> str:
    """A domain error's message in the interface language."""
    return error.message.en if str(get_locale()) == "en" else error.message.zh


def safe_next(target: str | None) -> str | None:
    """``target`` when it is a path on this site, else None (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or any(ch in target for ch in "\r\n\\"):
        return None
    return target


def cache_dir() -> Path:
    """Where rendered faces are kept: ``CARD_IMAGE_DIR``, else ``instance/card-images/``."""
    configured = current_app.config.get("CARD_IMAGE_DIR")
    return Path(configured) if configured else Path(current_app.instance_path) / "card-images"


def scan_dir() -> Path:
    """Where uploaded scans are kept: ``SCAN_DIR``, else ``instance/scans/``."""
    configured = current_app.config.get("SCAN_DIR")
    return Path(configured) if configured else Path(current_app.instance_path) / "scans"


def condition_choices() -> list[tuple[str, str]]:
    """(code, label) of every condition, best first, in the interface language."""
    english = str(get_locale()) == "en"
    return [(code, CONDITION_NAMES[code].en if english else CONDITION_NAMES[code].zh) for code in CONDITIONS]


def owned_for(printing_ids: Iterable[int | None]) -> dict[int, int] | None:
    """Copies owned per printing in one query; ``None`` for a visitor (no buttons shown)."""
    if not current_user.is_authenticated:
        return None
    ids = [pid for pid in printing_ids if pid is not None]
    return owned_counts(session=get_session(), user_id=int(current_user.id), printing_ids=ids)


# The working deck is also kept in the (signed cookie) session, so a link from anywhere, e.g. a
# search result's ``/decks?game=samsara&add=卡名``, adds to the deck being built.
WORKING_DECK = "working_deck"


def working_deck() -> tuple[str, str]:
    """The deck being built in this browser: (game slug or "", list text)."""
    saved = web_session.get(WORKING_DECK)
    if not isinstance(saved, dict):
        return "", ""
    return str(saved.get("game") or ""), str(saved.get("list") or "")


@dataclass(frozen=True)
class Marked:
    """The query split around the bad term, for highlighting it where it was typed."""

    before: str
    term: str
    after: str


def trade_settings() -> TradeSettings:
    """The configured :class:`TradeSettings` (defaults where the config is silent): instance
    ``config.py`` or the test dict's ``TRADE_EXPIRY_DAYS`` (default 14), ``TRADE_NEW_ACCOUNT_TRADES``
    (3) and ``TRADE_NEW_ACCOUNT_OPEN_OFFERS`` (5). The trade pages and the trades API read it."""
    config = current_app.config
    return TradeSettings(
        expiry_days=int(config.get("TRADE_EXPIRY_DAYS", DEFAULT_SETTINGS.expiry_days)),
        new_account_trades=int(config.get("TRADE_NEW_ACCOUNT_TRADES", DEFAULT_SETTINGS.new_account_trades)),
        new_account_open_offers=int(
            config.get("TRADE_NEW_ACCOUNT_OPEN_OFFERS", DEFAULT_SETTINGS.new_account_open_offers)
        ),
    )


def mark_error(text: str, error: QueryError, game: str = "") -> Marked | None:
    """``text`` split around the term ``error`` names; None when it names the ``game=`` parameter."""
    if game and error.term == game:  # the game= parameter, not a term of the query
        return None
    start = min(error.position, len(text))
    end = min(len(text), start + error.length)
    return Marked(text[:start], text[start:end], text[end:])
