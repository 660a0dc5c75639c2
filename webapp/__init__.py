"""轮藏 Lunzang web application: the app factory (flaskr / Microblog pattern)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from flask_babel import Babel, get_locale
from flask_babel import gettext as _
from sqlalchemy.exc import DBAPIError, OperationalError
from werkzeug.exceptions import NotFound

from catalog.errors import ConfigurationError
from webapp import db

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = {"zh": "简体中文", "en": "English"}
babel = Babel()
RETRY_AFTER_SECONDS = 5  # told to clients when the database is busy or unreachable (503)


def select_locale() -> str:
    chosen = request.args.get("lang") or request.cookies.get("lang")
    return chosen if chosen in LANGUAGES else "zh"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Defaults, then instance ``config.py`` and the environment, then ``test_config``."""
    app = Flask(__name__, instance_relative_config=True, static_folder=str(ROOT / "static"))
    app.json.ensure_ascii = False  # type: ignore[attr-defined]  # Chinese readable in the API, not \uXXXX
    app.config.from_mapping(
        SECRET_KEY="dev",
        DATABASE_URL=None,
        # Seconds a request waits for SQLite's write lock (a long import holds it) before it is
        # answered 503 + Retry-After: below gunicorn's 30 s worker timeout, so the visitor gets
        # an answer rather than a killed worker. Environment: DATABASE_TIMEOUT.
        DATABASE_TIMEOUT=10,
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
        # Request bodies: a bit above the 20 MB scan cap (catalog.scans.MAX_BYTES) for the
        # multipart overhead; the 10 MB collection CSV cap is the domain's (catalog.collection.csvio).
        MAX_CONTENT_LENGTH=21 * 1024 * 1024,
        # How many reverse proxies (load balancer, nginx) stand in front of the app. Behind
        # one, every request comes from the proxy's address: the sign-in limit would count all
        # visitors as one. Set LUNZANG_PROXIES=1 there so X-Forwarded-For/-Proto/-Host are
        # trusted from exactly that many hops (werkzeug's ProxyFix); never when exposed directly.
        LUNZANG_PROXIES=0,
    )
    app.config.from_pyfile("config.py", silent=True)
    from_environment = (
        "SECRET_KEY",
        "DATABASE_URL",
        "DATABASE_TIMEOUT",
        "LUNZANG_ENV",
        "LUNZANG_HTTPS",
        "RATELIMIT_STORAGE_URI",
    )
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

    db.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    from webapp.auth.setup import init_auth

    init_auth(app)

    from webapp.cards import bp as cards_bp

    app.register_blueprint(cards_bp)

    from webapp.decks import bp as decks_bp

    app.register_blueprint(decks_bp)

    from webapp.packs import bp as packs_bp

    app.register_blueprint(packs_bp)

    from webapp.collection import bp as collection_bp

    app.register_blueprint(collection_bp)

    from webapp.wants import bp as wants_bp

    app.register_blueprint(wants_bp)

    from webapp.admin import bp as admin_bp

    app.register_blueprint(admin_bp)

    from webapp.api import bp as api_bp

    app.register_blueprint(api_bp)

    from webapp.auth import bp as auth_bp
    from webapp.extensions import csrf

    app.register_blueprint(auth_bp)
    csrf.exempt(api_bp)  # the API authenticates writes by bearer token, not by cookie (DESIGN §8)

    from webapp.cli import register

    register(app)

    @app.context_processor
    def inject_globals() -> dict[str, Any]:
        return {"languages": LANGUAGES, "current_locale": str(get_locale())}

    @app.after_request
    def remember_language(response: Any) -> Any:
        chosen = request.args.get("lang")
        if chosen in LANGUAGES:
            response.set_cookie("lang", chosen, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
        return response

    @app.errorhandler(404)
    def not_found(error: Any) -> Any:
        # Our own aborts carry a Chinese description; Werkzeug's default one is English.
        if request.path.startswith("/api/"):
            from webapp.api import error_body

            return error_body("not_found", "没有这个 API 路径", "no such API path"), 404
        description = getattr(error, "description", "")
        message = "" if description == NotFound.description else description
        return render_template("error.html", title=_("页面不存在"), message=message), 404

    @app.errorhandler(413)
    def too_large(_error: Any) -> Any:
        limit = (app.config.get("MAX_CONTENT_LENGTH") or 0) / 1048576
        zh = _("上传的内容太大（上限 %(mb).0f MB）。", mb=limit)
        if request.path.startswith("/api/"):
            from webapp.api import error_body

            return error_body("too_large", zh, f"the request body is too large (limit {limit:.0f} MB)"), 413
        return render_template("error.html", title=_("文件太大"), message=zh), 413

    @app.errorhandler(ConfigurationError)
    def unavailable(error: ConfigurationError) -> Any:
        return render_template("error.html", title=_("数据库不可用"), message=error.message.zh), 503

    @app.errorhandler(DBAPIError)
    def database_error(error: DBAPIError) -> Any:
        # A database without our tables (``lunzang run`` before ``lunzang init-db``) gets a
        # clear 503 instead of a stack trace, and so does one that is busy (SQLite's write lock
        # held past DATABASE_TIMEOUT by an import) or unreachable (PostgreSQL restarting, its
        # connection cut): 503 with Retry-After, JSON under /api/. Anything else stays a real error.
        from catalog.db import is_empty
        from webapp.db import get_engine

        db.discard_session()
        try:
            empty = is_empty(get_engine())
        except DBAPIError:
            empty = False
            error_is_availability = True
        else:
            error_is_availability = isinstance(error, OperationalError) or error.connection_invalidated
        if empty:
            zh = _("数据库还没有建表：请先运行 lunzang init-db（make run 会自动完成）。")
            if request.path.startswith("/api/"):
                from webapp.api import error_body

                body = error_body("database_not_initialised", zh, "the database has no tables: run lunzang init-db")
                return body, 503
            return render_template("error.html", title=_("数据库不可用"), message=zh), 503
        if not error_is_availability:
            raise error
        app.logger.warning("database unavailable on %s %s: %s", request.method, request.path, error.orig)
        zh = _("数据库正忙（可能正在导入数据），请稍后再试。")
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        if request.path.startswith("/api/"):
            from webapp.api import error_body

            en = "the database is busy or unreachable (an import may be running): try again shortly"
            return error_body("database_busy", zh, en), 503, headers
        return render_template("error.html", title=_("数据库不可用"), message=zh), 503, headers

    return app
