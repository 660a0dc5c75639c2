"""a path segment no storage takes (NUL, a lone surrogate) is refused in one
place, before any view runs: 404 with a clear page (JSON under ``/api/``), never a 500 —
PostgreSQL refuses NUL in text. Every route of the URL map is tried, so a new route cannot
forget."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import TEST_PASSWORD

PROBE_PATHS = [
    "/u/%00",
    "/cards/samsara/%00",
    "/api/v1/cards/samsara/%00",
    "/sets/samsara/%00",
    "/packs/samsara/%00/odds",
    "/stores/%00/exchange",
    "/seasons/%00",
    "/seasons/%00/export.csv",
]


@pytest.fixture
def organiser(sample_app: Any, make_user: Any) -> Any:
    """An admin signed in: routes for staff reach their lookups too."""
    from sqlmodel import Session

    from webapp.db import get_engine

    with Session(get_engine(sample_app)) as session, session.begin():
        make_user(session, "root", password=TEST_PASSWORD, role="admin")
    client = sample_app.test_client()
    assert client.post("/login", data={"username": "root", "password": TEST_PASSWORD}).status_code == 302
    return client


@pytest.mark.parametrize("path", PROBE_PATHS)
@pytest.mark.parametrize("bad", ["%00", "a%00b", "%ED%A0%80"])
def test_the_probed_routes_refuse_an_unusable_path_segment(organiser: Any, path: str, bad: str) -> None:
    answer = organiser.get(path.replace("%00", bad))
    if "00" not in bad:  # werkzeug decodes invalid UTF-8 as U+FFFD: a name like any other
        assert answer.status_code in (200, 404)
        return
    assert answer.status_code == 404
    if path.startswith("/api/"):
        assert answer.get_json()["error"]["code"] == "not_found"
        assert answer.get_json()["error"]["message_en"]
    else:
        assert "路径" in answer.get_data(as_text=True)


def test_every_route_refuses_nul_in_each_path_segment(sample_app: Any, organiser: Any) -> None:
    failures = []
    for rule in sample_app.url_map.iter_rules():
        names = [
            n for c, n in re.findall(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", rule.rule) if c in ("", "string", "path")
        ]
        for name in names:
            path = rule.rule
            for converter, other in re.findall(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", rule.rule):
                value = (
                    "%00" if other == name else ("1" if converter == "int" else "samsara" if "game" in other else "x")
                )
                path = re.sub(r"<[^>]*\b" + other + ">", value, path, count=1)
            for method in sorted(set(rule.methods or ()) - {"HEAD", "OPTIONS"}):
                answer = organiser.open(path, method=method)
                if answer.status_code != 404:
                    failures.append(f"{method} {path} → {answer.status_code}")
    assert failures == []
