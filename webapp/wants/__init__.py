"""Trading lists on the web (issue 6 §5): my want list, my have list with the keep-N rule, and
the public profile showing both when the user made them public."""

from flask import Blueprint

bp = Blueprint("wants", __name__)


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not with the
    package (as every area's, :func:`webapp.create_app`)."""
    from webapp.wants import routes  # noqa: F401

    return bp
