"""The trading API (DESIGN §11): contract shapes, 409s, authorization, bad input in both languages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from catalog.accounts import issue_token
from tests.kits.trade import NOW, Kit, headers, make_kit


@pytest.fixture
def kit(app: Any, engine: Any, make_user: Any, tmp_path: Path) -> Kit:
    kit = make_kit(engine, make_user, tmp_path)
    kit.stock("alice", "T1-001", 3, 2)
    kit.stock("bob", "T1-005", 1, 1)
    return kit


def line(number: str, quantity: int = 1, **grade: str) -> dict[str, Any]:
    return {"set": "T1", "number": number, "quantity": quantity, **grade}


def test_propose_counter_accept_through_the_api(client: Any, kit: Kit) -> None:
    alice, bob = headers(kit, "alice"), headers(kit, "bob")
    r = client.post(
        "/api/v1/trades",
        json={"to": "bob", "give": [line("T1-001")], "get": [line("T1-005")], "mode": "local", "message": "换"},
        headers=alice,
    )
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert (body["status"], body["version"]) == ("proposed", 1) and isinstance(body["id"], int)
    tid = body["id"]
    assert body["proposer_side"]["gives"][0]["number"] == "T1-001"
    r = client.post(
        f"/api/v1/trades/{tid}/counter",
        json={"version": 1, "give": [line("T1-005")], "get": [line("T1-001", 2)]},
        headers=bob,
    )
    assert r.status_code == 200 and r.get_json()["version"] == 2
    stale = client.post(f"/api/v1/trades/{tid}/accept", json={"version": 1}, headers=alice)
    assert stale.status_code == 409 and stale.get_json()["error"]["code"] == "stale_version"
    assert "请刷新" in stale.get_json()["error"]["message"] and "reload" in stale.get_json()["error"]["message_en"]
    ok = client.post(f"/api/v1/trades/{tid}/accept", json={"version": 2}, headers=alice)
    assert ok.status_code == 200 and ok.get_json()["status"] == "completed"
    again = client.post(f"/api/v1/trades/{tid}/accept", json={"version": 2}, headers=alice)
    assert again.status_code == 200 and kit.ledger_rows("trade") == 4
    assert kit.owned("bob", "T1-001") == (2, 0)
    listed = client.get("/api/v1/trades?status=completed", headers=bob).get_json()["trades"]
    assert [t["id"] for t in listed] == [tid]
    ledger = client.get("/api/v1/collection/ledger", headers=bob).get_json()["entries"]
    assert {e["reason"] for e in ledger} >= {"trade"}


def test_409_names_the_unavailable_lines_and_writes_nothing(client: Any, kit: Kit) -> None:
    r = client.post("/api/v1/trades", json={"to": "bob", "get": [line("T1-005", 2)]}, headers=headers(kit, "alice"))
    assert r.status_code == 409
    error = r.get_json()["error"]
    assert error["code"] == "unavailable" and error["lines"][0]["number"] == "T1-005"
    assert error["lines"][0]["available"] == 1 and "可交换" in error["message"] and "available" in error["message_en"]
    assert kit.trade_rows() == 0


@pytest.mark.parametrize(
    ("body", "status", "zh"),
    [
        ({"to": "alice", "give": [line("T1-001")]}, 400, "不能和自己交易"),
        ({"to": "bob", "give": [line("T1-001", 0)]}, 400, "数量必须是"),
        ({"to": "bob", "give": [line("T1-001", -1)]}, 400, "数量必须是"),
        ({"to": "nobody", "give": [line("T1-001")]}, 404, "没有用户名为"),
        ({"to": "bob", "give": [line("T9-999")]}, 400, "give[0]"),
        ({"to": "bob", "give": [line("T1-001", condition="shiny")]}, 400, "未知的品相"),
        ({"to": "bob", "give": "T1-001"}, 400, "应是列表"),
        ({"give": [line("T1-001")]}, 400, "缺少 to"),
        ({"to": "bob", "give": [line("T1-007")]}, 409, "可交换的只有 0 张"),  # a card alice does not have
    ],
)
def test_bad_input_is_refused_in_both_languages(client: Any, kit: Kit, body: Any, status: int, zh: str) -> None:
    r = client.post("/api/v1/trades", json=body, headers=headers(kit, "alice"))
    assert r.status_code == status, r.get_json()
    error = r.get_json()["error"]
    assert zh in error["message"] and error["message_en"] and error["message_en"] != error["message"]
    assert kit.trade_rows() == 0


def test_a_third_user_and_a_foreign_token_get_nothing(client: Any, kit: Kit, make_user: Any) -> None:
    alice = headers(kit, "alice")
    tid = client.post("/api/v1/trades", json={"to": "bob", "give": [line("T1-001")]}, headers=alice).get_json()["id"]
    carol = headers(kit, "carol")
    assert client.get(f"/api/v1/trades/{tid}", headers=carol).status_code == 404
    for action in ("accept", "counter", "cancel", "decline", "dispute"):
        r = client.post(f"/api/v1/trades/{tid}/{action}", json={"version": 1, "get": [line("T1-001")]}, headers=carol)
        assert r.status_code == 404, action
    # alice's token cannot accept as bob: alice wrote version 1
    assert client.post(f"/api/v1/trades/{tid}/accept", json={"version": 1}, headers=alice).status_code == 409
    assert client.post(f"/api/v1/trades/{tid}/accept", json={"version": 1}).status_code == 401
    assert kit.trade(tid).status == "proposed"
    with Session(kit.engine) as session, session.begin():
        admin = make_user(session, "root", role="admin")
        _row, token = issue_token(session=session, user=admin, name="t", now=NOW)
    assert client.get(f"/api/v1/trades/{tid}", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_matches_through_the_api(client: Any, kit: Kit) -> None:
    from catalog.collection.wants import set_want
    from catalog.models import Printing

    with Session(kit.engine) as session, session.begin():
        card_id = session.get(Printing, kit.pids["T1-005"]).card_id
        set_want(session=session, user_id=kit.users["alice"], card_id=card_id, quantity=1, now=NOW)
    r = client.get("/api/v1/trades/matches", headers=headers(kit, "alice"))
    assert r.status_code == 200
    matches = r.get_json()["matches"]
    assert matches[0]["user"] == "bob" and matches[0]["they_give"][0]["number"] == "T1-005"


def test_expiry_and_the_new_account_limit_come_from_the_app_config(app: Any, client: Any, kit: Kit) -> None:
    from datetime import datetime

    app.config.update(TRADE_EXPIRY_DAYS=2, TRADE_NEW_ACCOUNT_TRADES=1, TRADE_NEW_ACCOUNT_OPEN_OFFERS=1)
    alice = headers(kit, "alice")
    first = client.post("/api/v1/trades", json={"to": "bob", "give": [line("T1-001")]}, headers=alice).get_json()
    created, expires = (datetime.fromisoformat(first[k]) for k in ("created_at", "expires_at"))
    assert (expires - created).days == 2
    second = client.post("/api/v1/trades", json={"to": "carol", "give": [line("T1-001")]}, headers=alice)
    assert second.status_code == 409 and second.get_json()["error"]["code"] == "offer_limit"
    assert kit.trade_rows() == 1
