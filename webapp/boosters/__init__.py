"""Booster pages: choose a set, open packs and boxes, exact odds, set completion."""

from flask import Blueprint

bp = Blueprint("packs", __name__, url_prefix="/packs")


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang packs`` (:mod:`webapp.boosters.cli`) needs none of them."""
    from webapp.boosters import routes  # noqa: F401

    return bp
