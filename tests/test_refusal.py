"""One way to refuse (webapp.refusal): a request that was refused commits nothing it wrote.

Throwaway views on the test app write a user and then refuse — by raising a domain error, by
calling ``refuse()`` before a redirect, by returning a 4xx without raising — and the database is
unchanged after each; one real refused write each for collection, events, trades and the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for
from sqlmodel import Session, select

from catalog.errors import LunzangError, Message
from catalog.models import User
from tests.kits.db import table_counts
from webapp.db import get_engine, get_session
from webapp.refusal import answers_refusal, flash_back, refuse

REFUSAL = Message("不行", "no")


def _users(app: Flask) -> list[str]:
    with Session(get_engine(app)) as session:
        return sorted(user.username for user in session.exec(select(User)).all())


@pytest.fixture
def throwaway(fresh_app: Flask, make_user: Any) -> Flask:
    """The test app with views that write the user ``zed`` and then answer in different ways."""

    def write() -> None:
        make_user(get_session(), "zed")

    def raises() -> Any:
        write()
        raise LunzangError(REFUSAL)

    def raises_on_a_page_that_goes_back() -> Any:
        write()
        raise LunzangError(REFUSAL)

    def refuses_then_redirects() -> Any:
        write()
        refuse()
        return "", 303, {"Location": "/"}

    def answers_400_without_raising() -> Any:
        write()
        return "the form again, with its message", 400

    def writes() -> Any:
        write()
        return "written"

    back = answers_refusal(flash_back(lambda: url_for("packs.index")))(raises_on_a_page_that_goes_back)
    for path, view in (
        ("/_test/raises", raises),
        ("/api/v1/_test/raises", raises),
        ("/_test/goes-back", back),
        ("/_test/refuse", refuses_then_redirects),
        ("/_test/400", answers_400_without_raising),
        ("/api/v1/_test/400", answers_400_without_raising),
        ("/_test/writes", writes),
    ):
        fresh_app.add_url_rule(path, endpoint=path, view_func=view, methods=["POST"])
    return fresh_app


def test_a_page_that_writes_then_raises_commits_nothing(throwaway: Flask) -> None:
    response = throwaway.test_client().post("/_test/raises")
    assert response.status_code == 400 and "不行" in response.get_data(as_text=True)  # the error page
    assert _users(throwaway) == []


def test_an_api_route_that_writes_then_raises_commits_nothing(throwaway: Flask) -> None:
    response = throwaway.test_client().post("/api/v1/_test/raises")
    assert response.status_code == 400
    assert response.get_json() == {"error": {"code": "error", "message": "不行", "message_en": "no"}}
    assert _users(throwaway) == []


def test_a_page_declaring_its_answer_flashes_and_goes_back_and_commits_nothing(throwaway: Flask) -> None:
    client = throwaway.test_client()
    response = client.post("/_test/goes-back")
    assert (response.status_code, response.headers["Location"]) == (303, "/packs/")
    with client.session_transaction() as web_session:
        assert web_session["_flashes"] == [("error", "不行")]
    assert _users(throwaway) == []


def test_a_refused_request_commits_nothing_whatever_its_status(throwaway: Flask) -> None:
    assert throwaway.test_client().post("/_test/refuse").status_code == 303
    assert _users(throwaway) == []


@pytest.mark.parametrize("path", ["/_test/400", "/api/v1/_test/400"])
def test_a_4xx_answer_built_without_raising_commits_nothing(throwaway: Flask, path: str) -> None:
    assert throwaway.test_client().post(path).status_code == 400
    assert _users(throwaway) == []


def test_an_answered_request_still_commits(throwaway: Flask) -> None:
    assert throwaway.test_client().post("/_test/writes").status_code == 200
    assert _users(throwaway) == ["zed"]


# ---- real refusals: the tables are as they were --------------------------------------------------


def test_collection_minus_one_at_zero_writes_nothing(sample_app: Flask, login: Any) -> None:
    from catalog.models import Printing

    client = sample_app.test_client()
    login(client)
    engine = get_engine(sample_app)
    with Session(engine) as session:
        printing = session.exec(select(Printing)).first()
        assert printing is not None
    before = table_counts(engine)
    response = client.post("/collection/items", data={"printing_id": str(printing.id), "delta": "-1"})
    assert response.status_code == 303
    assert table_counts(engine) == before


def test_refused_event_forms_write_nothing(sample_app: Flask, login: Any) -> None:
    from tests.kits.event import staff_store

    shop, player = sample_app.test_client(), sample_app.test_client()
    login(shop, "shop", role="organizer")
    engine = get_engine(sample_app)
    with Session(engine) as session:
        staff_store(session, "卡牌竞技场", "shop")
        session.commit()
    form = {"name": "十一月月赛", "game": "samsara", "format": "standard", "date": "2026-11-28"}
    form |= {"store": "卡牌竞技场", "city": "上海", "round_minutes": "50", "top_cut": "0", "kind": "monthly"}
    created = shop.post("/events/new", data=form)
    assert created.status_code == 303
    event_id = int(created.headers["Location"].split("/")[2])
    login(player, "alice")
    assert player.post(f"/events/{event_id}/register", data={"deck": "主卡组:\n3x"}).status_code == 303
    before = table_counts(engine)
    again = player.post(f"/events/{event_id}/register", data={"deck": "主卡组:\n3x"})
    assert (again.status_code, again.headers["Location"]) == (303, f"/events/{event_id}")
    assert table_counts(engine) == before
    bad = shop.post("/events/new", data=form | {"tiebreakers": "nope"})
    assert bad.status_code == 303
    assert table_counts(engine) == before


@pytest.fixture
def trade_kit(app: Flask, engine: Any, make_user: Any, tmp_path: Path) -> Any:
    from tests.kits.trade import make_kit

    kit = make_kit(engine, make_user, tmp_path)
    kit.stock("alice", "T1-001", 3, 2)
    kit.stock("bob", "T1-005", 1, 1)
    return kit


def test_a_trade_asking_for_more_than_is_offered_writes_nothing(app: Flask, trade_kit: Any, login: Any) -> None:
    client = app.test_client()
    login(client, "alice")
    before = table_counts(trade_kit.engine)
    response = client.post("/trades", data={"to": "bob", f"get:{trade_kit.pids['T1-005']}:NM:简中:普通": "2"})
    assert response.status_code == 409 and "可交换的只有 1 张" in response.get_data(as_text=True)
    assert table_counts(trade_kit.engine) == before


def test_an_api_trade_asking_for_more_than_is_offered_writes_nothing(client: Any, trade_kit: Any) -> None:
    from catalog.accounts import issue_token
    from tests.kits.trade import NOW

    with Session(trade_kit.engine) as session, session.begin():
        user = session.get(User, trade_kit.users["alice"])
        assert user is not None
        _row, token = issue_token(session=session, user=user, name="t", now=NOW)
    before = table_counts(trade_kit.engine)
    line = {"set": "T1", "number": "T1-005", "quantity": 2}
    response = client.post(
        "/api/v1/trades", json={"to": "bob", "get": [line]}, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 409 and response.get_json()["error"]["code"] == "unavailable"
    assert table_counts(trade_kit.engine) == before
