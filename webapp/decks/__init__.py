"""Deck pages: paste a list, see the verdict, charts and draw odds; print and export; rules pages."""

from flask import Blueprint

bp = Blueprint("decks", __name__)

from webapp.decks import routes, saved  # noqa: E402,F401
