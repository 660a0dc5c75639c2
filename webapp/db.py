"""The request's database session: one transaction per request, committed only on success.

Success means nothing refused the request (:func:`webapp.refusal.refuse`, which the one handler
of domain errors calls) and its answer is below 400: any other answer rolls back, whether a
handler built it from an error or the view returned it (a form shown again with 400).

Requests that may write (every method but GET/HEAD/OPTIONS) start their transaction as a
writer (``catalog.db.writer``: ``BEGIN IMMEDIATE`` on SQLite), before their first read — the
signed-in user is loaded first — so two concurrent +1 requests queue for the write lock
instead of one failing with "database is locked" when it upgrades its read.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g, has_request_context, request
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from catalog.db import make_engine, writer

READ_ONLY_METHODS = {"GET", "HEAD", "OPTIONS"}
REFUSED = "lunzang_refused"  # the flag on ``g`` of a request that must not commit (webapp.refusal.refuse)


def get_engine(app: Flask | None = None) -> Engine:
    app = app or current_app
    engine = app.extensions.get("lunzang.engine")
    if engine is None:
        engine = make_engine(app.config["DATABASE_URL"], timeout=float(app.config["DATABASE_TIMEOUT"]))
        app.extensions["lunzang.engine"] = engine
    return engine


def get_session() -> Session:
    """The request's session, its transaction begun.

    A reading request's session does not expire what it loaded when it commits (after the
    answer is made, nothing reads again): expiring walked every card, printing and set of a
    results page, ~0.3 ms of it for nothing."""
    if "db_session" not in g:
        engine = get_engine()
        in_request = has_request_context()
        reading = in_request and request.method in READ_ONLY_METHODS
        if in_request and not reading:
            engine = writer(engine)
        g.db_session = Session(engine, expire_on_commit=not reading)
        g.db_session.begin()
    return g.db_session


def refused() -> bool:
    """Whether this request was refused, so its transaction must not commit."""
    return bool(g.get(REFUSED))


def _close_session(error: BaseException | None = None) -> None:
    session: Session | None = g.pop("db_session", None)
    if session is None:
        return
    try:
        if error is None and not refused() and session.in_transaction():
            session.commit()
        else:
            session.rollback()
    finally:
        session.close()


def discard_session() -> None:
    """Roll back and forget the request's session (after a database error)."""
    session: Session | None = g.pop("db_session", None)
    if session is not None:
        session.rollback()
        session.close()


def _commit_before_answering(response: Any) -> Any:
    """Commit the request's transaction before the answer leaves: a COMMIT that
    fails — the connection cut, the database gone — then answers 503 instead of failing in the
    teardown after a success was already produced (a 500, or worse a 200 for a lost write)."""
    session: Session | None = g.get("db_session")
    if session is None or not session.in_transaction():
        return response
    if refused() or response.status_code >= 400:
        setattr(g, REFUSED, True)  # nor does the teardown commit what was read after this
        session.rollback()  # a refused request writes nothing, however its answer was made
        return response
    try:
        session.commit()
    except DBAPIError as error:
        discard_session()
        from webapp.errors import database_unavailable

        return current_app.make_response(database_unavailable(current_app, error))
    return response


def init_app(app: Flask) -> None:
    app.after_request(_commit_before_answering)  # registered first: runs after every other hook
    app.teardown_appcontext(_close_session)


def dispose(app: Flask) -> Any:
    engine = app.extensions.pop("lunzang.engine", None)
    if engine is not None:
        engine.dispose()
