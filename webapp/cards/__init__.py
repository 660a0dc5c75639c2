"""Catalogue pages: home, set list, set page, card page, search, keyword glossary."""

from flask import Blueprint

bp = Blueprint("cards", __name__)

from webapp.cards import images, routes, search  # noqa: E402,F401
