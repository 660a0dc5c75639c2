"""Deck pages: paste a list, see the verdict, charts and draw odds; print and export; rules pages."""

from flask import Blueprint

bp = Blueprint("decks", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang deck`` (:mod:`webapp.decks.cli`) needs none of them."""
    from webapp.decks import owned, routes, saved  # noqa: F401

    return bp
