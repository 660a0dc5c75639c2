"""Reads never fail under writes.

Item 3: authenticated GETs used to write ``last_used_at`` inside the request's read
transaction, so concurrent GETs of one token failed ("database is locked" on SQLite) or
serialised on the row lock (PostgreSQL). Now the use is noted in its own short transaction,
only when the recorded one is older than :data:`catalog.accounts.TOKEN_USE_RESOLUTION`.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts
from catalog.models import ApiToken
from tests.conftest import ON_POSTGRES, TEST_PASSWORD

THREADS, REQUESTS = 8, 50


def _token(app: Any, make_user: Any) -> str:
    from webapp.db import get_engine

    with Session(get_engine(app)) as session, session.begin():
        user = make_user(session, "alice", password=TEST_PASSWORD)
        _row, plaintext = accounts.issue_token(session=session, user=user, now=accounts_now())
    return plaintext


def accounts_now() -> Any:
    from webapp.helpers import utcnow

    return utcnow()


def _hammer(app: Any, token: str, path: str) -> Counter[int | str]:
    headers = {"Authorization": f"Bearer {token}"}

    def one_thread(_index: int) -> list[int | str]:
        client = app.test_client()
        seen: list[int | str] = []
        for _ in range(REQUESTS):
            try:
                seen.append(client.get(path, headers=headers).status_code)
            except Exception as error:  # TESTING propagates a server error: count it as such
                seen.append(type(error).__name__)
        return seen

    with ThreadPoolExecutor(THREADS) as pool:
        return Counter(status for statuses in pool.map(one_thread, range(THREADS)) for status in statuses)


def test_concurrent_gets_of_one_token_never_fail(sample_app: Any, make_user: Any) -> None:
    token = _token(sample_app, make_user)
    statuses = _hammer(sample_app, token, "/api/v1/collection")
    assert statuses == Counter({200: THREADS * REQUESTS})


def test_last_use_is_noted_once_per_resolution(app: Any, make_user: Any) -> None:
    from webapp.db import get_engine

    token = _token(app, make_user)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    with Session(get_engine(app)) as session:
        first = session.exec(select(ApiToken)).one().last_used_at
    assert first is not None
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    with Session(get_engine(app)) as session:
        assert session.exec(select(ApiToken)).one().last_used_at == first  # within the resolution: no write
    with Session(get_engine(app)) as session, session.begin():
        row = session.exec(select(ApiToken)).one()
        row.last_used_at = first - accounts.TOKEN_USE_RESOLUTION - timedelta(seconds=1)
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    with Session(get_engine(app)) as session:
        assert session.exec(select(ApiToken)).one().last_used_at > first - timedelta(seconds=1)


# ---------------------------------------------------------------------------- item 4: a busy SQLite

needs_sqlite = pytest.mark.skipif(ON_POSTGRES, reason="the SQLite write lock; PostgreSQL waits on row locks")


def _hold_write_lock(url: str, seconds: float) -> threading.Thread:
    """Another process's long import, in miniature: a connection holding SQLite's write lock."""
    import sqlite3

    path = url.removeprefix("sqlite:///")
    held = threading.Event()

    def hold() -> None:
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        held.set()
        time.sleep(seconds)
        connection.execute("ROLLBACK")
        connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    return thread


def _plus_one(app: Any, token: str) -> Any:
    body = {"set": "M4", "number": "M4-001", "delta": 1}
    return app.test_client().post("/api/v1/collection/items", json=body, headers={"Authorization": f"Bearer {token}"})


@needs_sqlite
def test_a_writer_waits_as_long_as_configured(sample_app: Any, make_user: Any, database_url: str) -> None:
    # SQLite's busy_timeout pragma used to cut every wait to 5 s whatever was configured.
    sample_app.config["DATABASE_TIMEOUT"] = 9
    token = _token(sample_app, make_user)
    holder = _hold_write_lock(database_url, 5.5)
    response = _plus_one(sample_app, token)
    holder.join()
    assert response.status_code == 200, response.get_data(as_text=True)


@needs_sqlite
def test_a_writer_that_cannot_wait_longer_gets_503_with_retry_after(
    sample_app: Any, make_user: Any, database_url: str, login: Any
) -> None:
    sample_app.config["DATABASE_TIMEOUT"] = 0.3
    token = _token(sample_app, make_user)
    holder = _hold_write_lock(database_url, 1.5)
    try:
        api = _plus_one(sample_app, token)
        browser = sample_app.test_client()
        login(browser, "alice")
        page = browser.post("/collection/items", data={"set": "M4", "number": "M4-001", "delta": 1})
    finally:
        holder.join()
    assert api.status_code == 503 and api.headers["Retry-After"].isdigit()
    assert api.json["error"]["code"] == "database_busy"
    assert page.status_code == 503 and page.headers["Retry-After"].isdigit()
    assert "稍后再试" in page.get_data(as_text=True)


def test_a_commit_that_fails_answers_503_not_500(sample_app: Any, make_user: Any, monkeypatch: Any) -> None:
    # The database connection cut between a request's last statement and its COMMIT (seen once
    # in the two-server test's pg_terminate_backend run): the answer is a 503, never a 500 or a
    # success for a write that was not kept.
    from sqlalchemy.exc import OperationalError

    token = _token(sample_app, make_user)

    def cut(self: Any) -> None:
        raise OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"))

    monkeypatch.setattr(Session, "commit", cut)
    response = _plus_one(sample_app, token)
    assert response.status_code == 503 and response.headers["Retry-After"].isdigit()
    assert response.json["error"]["code"] == "database_busy"
    monkeypatch.undo()
    with Session(_engine(sample_app)) as session:
        from catalog.models import LedgerEntry

        assert session.exec(select(LedgerEntry)).first() is None  # nothing was kept


def _engine(app: Any) -> Any:
    from webapp.db import get_engine

    return get_engine(app)
