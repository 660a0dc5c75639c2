"""Issue 16 items 3–4: reads never fail under writes.

Item 3: authenticated GETs used to write ``last_used_at`` inside the request's read
transaction, so concurrent GETs of one token failed ("database is locked" on SQLite) or
serialised on the row lock (PostgreSQL). Now the use is noted in its own short transaction,
only when the recorded one is older than :data:`catalog.accounts.TOKEN_USE_RESOLUTION`.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from sqlmodel import Session, select

from catalog import accounts
from catalog.models import ApiToken
from tests.conftest import TEST_PASSWORD

THREADS, REQUESTS = 8, 50


def _token(app: Any, make_user: Any) -> str:
    from webapp.db import get_engine

    with Session(get_engine(app)) as session, session.begin():
        user = make_user(session, "alice", password=TEST_PASSWORD)
        _row, plaintext = accounts.issue_token(session=session, user=user, now=accounts_now())
    return plaintext


def accounts_now() -> Any:
    from webapp.auth import utcnow

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
