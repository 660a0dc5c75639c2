"""Trading on the web (issue 13): inbox, composer, trade page, matches, price list.

Settings come from the app config (:func:`webapp.helpers.trade_settings`, shared with the API).
"""

from flask import Blueprint

bp = Blueprint("trades", __name__)


from webapp.trades import routes  # noqa: E402,F401
