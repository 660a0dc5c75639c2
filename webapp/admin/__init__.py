"""Administration pages (role ``admin`` only): card scan uploads."""

from flask import Blueprint

bp = Blueprint("admin", __name__, url_prefix="/admin")


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not with the
    package (as every area's, :func:`webapp.create_app`)."""
    from webapp.admin import routes  # noqa: F401

    return bp
