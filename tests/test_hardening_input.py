"""no 500 from input, on every route, from one validation layer.

Every rule of the URL map is requested with the values the probe used — a superscript digit
where a number goes (``page=²``: ``isdigit`` but not ``int``), 20-digit ids in the path and the
query, a NUL byte, a lone surrogate, JSON nested 100,000 deep, a CSV field over the csv
module's 131,072-character limit — signed in (session and token), and the answer must be a
4xx or a success, never a 5xx.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import TEST_PASSWORD

HUGE = "9" * 20
# As written in a URL: "%ED%A0%80" is the UTF-8 form of the lone surrogate U+D800.
QUERY_VALUES = ["%C2%B2", HUGE, "-" + HUGE, "a%00b", "%ED%A0%80", "1" * 300]
NUMERIC_KEYS = ["page", "per_page", "id", "delta", "quantity", "seed", "packs", "boxes", "trials", "keep", "turns"]


def _paths(app: Any) -> list[tuple[str, set[str]]]:
    paths = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule
        for converter, name in re.findall(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", path):
            value = HUGE if converter == "int" else "samsara" if "game" in name else "x"
            path = re.sub(r"<[^>]*\b" + name + ">", value, path, count=1)
        paths.append((path, set(rule.methods or ()) - {"HEAD", "OPTIONS"}))
    return sorted(paths)


@pytest.fixture
def signed_in(sample_app: Any, make_user: Any) -> tuple[Any, dict[str, str]]:
    from sqlmodel import Session

    from catalog.accounts import issue_token
    from webapp.db import get_engine
    from webapp.helpers import utcnow

    with Session(get_engine(sample_app)) as session, session.begin():
        user = make_user(session, "alice", password=TEST_PASSWORD)
        _row, token = issue_token(session=session, user=user, now=utcnow())
    client = sample_app.test_client()
    assert client.post("/login", data={"username": "alice", "password": TEST_PASSWORD}).status_code == 302
    return client, {"Authorization": f"Bearer {token}"}


def _bodies() -> list[tuple[str, dict[str, Any]]]:
    deep = "[" * 100_000 + "]" * 100_000
    field = '"' + "x" * 140_000 + '"'
    return [
        ("deep JSON", {"data": deep, "content_type": "application/json"}),
        (
            "lone surrogate JSON",
            {
                "data": '{"set": "\\ud800", "number": "\\ud800", "delta": 1, "decklist": "1 \\ud800"}',
                "content_type": "application/json",
            },
        ),
        ("huge number JSON", {"json": {"set": "M4", "number": "M4-001", "delta": 10**20, "seed": 10**20}}),
        (
            "NUL JSON",
            {"json": {"set": "M4\x00", "number": "1\x00", "delta": 1, "decklist": "1 a\x00b", "name": "a\x00"}},
        ),
        ("huge CSV field", {"data": "set,number,name\nM4,1," + field + "\n", "content_type": "text/csv"}),
        (
            "NUL form",
            {"data": {k: "1\x00" for k in ["name", "q", "list", "set", "number", "note", "delta", "printing_id"]}},
        ),
        ("² form", {"data": {k: "²" for k in [*NUMERIC_KEYS, "printing_id", "quantity", "for_trade"]}}),
        ("huge form", {"data": {k: HUGE for k in [*NUMERIC_KEYS, "printing_id", "quantity", "for_trade", "card_id"]}}),
    ]


def test_no_route_answers_5xx_to_hostile_values(sample_app: Any, signed_in: tuple[Any, dict[str, str]]) -> None:
    client, bearer = signed_in
    failures: list[str] = []

    def check(method: str, path: str, **kwargs: Any) -> None:
        try:
            response = client.open(path, method=method, **kwargs)
        except Exception as error:  # TESTING propagates what would be a 500
            failures.append(f"{method} {path} {str(kwargs)[:80]} → {type(error).__name__}: {str(error)[:80]}")
            return
        response.close()
        if response.status_code >= 500:
            failures.append(f"{method} {path} {str(kwargs)[:80]} → {response.status_code}")

    for path, methods in _paths(sample_app):
        if path == "/logout":
            continue  # signing out would end the rest of the run's session
        headers = bearer if path.startswith("/api/") else {}
        for value in QUERY_VALUES:
            keys = [*NUMERIC_KEYS, "q", "game", "list", "set", "number", "format", "next"]
            query = "&".join(f"{k}={value}" for k in keys)
            for method in methods & {"GET"}:
                check(method, path, query_string=query, headers=headers)
        for method in methods & {"POST"}:
            for _label, body in _bodies():
                check(method, path, headers=headers, **body)
    assert failures == [], "\n".join(failures)


def test_a_booster_seed_of_19_digits_is_accepted(sample_app, client) -> None:
    """Seeds go up to 2⁶³−1 (19 digits): the opener's own fresh seeds must not be refused."""
    top = 2**63 - 1
    assert client.get(f"/packs/samsara/M4/open?packs=1&seed={top}").status_code == 200
    assert client.get(f"/packs/samsara/M4/open?packs=1&seed={top + 1}").status_code == 400
    assert client.get("/packs/samsara/M4/open?packs=1&seed=" + "9" * 20).status_code == 400
