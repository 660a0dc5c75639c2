"""``GET /healthz`` and ``lunzang serve --check``: can this server reach its database and its
rate-limit store (Redis when several servers share it)? For a load balancer's health check:
200 with each part "ok"; 503 naming the database when it fails. Redis away is "degraded", still
200: each process limits sign-ins on its own until it answers again, and taking
every server out of the balancer for it would lock everyone out. ``serve --check`` exits 1 for
anything not "ok". Anonymous, cheap, never cached."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify
from sqlalchemy import text


def checks(app: Flask) -> dict[str, str]:
    """Each dependency → "ok" or the reason it failed (one line)."""
    from webapp.db import get_engine
    from webapp.extensions import limiter

    results: dict[str, str] = {}
    try:
        with get_engine(app).connect() as connection:
            connection.execute(text("SELECT 1"))
        results["database"] = "ok"
    except Exception as error:  # any failure is the answer, not a crash of the check
        results["database"] = _reason(error)
    store = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
    try:
        storage = limiter.storage
        healthy = bool(storage.check()) if storage is not None else False
        results["rate_limit_store"] = "ok" if healthy else f"{store.split('://')[0]} does not answer" + FALLBACK
    except Exception as error:
        results["rate_limit_store"] = _reason(error) + FALLBACK
    return results


FALLBACK = ": sign-in is limited per process until it answers again"


def _reason(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error
    return (str(cause).strip().splitlines() or [type(cause).__name__])[0]


def init_app(app: Flask) -> None:
    @app.get("/healthz")
    def healthz() -> Any:
        results = checks(app)
        if results["database"] != "ok":
            status, code = "unavailable", 503
        else:
            status, code = ("ok" if all(v == "ok" for v in results.values()) else "degraded"), 200
        response = jsonify({"status": status, **results})
        response.headers["Cache-Control"] = "no-store"
        return response, code
