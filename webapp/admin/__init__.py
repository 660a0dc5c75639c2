"""Administration pages (role ``admin`` only): card scan uploads (issue 7)."""

from flask import Blueprint

bp = Blueprint("admin", __name__, url_prefix="/admin")

from webapp.admin import routes  # noqa: E402,F401
