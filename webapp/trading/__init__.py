"""Trading on the web: inbox, composer, trade page, matches, price list.

Settings come from the app config (:func:`webapp.helpers.trade_settings`, shared with the API).
"""

from flask import Blueprint

bp = Blueprint("trades", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang trades`` (:mod:`webapp.trading.cli`) needs none of them."""
    from webapp.trading import routes  # noqa: F401

    return bp
