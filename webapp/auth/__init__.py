"""Accounts on the web: register, sign in/out, the account page (password, tokens, privacy)."""

from __future__ import annotations

from flask import Blueprint, current_app

bp = Blueprint("auth", __name__)


def hash_method() -> str | None:
    """werkzeug's hashing method: the default (scrypt), or a cheap one under TESTING."""
    return current_app.config.get("PASSWORD_HASH_METHOD") or None


def blueprint() -> Blueprint:
    """The blueprint with its pages, imported here when the app registers it, not
    with the package: ``lunzang user`` (:mod:`webapp.auth.cli`) needs none of them."""
    from webapp.auth import reset, routes  # noqa: F401

    return bp
