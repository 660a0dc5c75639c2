"""Accounts on the web: register, sign in/out, the account page (password, tokens, privacy)."""

from __future__ import annotations

from flask import Blueprint, current_app

bp = Blueprint("auth", __name__)


def hash_method() -> str | None:
    """werkzeug's hashing method: the default (scrypt), or a cheap one under TESTING."""
    return current_app.config.get("PASSWORD_HASH_METHOD") or None


from webapp.auth import routes  # noqa: E402,F401
