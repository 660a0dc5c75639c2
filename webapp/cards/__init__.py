"""Catalogue pages: home, set list, set page, card page, search, keyword glossary."""

from flask import Blueprint

bp = Blueprint("cards", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang search`` (:mod:`webapp.cards.cli`) needs none of them."""
    from webapp.cards import routes, search  # noqa: F401

    return bp
