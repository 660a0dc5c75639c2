"""API helpers: a user with a live token, and a collection change through /api/v1."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from catalog.accounts import issue_token
from tests.kits.collection import NOW
from webapp.db import get_engine

API = "/api/v1/collection"


def make_token(app: Any, make_user: Any, name: str) -> tuple[int, dict[str, str]]:
    """A committed user with a live API token: (user id, the Authorization header)."""
    with Session(get_engine(app)) as session, session.begin():
        user = make_user(session, name)
        _row, token = issue_token(session=session, user=user, name="test", now=NOW)
        return user.id, {"Authorization": f"Bearer {token}"}


def change(client: Any, headers: dict[str, str], number: str, delta: int, **grade: str) -> Any:
    return client.post(f"{API}/items", json={"set": "M4", "number": number, "delta": delta, **grade}, headers=headers)
