"""Times in the reader's time zone: one Jinja filter for every time on pages,
the user's zone from /account (validated against zoneinfo, migration 0010), Asia/Shanghai for
everyone else, ISO-8601 UTC in JSON."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from catalog import accounts
from catalog.collection.ledger import adjust
from catalog.models import Event, User
from tests.kits.collection import NM, NOW, printing_id
from tests.kits.event import staff_store
from webapp import timezones
from webapp.db import get_engine

TEMPLATES = Path(__file__).resolve().parents[1] / "webapp" / "templates"


def engine_of(client: Any) -> Any:
    return get_engine(client.application)


def set_zone(client: Any, name: str) -> Any:
    return client.post("/account/time-zone", data={"time_zone": name})


def zone_in_db(client: Any, username: str = "alice") -> str | None:
    with Session(engine_of(client)) as session:
        return session.exec(select(User.time_zone).where(User.username == username)).one()


@pytest.mark.parametrize(
    ("value", "style", "zone", "shown"),
    [
        (datetime(2026, 6, 1, 12, 0, tzinfo=UTC), "minute", "Asia/Shanghai", "2026-06-01 20:00"),
        (datetime(2026, 6, 1, 20, 30, tzinfo=UTC), "minute", "Asia/Shanghai", "2026-06-02 04:30"),  # next day
        (datetime(2026, 6, 1, 20, 30, tzinfo=UTC), "date", "Asia/Shanghai", "2026-06-02"),
        (datetime(2026, 6, 1, 20, 30, tzinfo=UTC), "time", "Asia/Shanghai", "04:30"),
        (datetime(2026, 6, 1, 12, 0), "minute", "Asia/Shanghai", "2026-06-01 20:00"),  # naive = UTC
        (datetime(2026, 6, 1, 12, 0, tzinfo=UTC), "minute", "Europe/London", "2026-06-01 13:00"),  # summer time
        (datetime(2026, 12, 1, 12, 0, tzinfo=UTC), "minute", "Europe/London", "2026-12-01 12:00"),
        (datetime(2026, 6, 1, 12, 0, tzinfo=timezone(timedelta(hours=-5))), "minute", "UTC", "2026-06-01 17:00"),
        (date(2026, 11, 28), "date", "America/Los_Angeles", "2026-11-28"),  # a calendar day stays itself
        (None, "minute", "Asia/Shanghai", ""),
    ],
)
def test_the_filter(app: Any, value: Any, style: str, zone: str, shown: str) -> None:
    with app.test_request_context("/"):
        from flask import g

        g.time_zone = zone
        assert timezones.localtime(value, style) == shown


def test_anonymous_visitors_see_asia_shanghai(app: Any) -> None:
    with app.test_request_context("/"):
        assert timezones.zone_name() == "Asia/Shanghai"
        assert app.jinja_env.from_string("{{ t|localtime }}").render(t=NOW) == "2026-06-01 20:00"


def test_a_form_time_is_read_in_the_readers_zone(app: Any) -> None:
    with app.test_request_context("/"):
        assert timezones.from_local("2026-11-28T13:00") == datetime(2026, 11, 28, 5, 0, tzinfo=UTC)
        assert timezones.from_local("2026-11-28T13:00+00:00") == datetime(2026, 11, 28, 13, 0, tzinfo=UTC)
        with pytest.raises(ValueError):
            timezones.from_local("soon")


def test_no_template_formats_a_time_itself() -> None:
    """Every date/time shown goes through |localtime; isoformat() only in machine attributes
    (<time datetime=…>) and form values."""
    offenders = []
    for path in TEMPLATES.rglob("*.html"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if "strftime" in line or re.search(r"\}\}\s*UTC|' UTC'|（UTC", line):  # a time labelled UTC
                offenders.append(f"{path.name}:{number}")
            for match in re.finditer(r"\.isoformat\(\)", line):
                before = line[: match.start()]
                if not re.search(r'(datetime|value)="\{\{[^}]*$', before):
                    offenders.append(f"{path.name}:{number}")
    assert offenders == []


def test_the_account_page_sets_the_zone_and_pages_follow_it(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    with Session(engine_of(client)) as session, session.begin():
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice.id, printing_id=pid, grade=NM, delta=2, reason="manual", now=NOW)
    history = client.get("/collection/history").get_data(as_text=True)
    assert "2026-06-01 20:00" in history and "Asia/Shanghai" in history  # the default
    page = client.get("/account").get_data(as_text=True)
    assert 'name="time_zone"' in page and 'value="Asia/Shanghai"' in page
    assert '<option value="Europe/Berlin">' in page  # the names zoneinfo knows, to pick from

    response = set_zone(client, "Europe/Berlin")
    assert response.status_code == 302
    assert zone_in_db(client) == "Europe/Berlin"
    assert "时间将按 Europe/Berlin 显示" in client.get("/account").get_data(as_text=True)
    history = client.get("/collection/history").get_data(as_text=True)
    assert "2026-06-01 14:00" in history and "Europe/Berlin" in history and "20:00" not in history

    # The default zone is stored as NULL: a user on it follows the site's default.
    assert set_zone(client, " Asia/Shanghai ").status_code == 302
    assert zone_in_db(client) is None


@pytest.mark.parametrize("name", ["Mars/Olympus", "asia/shanghai", "Beijing", "../../etc/passwd", "x" * 200])
def test_an_unknown_zone_is_refused_and_nothing_changes(sample_app: Any, client: Any, login: Any, name: str) -> None:
    login(client)
    assert set_zone(client, "Asia/Taipei").status_code == 302
    response = set_zone(client, name)
    body = response.get_data(as_text=True)
    assert response.status_code == 400 and "未知的时区" in body and "Asia/Shanghai" in body
    assert zone_in_db(client) == "Asia/Taipei"
    assert set_zone(client, "").status_code == 400


def test_a_zone_zoneinfo_no_longer_knows_falls_back_to_the_default() -> None:
    user = User(username="a", username_key="a", password_hash="x", created_at=NOW, time_zone="Gone/Away")
    assert accounts.time_zone_of(user) == "Asia/Shanghai"
    assert accounts.time_zone_of(None) == "Asia/Shanghai"


def test_json_keeps_iso_utc(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    with Session(engine_of(client)) as session, session.begin():
        pid = printing_id(session, "M4", "M4-001")
        adjust(session=session, user_id=alice.id, printing_id=pid, grade=NM, delta=1, reason="manual", now=NOW)
    assert set_zone(client, "Asia/Tokyo").status_code == 302
    entries = client.get("/api/v1/collection/ledger").get_json()["entries"]
    assert entries[0]["at"] == "2026-06-01T12:00:00Z"


def test_an_event_deadline_is_typed_in_the_organisers_zone(sample_app: Any, client: Any, login: Any) -> None:
    login(client, "shop", role="organizer")
    with Session(engine_of(client)) as session, session.begin():
        staff_store(session, "店", "shop")  # an organiser creates events for their store only
    form = client.get("/events/new").get_data(as_text=True)
    assert "卡组截止时间（Asia/Shanghai" in form
    data = {"name": "月赛", "game": "samsara", "format": "standard", "date": "2026-11-28", "store": "店",
            "round_minutes": "50", "top_cut": "0", "kind": "monthly", "deadline": "2026-11-28T13:00"}  # fmt: skip
    assert client.post("/events/new", data=data).status_code == 303
    with Session(engine_of(client)) as session:
        deadline = session.exec(select(Event.deadline)).one()
    assert deadline is not None
    assert deadline.replace(tzinfo=deadline.tzinfo or UTC) == datetime(2026, 11, 28, 5, 0, tzinfo=UTC)


def test_token_times_on_the_account_page(sample_app: Any, client: Any, login: Any) -> None:
    alice = login(client)
    with Session(engine_of(client)) as session, session.begin():
        user = session.get(User, alice.id)
        assert user is not None
        accounts.issue_token(session=session, user=user, name="脚本", now=NOW)
    assert set_zone(client, "America/New_York").status_code == 302
    page = client.get("/account").get_data(as_text=True)
    assert "<td>2026-06-01 08:00</td>" in page and "UTC</td>" not in page
