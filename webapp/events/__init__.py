"""Events on the web: public event pages (pairings, standings, round clock), my
events, the organiser dashboard, seasons, chests and exchange lists."""

from flask import Blueprint

bp = Blueprint("events", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang event`` (:mod:`webapp.events.cli`) needs none of them."""
    from webapp.events import downloads, manage, routes  # noqa: F401

    return bp
