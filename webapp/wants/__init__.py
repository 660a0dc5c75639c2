"""Trading lists on the web (issue 6 §5): my want list, my have list with the keep-N rule, and
the public profile showing both when the user made them public."""

from flask import Blueprint

bp = Blueprint("wants", __name__)

from webapp.wants import routes  # noqa: E402,F401
