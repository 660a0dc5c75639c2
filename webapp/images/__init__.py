"""Card images on the web and in the CLI: the face or scan of a printing at
``/images/<game>/<set>/<number>.<size>.<fmt>`` and the template globals naming it (``routes``),
``lunzang render`` and ``lunzang images`` (``cli``). The images themselves are catalog.images';
the admins' scan pages are admin's (webapp.admin), which call catalog.images.scans."""

from flask import Blueprint

bp = Blueprint("images", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its route, imported here when the app registers it (as every area's)."""
    from webapp.images import routes  # noqa: F401

    return bp
