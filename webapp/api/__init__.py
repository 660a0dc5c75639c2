"""JSON API under /api/v1 (DESIGN §8): one module per area, one OpenAPI document.

Errors are ``{"error": {"code", "message", "message_en"}}`` with a 4xx status, never a trace.
Each area module adds its routes to ``bp`` and its paths to ``openapi.PATHS``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify
from werkzeug.exceptions import HTTPException

from catalog.errors import LunzangError
from webapp.refusal import domain_error_json, error_body

bp = Blueprint("api", __name__, url_prefix="/api/v1")


class ApiError(Exception):
    """An error answer: HTTP status, machine code, Chinese message and its English twin."""

    def __init__(self, status: int, code: str, message: str, message_en: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.message_en, self.extra = status, code, message, message_en, extra


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> Any:
    response = jsonify(error_body(error.code, error.message, error.message_en, **error.extra))
    if error.status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="lunzang"'
    return response, error.status


@bp.errorhandler(LunzangError)
def _domain_error(error: LunzangError) -> Any:
    return domain_error_json(error)


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Any:
    return (
        jsonify(error_body(error.name.lower().replace(" ", "_"), error.description or "", error.description or "")),
        error.code or 500,
    )


def blueprint() -> Blueprint:
    """The blueprint with its routes, imported here when the app registers it, not with the
    package (as every area's, :func:`webapp.create_app`)."""
    from webapp.api import auth, cards, collection, decks, events, openapi, packs, schemas, trades  # noqa: F401

    return bp
