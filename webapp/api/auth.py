"""Who is calling the API: ``Authorization: Bearer <token>``, or the signed-in session for reads.

Writes through the API need a bearer token: the API is exempt from CSRF, so a session cookie
(which a browser attaches to cross-site requests) must never authorise a write here (DESIGN §8).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import g, jsonify, request
from flask_login import current_user
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from catalog.accounts import note_token_use, user_for_token
from catalog.models import User
from webapp.api import ApiError, bp
from webapp.api.openapi import SECURITY_SCHEMES, Answer, operation, refusal
from webapp.db import get_engine, get_session
from webapp.helpers import utcnow
from webapp.shapes.decks import Me

logger = logging.getLogger(__name__)

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def _unauthorized(message: str, message_en: str) -> ApiError:
    return ApiError(401, "unauthorized", message, message_en)


def _note_use_apart(token_id: int, now: Any) -> None:
    """Write the token's last use in a transaction of its own, committed at once: the request's
    own (read) transaction never holds a write lock. Bookkeeping only: if the database is busy
    (a long import on SQLite), the use is noted by a later request instead of failing this one."""
    try:
        with Session(get_engine()) as session, session.begin():
            note_token_use(session=session, token_id=token_id, now=now)
    except OperationalError as error:
        logger.warning("token %s: last use not recorded (%s)", token_id, error.orig)


def api_user() -> User:
    """The calling user, or a 401 ``ApiError`` (bad or revoked token, or nobody signed in)."""
    if "api_user" in g:
        return g.api_user
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _sep, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise _unauthorized(
                "Authorization 请求头应为“Bearer 令牌”", "the Authorization header must be 'Bearer <token>'"
            )
        session, now = get_session(), utcnow()
        owner = user_for_token(session=session, token=token, now=now)
        if owner is None:
            raise _unauthorized("API 令牌无效或已被吊销", "the API token is unknown or revoked")
        user = owner.user
        if owner.use_is_stale:
            if request.method in SAFE_METHODS:
                _note_use_apart(owner.token_id, now)
            else:  # a write request holds the write lock already (BEGIN IMMEDIATE): note it there
                note_token_use(session=session, token_id=owner.token_id, now=now)
    elif request.method in SAFE_METHODS and current_user.is_authenticated:
        user = current_user
    else:
        raise _unauthorized(
            "需要 API 令牌：在请求头中加入 Authorization: Bearer 令牌（在“我的账号”页面创建）",
            "an API token is needed: send Authorization: Bearer <token> (create one on your account page)",
        )
    g.api_user = user
    return user


def optional_api_user() -> User | None:
    """The calling user when the request names one (a bearer token, or a signed-in session on a
    GET), else ``None``: anonymous reads stay open. A bad or revoked token is still a 401."""
    if request.headers.get("Authorization") or (request.method in SAFE_METHODS and current_user.is_authenticated):
        return api_user()
    return None


def require_api_user(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse the request with 401 unless :func:`api_user` finds the caller."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api_user()
        return view(*args, **kwargs)

    return wrapper


@operation(
    "get",
    "/me",
    summary="The calling user (who the token or the session belongs to)",
    security=[{"bearerAuth": []}],
    answers={200: Answer("The user", Me), 401: refusal("No token, or an unknown or revoked one")},
)
@bp.get("/me")
@require_api_user
def me() -> Any:
    user = api_user()
    return jsonify(Me(username=user.username, role=user.role).body())


SECURITY_SCHEMES["bearerAuth"] = {
    "type": "http",
    "scheme": "bearer",
    "description": "API 令牌（在“我的账号”页面创建，以 lz_ 开头）。GET 请求也接受已登录网页会话。",
}
