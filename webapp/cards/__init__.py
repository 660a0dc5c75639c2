"""Catalogue pages: home, set list, set page, card page."""

from flask import Blueprint

bp = Blueprint("cards", __name__)

from webapp.cards import routes  # noqa: E402,F401
