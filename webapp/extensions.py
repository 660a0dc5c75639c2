"""Flask extensions, created unbound and attached in ``create_app`` (``init_app``).

- ``login_manager`` (Flask-Login): the signed-in user is the ``User`` row itself; the session
  stores ``"<id>:<auth_version>"`` so a password change signs every other session out.
- ``csrf`` (Flask-WTF): every POST/PUT/PATCH/DELETE outside the JSON API needs the form's
  ``csrf_token``; the API authenticates writes by bearer token instead (DESIGN §8).
- ``limiter`` (Flask-Limiter): only the sign-in form is limited (see ``webapp.auth.routes``).
  Counters live in ``RATELIMIT_STORAGE_URI``: ``memory://`` (one process) by default, a
  ``redis://`` URL when several app servers must share them (DESIGN §9; needs ``redis``).
"""

from __future__ import annotations

from flask import request
from flask_limiter import Limiter
from flask_login import LoginManager
from flask_wtf.csrf import CSRFProtect


def client_address() -> str:
    """The address the limiter counts by. Behind a proxy, wrap the app in werkzeug's ProxyFix."""
    return request.remote_addr or "unknown"


login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=client_address)
