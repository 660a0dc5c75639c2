"""The app's settings: defaults, then instance ``config.py`` and the environment, then the tests'.

Every setting the app reads is here with its default and why it is what it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

from catalog.errors import ConfigurationError

ROOT = Path(__file__).resolve().parent.parent


def load(app: Flask, test_config: dict[str, Any] | None = None) -> None:
    """Defaults, then instance ``config.py`` and the environment, then ``test_config``."""
    app.config.from_mapping(
        SECRET_KEY="dev",
        DATABASE_URL=None,
        SAMPLE_DATA=str(ROOT / "import"),
        BABEL_DEFAULT_LOCALE="zh",
        BABEL_TRANSLATION_DIRECTORIES=str(Path(__file__).parent / "translations"),
        LUNZANG_ENV="development",
        # Accounts (webapp.auth): cookies never readable by scripts, not sent on cross-site
        # POSTs; Secure as well once the site is served over HTTPS (LUNZANG_HTTPS=1 or
        # PREFERRED_URL_SCHEME="https"), since a Secure cookie is never sent over plain HTTP.
        LUNZANG_HTTPS=False,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        # A CSRF token is valid as long as the session (a results page left open still works).
        WTF_CSRF_TIME_LIMIT=None,
        # Sign-in counters: one process by default; redis://host:6379/0 to share across servers.
        RATELIMIT_STORAGE_URI="memory://",
        # Explicit: the limiter object outlives one app and would otherwise keep an earlier app's False.
        RATELIMIT_ENABLED=True,
        RATELIMIT_STRATEGY="moving-window",
        RATELIMIT_HEADERS_ENABLED=True,
        PASSWORD_HASH_METHOD=None,  # werkzeug's default (scrypt)
        # Request bodies: a bit above the 20 MB scan cap (catalog.images.scans.MAX_BYTES) for the
        # multipart overhead; the 10 MB collection CSV cap is the domain's (catalog.collection.csvio).
        MAX_CONTENT_LENGTH=21 * 1024 * 1024,
        # How many reverse proxies (load balancer, nginx) stand in front of the app. Behind
        # one, every request comes from the proxy's address: the sign-in limit would count all
        # visitors as one. Set LUNZANG_PROXIES=1 there so X-Forwarded-For/-Proto/-Host are
        # trusted from exactly that many hops (werkzeug's ProxyFix); never when exposed directly.
        LUNZANG_PROXIES=0,
    )
    app.config.from_pyfile("config.py", silent=True)
    from_environment = ("SECRET_KEY", "DATABASE_URL", "LUNZANG_ENV", "LUNZANG_HTTPS", "RATELIMIT_STORAGE_URI")
    for key in (*from_environment, "LUNZANG_PROXIES"):
        if os.environ.get(key):
            app.config[key] = os.environ[key]
    if test_config:
        app.config.update(test_config)
    if app.config["TESTING"] and not app.config["PASSWORD_HASH_METHOD"]:
        app.config["PASSWORD_HASH_METHOD"] = "pbkdf2:sha256:1"  # cheap: tests create many users
    https = str(app.config["LUNZANG_HTTPS"]).lower() in {"1", "true", "yes", "on"}
    if https or app.config.get("PREFERRED_URL_SCHEME") == "https":
        app.config["SESSION_COOKIE_SECURE"] = app.config["REMEMBER_COOKIE_SECURE"] = True
    proxies = int(app.config["LUNZANG_PROXIES"] or 0)
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config["DATABASE_URL"]:
        app.config["DATABASE_URL"] = f"sqlite:///{Path(app.instance_path) / 'lunzang.sqlite3'}"
    if app.config["LUNZANG_ENV"] == "production" and app.config["SECRET_KEY"] == "dev":
        raise ConfigurationError.from_text(
            "生产环境必须设置 SECRET_KEY 环境变量", "set SECRET_KEY before serving in production"
        )
