"""Trading on the web (issue 13): inbox, composer, trade page, matches, price list.

Settings come from the app config (instance ``config.py`` or the test dict):
``TRADE_EXPIRY_DAYS`` (default 14), ``TRADE_NEW_ACCOUNT_TRADES`` (3) and
``TRADE_NEW_ACCOUNT_OPEN_OFFERS`` (5).
"""

from flask import Blueprint, current_app

from catalog.trading import DEFAULT_SETTINGS, TradeSettings

bp = Blueprint("trades", __name__)


def trade_settings() -> TradeSettings:
    """The configured :class:`TradeSettings` (defaults where the config is silent)."""
    config = current_app.config
    return TradeSettings(
        expiry_days=int(config.get("TRADE_EXPIRY_DAYS", DEFAULT_SETTINGS.expiry_days)),
        new_account_trades=int(config.get("TRADE_NEW_ACCOUNT_TRADES", DEFAULT_SETTINGS.new_account_trades)),
        new_account_open_offers=int(
            config.get("TRADE_NEW_ACCOUNT_OPEN_OFFERS", DEFAULT_SETTINGS.new_account_open_offers)
        ),
    )


from webapp.trades import routes  # noqa: E402,F401
