"""Events on the web (issue 14): public event pages (pairings, standings, round clock), my
events, the organiser dashboard, seasons, chests and exchange lists."""

from flask import Blueprint

bp = Blueprint("events", __name__)

from webapp.events import routes  # noqa: E402,F401
