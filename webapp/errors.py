"""Error answers for the whole app: a page in the reader's language, or JSON under ``/api/``.

Domain errors carry their HTTP status (:attr:`catalog.errors.LunzangError.status`), so one
handler answers every one of them; the JSON shape is DESIGN §8's
``{"error": {"code", "message", "message_en", …}}``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError, OperationalError
from werkzeug.exceptions import BadRequest, NotFound

from catalog.errors import ConfigurationError
from webapp import db, refusal
from webapp.refusal import error_body

RETRY_AFTER_SECONDS = 5  # told to clients when the database is busy or unreachable (503)


def database_unavailable(app: Flask, error: DBAPIError) -> Any:
    """The 503 + Retry-After answer of a busy or unreachable database (JSON under /api/)."""
    app.logger.warning("database unavailable on %s %s: %s", request.method, request.path, error.orig)
    zh = _("数据库正忙（可能正在导入数据），请稍后再试。")
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if _wants_api():
        en = "the database is busy or unreachable (an import may be running): try again shortly"
        return error_body("database_busy", zh, en), 503, headers
    return render_template("error.html", title=_("数据库不可用"), message=zh), 503, headers


def _wants_api() -> bool:
    return request.path.startswith("/api/")


def init_app(app: Flask) -> None:
    """Attach the app-wide handlers (404, 413, domain errors, CSRF, rate limit, database unavailable)."""

    @app.errorhandler(404)
    def not_found(error: Any) -> Any:
        # Our own aborts carry a Chinese description; Werkzeug's default one is English.
        if _wants_api():
            return error_body("not_found", "没有这个 API 路径", "no such API path"), 404
        description = getattr(error, "description", "")
        message = "" if description == NotFound.description else description
        return render_template("error.html", title=_("页面不存在"), message=message), 404

    @app.errorhandler(400)
    def bad_request(error: Any) -> Any:
        # abort(400, message) from a page (a deck image of unknown cards…): the site's error
        # page with the message, not Werkzeug's bare one. Handlers for subclasses (CSRF) win.
        description = getattr(error, "description", "")
        message = "" if description == BadRequest.description else description
        if _wants_api():
            return error_body("bad_request", message or "请求无效", message or "bad request"), 400
        return render_template("error.html", title=_("无法处理的输入"), message=message), 400

    @app.errorhandler(413)
    def too_large(_error: Any) -> Any:
        limit = (app.config.get("MAX_CONTENT_LENGTH") or 0) / 1048576
        zh = _("上传的内容太大（上限 %(mb).0f MB）。", mb=limit)
        if _wants_api():
            return error_body("too_large", zh, f"the request body is too large (limit {limit:.0f} MB)"), 413
        return render_template("error.html", title=_("文件太大"), message=zh), 413

    # A domain error: the request refused, its writes undone, one answer (webapp.refusal).
    refusal.init_app(app)

    @app.errorhandler(ConfigurationError)
    def unavailable(error: ConfigurationError) -> Any:
        return render_template("error.html", title=_("数据库不可用"), message=error.message.zh), error.status

    @app.errorhandler(DBAPIError)
    def database_error(error: DBAPIError) -> Any:
        # A database without our tables (``lunzang run`` before ``lunzang init-db``) gets a
        # clear 503 instead of a stack trace, and so does one that is busy (SQLite's write lock
        # held past DATABASE_TIMEOUT by an import) or unreachable (PostgreSQL restarting, its
        # connection cut): 503 with Retry-After, JSON under /api/ (never a 500).
        # Anything else stays a real error.
        from catalog.db import is_empty

        db.discard_session()
        try:
            empty = is_empty(db.get_engine())
        except DBAPIError:
            empty, availability = False, True
        else:
            availability = isinstance(error, OperationalError) or error.connection_invalidated
        if empty:
            zh = _("数据库还没有建表：请先运行 lunzang init-db（make run 会自动完成）。")
            if _wants_api():
                return error_body(
                    "database_not_initialised", zh, "the database has no tables: run lunzang init-db"
                ), 503
            return render_template("error.html", title=_("数据库不可用"), message=zh), 503
        if not availability:
            raise error
        return database_unavailable(app, error)

    @app.errorhandler(CSRFError)
    def csrf_failed(error: CSRFError) -> Any:
        message = str(_("表单已过期或缺少安全令牌：请返回上一页，刷新后再提交。"))
        if _wants_api():
            return jsonify(error_body("csrf", message, "the form's CSRF token is missing or invalid")), 400
        return render_template("error.html", title=_("无法提交表单"), message=message), 400

    @app.errorhandler(RateLimitExceeded)
    def too_many(error: RateLimitExceeded) -> Any:
        # The Retry-After header says how long (RATELIMIT_HEADERS_ENABLED).
        message = str(_("尝试次数过多，请稍后再试。"))
        if _wants_api():
            body = error_body("rate_limited", message, f"too many attempts, try again later ({error.description})")
            return jsonify(body), 429
        return render_template("error.html", title=_("请求过于频繁"), message=message), 429
