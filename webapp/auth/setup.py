"""Attach Flask-Login, CSRF protection and the rate limiter to the app (their error pages: webapp.errors)."""

from __future__ import annotations

from flask import Flask, g
from flask_babel import lazy_gettext as _  # lazy: login_message is set once, shown per request
from sqlalchemy.exc import DBAPIError

from catalog.errors import ConfigurationError
from catalog.models import User
from webapp import db
from webapp.extensions import csrf, limiter, login_manager


@login_manager.user_loader
def load_user(user_id: str) -> User | None:
    """The user of a session id ``"<id>:<auth_version>"``; a stale version signs the session out."""
    id_part, _sep, version = user_id.partition(":")
    if not (id_part.isdigit() and version.isdigit()):
        return None
    try:
        user = db.get_session().get(User, int(id_part))
    except (DBAPIError, ConfigurationError):
        # The first failure goes to the error handlers (a busy database answers 503, not a
        # redirect to the sign-in page as if the visitor were signed out); while the error page
        # renders, the header just shows the visitor as signed out instead of failing again.
        db.discard_session()
        if g.get("lunzang_user_load_failed"):
            return None
        g.lunzang_user_load_failed = True
        raise
    if user is None or user.auth_version != int(version):
        return None
    return user


def init_auth(app: Flask) -> None:
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    login_manager.login_message = _("请先登录")
    login_manager.needs_refresh_message = _("请重新登录")
    login_manager.localize_callback = str  # flash the message in the visitor's language, as plain text
    csrf.init_app(app)
    limiter.init_app(app)
    # The limiter object outlives one app (the test suite builds many): a store an earlier app
    # found dead is not this app's. Flask-Limiter keeps that state in an attribute of its own.
    limiter._storage_dead = False
