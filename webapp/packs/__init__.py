"""Booster pages: choose a set, open packs and boxes, exact odds, set completion."""

from flask import Blueprint

bp = Blueprint("packs", __name__, url_prefix="/packs")

from webapp.packs import routes  # noqa: E402,F401
