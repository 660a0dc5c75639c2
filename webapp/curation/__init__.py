"""The community catalogue on the web: curators edit cards and printings, everyone reads the
history (catalog.curation); admins grant the curator role (webapp.admin)."""

from flask import Blueprint

bp = Blueprint("curation", __name__, url_prefix="/catalogue")


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported when the app registers it (as every area's)."""
    from webapp.curation import bulk, catalogue, opendata, proposals, routes  # noqa: F401

    return bp
