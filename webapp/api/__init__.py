"""JSON API under /api/v1 (DESIGN §8): one module per area, one OpenAPI document.

Errors are ``{"error": {"code", "message", "message_en"}}`` with a 4xx status, never a trace.
Each area module adds its routes to ``bp`` and declares each one (``openapi.operation``) beside it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from flask import Blueprint, jsonify, request
from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import HTTPException

from catalog.errors import LunzangError
from webapp.refusal import domain_error_json, error_body
from webapp.shapes.errors import validation_messages

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


Body = TypeVar("Body", bound=BaseModel)


def read_body(shape: type[Body], *, empty: bool = False) -> Body:
    """The request's JSON body as ``shape``: not a JSON object answers 400; a field of the wrong
    type or out of range raises pydantic's ValidationError, answered by :func:`_invalid_body`.
    ``empty``: no body at all reads as ``{}`` (actions whose fields are all optional)."""
    body = request.get_json(silent=True)
    if body is None and empty and not request.get_data():
        body = {}
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "请求体应是 JSON 对象", "the body must be a JSON object")
    return shape.model_validate(body)


@bp.errorhandler(ValidationError)
def _invalid_body(error: ValidationError) -> Any:
    """A request body the shape refuses: 400 bad_request naming the field, in both languages."""
    message, message_en = validation_messages(error)
    return jsonify(error_body("bad_request", message, message_en)), 400


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
    from webapp.api import auth, cards, collection, decks, events, openapi, packs, trades  # noqa: F401

    return bp
